/** Systrace's entry in the format registry: detection by content; the analysis loads on first open. */
import type { FormatEntry } from '../format';
import { detect } from './input';

export const systraceFormat: FormatEntry = {
  name: 'systrace',
  // detect reads the first megabyte, and an HTML file to its end for the trace header
  detect: (files) => !!files[0] && detect(files[0].bytes, files[0].name) !== null,
  load: () => import('./document'),
};

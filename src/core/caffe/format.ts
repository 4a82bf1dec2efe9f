/** Caffe's entry in the format registry: detection by name and top-level fields; the rest loads on first open. */
import type { FormatEntry } from '../format';
import { detectCaffe } from './sniff';

export const caffeFormat: FormatEntry = {
  name: 'caffe',
  detect: (files) => !!files[0] && detectCaffe(files[0].bytes, files[0].name),
  load: () => import('./document'),
};

/** Circle's entry in the format registry: detection by identifier; the rest loads on first open. */
import type { FormatEntry } from '../format';
import { detect } from './detect';

export const circleFormat: FormatEntry = {
  name: 'circle',
  detect: (files) => !!files[0] && detect(files[0].bytes, files[0].name),
  load: () => import('./document'),
};

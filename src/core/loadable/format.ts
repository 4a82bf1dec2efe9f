/** The NVDLA loadable's entry in the format registry: detection by identifier or root shape; the rest loads on first open. */
import type { FormatEntry } from '../format';
import { detect } from './read';

export const nvdlaFormat: FormatEntry = {
  name: 'nvdla',
  detect: (files) => !!files[0] && detect(files[0].bytes, files[0].name),
  load: () => import('./document'),
};

/**
 * Caffe's entry in the format registry: detection by name and top-level fields; the rest loads on
 * first open. A large `.caffemodel` is first read as its skeleton (skeleton.ts: the structure
 * without the blob values), so its graph shows before its weights are read.
 */
import type { FormatEntry } from '../format';
import { detectCaffe, isCaffemodelName } from './sniff';

export const caffeFormat: FormatEntry = {
  name: 'caffe',
  detect: (files) => !!files[0] && detectCaffe(files[0].bytes, files[0].name),
  load: () => import('./document'),
  async skeleton(file) {
    if (!isCaffemodelName(file.name)) return null;
    const { caffemodelSkeleton, packSkeleton } = await import('./skeleton');
    return packSkeleton(await caffemodelSkeleton(file));
  },
};

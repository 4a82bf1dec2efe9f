/** The bundled samples (public/samples/index.json, written by scripts/make-samples.mjs). */
import { useEffect, useState } from 'react';

export interface SampleEntry {
  /** the file that names the tab */
  file: string;
  /** every file opened together (a model and its .part); defaults to [file] */
  files?: string[];
  title: string;
  group?: string;
  operators?: number;
  /** for a .part sample: the model it partitions */
  model?: string;
}

/** The Samples menu's sections, in order (scripts/make-samples.mjs writes the groups). */
export const SAMPLE_GROUPS: { id: string; label: string }[] = [
  { id: 'models', label: 'Models' },
  { id: 'partition', label: 'Partition: model + .part' },
  { id: 'origins', label: 'Origins: model with ONE origin tables' },
  { id: 'profiles', label: 'Profiles: NNAPI systrace' },
  { id: 'caffe', label: 'Caffe: nets, weights and a digit to run' },
  { id: 'loadables', label: 'NVDLA loadables' },
];

let index: Promise<SampleEntry[]> | null = null;

/** The samples index, fetched once for the page (the top bar and the command palette share it). */
function sampleIndex(): Promise<SampleEntry[]> {
  index ??= fetch('samples/index.json')
    .then((r) => (r.ok ? r.json() : []))
    .then((j: unknown) => (Array.isArray(j) ? (j as SampleEntry[]) : []))
    .catch(() => []);
  return index;
}

export function useSamples(): SampleEntry[] {
  const [samples, setSamples] = useState<SampleEntry[]>([]);
  useEffect(() => {
    let live = true;
    void sampleIndex().then((list) => live && setSamples(list));
    return () => {
      live = false;
    };
  }, []);
  return samples;
}

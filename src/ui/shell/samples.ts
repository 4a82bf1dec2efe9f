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

/** What the studio opens, each with the sample group that shows it (the start page offers one of each). */
export const OPENS: { group: string; what: string; files: string }[] = [
  { group: 'models', what: 'Circle models', files: '.circle (ONE / TensorFlow Lite schema)' },
  { group: 'partition', what: 'Partitions', files: '.part with its .circle (circle-partitioner)' },
  { group: 'profiles', what: 'NNAPI profiles', files: 'systrace captures (.html, .trace.txt)' },
  { group: 'caffe', what: 'Caffe nets', files: '.prototxt with its .caffemodel' },
  { group: 'loadables', what: 'NVDLA loadables', files: '.nvdla (nvdla_compiler output)' },
];

/** The first (smallest listed) sample of each kind the studio opens, in `OPENS` order; kinds without a bundled sample are left out. */
export function starterSamples(samples: readonly SampleEntry[]): { kind: (typeof OPENS)[number]; sample: SampleEntry | null }[] {
  return OPENS.map((kind) => {
    const group = samples.filter((s) => (s.group ?? 'models') === kind.group);
    // a real model before a synthetic one, and the smallest of those
    const real = group.filter((s) => !/synthetic/i.test(s.title));
    const pool = real.length ? real : group;
    const sample = [...pool].sort((a, b) => (a.operators ?? 0) - (b.operators ?? 0))[0] ?? null;
    return { kind, sample: kind.group === 'caffe' ? (group.find((s) => (s.files?.length ?? 1) > 1) ?? sample) : sample };
  });
}

/**
 * Run panel state (zustand), per tab: the plan of the document's net, the input the user chose
 * (an image, a `.npy`, seeded random values) with scale and mean, the run in progress, its
 * outcome, and the blob plane on screen. The values stay in the model worker: the panel asks for
 * one plane at a time (`blobSlice`).
 */
import * as Comlink from 'comlink';
import { create } from 'zustand';
import type { BlobSlice, InputFile, RunInputFile, RunOutcome, RunPlan } from '../../worker/api';
import { registerRunInputs, registerWorkerDocOwner, workers } from '../actions';
import { errorText, StudioError } from '../errors';
import { pushAlert, useStudio } from '../store';

export type InputSource = 'image' | 'array' | 'random';

export interface RunProgressState {
  done: number;
  total: number;
  layer: string;
  startedAt: number;
}

export interface BlobView {
  key: string;
  item: number;
  channel: number;
}

export interface RunTab {
  /** the worker document the plan and the outcome belong to */
  workerDocId: string;
  plan: RunPlan | null;
  planError: string | null;
  source: InputSource;
  file: InputFile | null;
  /** as typed in the fields (checked when a run starts) */
  scale: string;
  mean: string;
  seed: string;
  running: RunProgressState | null;
  outcome: RunOutcome | null;
  /** the last run's failure (a cancel included) */
  error: string | null;
  view: BlobView | null;
  slice: BlobSlice | null;
  sliceError: string | null;
}

export interface RunState {
  tabs: Record<string, RunTab>;
}

export const useRuns = create<RunState>(() => ({ tabs: {} }));

function emptyTab(workerDocId: string): RunTab {
  return { workerDocId, plan: null, planError: null, source: 'random', file: null, scale: '1', mean: '0', seed: '1', running: null, outcome: null, error: null, view: null, slice: null, sliceError: null };
}

export function updateRun(tabId: string, patch: Partial<RunTab> | ((t: RunTab) => Partial<RunTab>)) {
  useRuns.setState((s) => {
    const t = s.tabs[tabId];
    if (!t) return s;
    return { tabs: { ...s.tabs, [tabId]: { ...t, ...(typeof patch === 'function' ? patch(t) : patch) } } };
  });
}

function docOf(tabId: string) {
  return useStudio.getState().docs.find((d) => d.id === tabId) ?? null;
}

/** Scale and mean fields from the plan's defaults (a train_test net's transform_param), else 1 and 0. */
function defaultsFrom(plan: RunPlan): Pick<RunTab, 'scale' | 'mean'> {
  return { scale: String(plan.transform?.scale ?? 1), mean: (plan.transform?.mean ?? [0]).join(', ') };
}

/**
 * The tab's run state for its current worker document, fetching the plan when the document is
 * new (first use, or re-opened with other options: the input the user chose is kept).
 */
export async function ensurePlan(tabId: string): Promise<RunTab | null> {
  const doc = docOf(tabId);
  if (!doc) return null;
  const existing = useRuns.getState().tabs[tabId];
  if (existing && existing.workerDocId === doc.workerDocId && (existing.plan || existing.planError)) return existing;
  const keep = existing ? { source: existing.source, file: existing.file, seed: existing.seed } : {};
  useRuns.setState((s) => ({ tabs: { ...s.tabs, [tabId]: { ...emptyTab(doc.workerDocId), ...keep } } }));
  try {
    const plan = await workers().model.api.runPlan(doc.workerDocId);
    const fieldsTouched = existing && existing.workerDocId !== doc.workerDocId ? { scale: existing.scale, mean: existing.mean } : defaultsFrom(plan);
    updateRun(tabId, (t) => (t.workerDocId === doc.workerDocId ? { plan, ...fieldsTouched } : {}));
  } catch (e) {
    updateRun(tabId, (t) => (t.workerDocId === doc.workerDocId ? { planError: errorText(e, doc.title) } : {}));
  }
  return useRuns.getState().tabs[tabId] ?? null;
}

export function forgetRun(tabId: string) {
  useRuns.setState((s) => {
    const tabs = { ...s.tabs };
    delete tabs[tabId];
    return { tabs };
  });
}

/** An image or `.npy` the user gave (picker or drop): it becomes the input. */
export function setRunInputFile(tabId: string, file: InputFile) {
  updateRun(tabId, { file, source: /\.npy$/i.test(file.name) ? 'array' : 'image' });
}

function parseNumbers(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const values = parts.map(Number);
  return parts.length && values.every((v) => Number.isFinite(v)) ? values : null;
}

/** The request the fields describe, or a sentence saying which field is wrong. */
export function requestOf(t: RunTab): { ok: true; inputs: Record<string, RunInputFile>; seed: number } | { ok: false; message: string } {
  const plan = t.plan;
  if (!plan) return { ok: false, message: 'the net is still being read' };
  const seed = Number(t.seed);
  if (!Number.isInteger(seed)) return { ok: false, message: `the seed is a whole number, not '${t.seed}'` };
  const first = plan.inputs[0];
  const inputs: Record<string, RunInputFile> = {};
  if (first && t.source !== 'random') {
    if (!t.file) return { ok: false, message: `choose ${t.source === 'image' ? 'an image' : 'a .npy file'} for input '${first.name}' (or drop one on the page)` };
    if (t.source === 'array') inputs[first.name] = { kind: 'array', file: t.file };
    else {
      if (!first.image) return { ok: false, message: `an image cannot feed input '${first.name}' [${first.shape.join(',')}]: it needs 4 dimensions with 1 or 3 channels` };
      const scale = parseNumbers(t.scale);
      if (!scale || scale.length !== 1) return { ok: false, message: `the scale is one number, not '${t.scale}'` };
      const mean = parseNumbers(t.mean);
      const channels = first.shape[1] ?? 1;
      if (!mean || (mean.length !== 1 && mean.length !== channels)) return { ok: false, message: `the mean is one number or ${channels} (one per channel), not '${t.mean}'` };
      inputs[first.name] = { kind: 'image', file: t.file, scale: scale[0]!, mean };
    }
  }
  return { ok: true, inputs, seed };
}

export async function startRun(tabId: string) {
  const t = await ensurePlan(tabId);
  const doc = docOf(tabId);
  if (!t || !doc) return;
  if (t.running) return;
  const req = requestOf(t);
  if (!req.ok) {
    updateRun(tabId, { error: req.message });
    return;
  }
  if (t.plan && t.plan.problems.length) {
    updateRun(tabId, { error: `the net cannot run: ${t.plan.problems[0]}${t.plan.problems.length > 1 ? ` (and ${t.plan.problems.length - 1} more)` : ''}` });
    return;
  }
  const workerDocId = doc.workerDocId;
  updateRun(tabId, { running: { done: 0, total: 0, layer: '', startedAt: performance.now() }, error: null });
  const { model } = workers();
  try {
    const outcome = await model.api.run(
      workerDocId,
      { inputs: req.inputs, seed: req.seed },
      Comlink.proxy((p: { done: number; total: number; layer: string }) => updateRun(tabId, (x) => (x.running ? { running: { ...x.running, done: p.done, total: p.total, layer: p.layer } } : {}))),
    );
    // performance marks for the benches (the run as the user waits for it)
    performance.measure(`npu:run ${doc.title}`, { start: useRuns.getState().tabs[tabId]?.running?.startedAt ?? 0, end: performance.now() });
    const first = outcome.top[0]?.output ?? outcome.outputs[0]?.key ?? outcome.keys[0] ?? null;
    const keep = useRuns.getState().tabs[tabId]?.view;
    const view = keep && outcome.keys.includes(keep.key) ? keep : first ? { key: first, item: 0, channel: 0 } : null;
    updateRun(tabId, { running: null, outcome, view, slice: null });
    if (view) await showBlob(tabId, view);
  } catch (e) {
    const cancelled = e instanceof StudioError && e.info.kind === 'cancelled';
    updateRun(tabId, { running: null, error: errorText(e, doc.title) });
    if (!cancelled) pushAlert({ severity: 'error', message: errorText(e, doc.title), ...(e instanceof StudioError ? { error: e.info } : {}) });
  }
}

export function cancelRun(tabId: string) {
  const doc = docOf(tabId);
  if (doc) void workers().model.api.cancelRun(doc.workerDocId);
}

let sliceSeq = 0;

/** Fetches a plane of a blob of the last run for the heatmap. */
export async function showBlob(tabId: string, view: BlobView) {
  const doc = docOf(tabId);
  const t = useRuns.getState().tabs[tabId];
  if (!doc || !t?.outcome) return;
  const seq = ++sliceSeq;
  updateRun(tabId, { view, sliceError: null });
  try {
    const slice = await workers().model.api.blobSlice(doc.workerDocId, view.key, view.item, view.channel);
    if (seq === sliceSeq) updateRun(tabId, { slice });
  } catch (e) {
    if (seq === sliceSeq) updateRun(tabId, { slice: null, sliceError: errorText(e, doc.title) });
  }
}

// a closed tab's run state goes with it (the worker forgets the document's values on close)
registerWorkerDocOwner({ reopen: async () => {}, tabClosed: forgetRun });

// images and .npy files dropped or picked become the input of a tab that can run, and run
registerRunInputs(async (tabId, files) => {
  const file = files[0]!;
  await ensurePlan(tabId);
  setRunInputFile(tabId, file);
  useStudio.setState({ side: 'run' });
  if (files.length > 1) pushAlert({ severity: 'info', message: `${files.length} run inputs were given; ${file.name} is used (a run takes one image or array)` });
  await startRun(tabId);
});

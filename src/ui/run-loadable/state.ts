/**
 * State of a loadable tab's Run and Calibrate views (zustand), per tab: the run plan, the input
 * the user chose, the calibration table for int8 runs, the run in progress and its outcome, the
 * comparison with a Caffe tab (rows, the layer picked, its planes), and the calibration made from
 * that Caffe tab. Runs, comparisons and calibrations happen in the model worker; the surfaces stay
 * there and come one plane at a time.
 */
import * as Comlink from 'comlink';
import { create } from 'zustand';
import type { CalibrationScales, CalibrationView, InputFile, LoadableComparison, LoadableRunInputFile, LoadableRunOutcome, LoadableRunPlan, PlaneSlice, RunPlan } from '../../worker/api';
import { registerWorkerDocOwner, workers } from '../actions';
import { can } from '../capabilities';
import { errorText, StudioError } from '../errors';
import { pushAlert, useStudio, type Doc } from '../store';
import { inputChannels, parseCalibrationScales, type MetricName } from './model';

export type LoadableInputSource = 'image' | 'array' | 'random';

export interface Progress {
  done: number;
  total: number;
  what: string;
}

export interface RunLoadableTab {
  workerDocId: string;
  plan: LoadableRunPlan | null;
  planError: string | null;
  source: LoadableInputSource;
  file: InputFile | null;
  scale: string;
  mean: string;
  color: 'gray' | 'bgr' | 'rgb';
  seed: string;
  /** the calibration table for int8 runs, and where it came from */
  calibration: { scales: CalibrationScales; source: string } | null;
  running: Progress | null;
  outcome: LoadableRunOutcome | null;
  error: string | null;
  /** the Caffe tab to compare with (a document with `run`) */
  caffeTab: string | null;
  caffePlan: RunPlan | null;
  comparing: boolean;
  comparison: LoadableComparison | null;
  compareError: string | null;
  metric: MetricName;
  /** the op (run order) whose tensors are on screen, and the channel */
  picked: number | null;
  channel: number;
  planes: { loadable: PlaneSlice; caffe: PlaneSlice; difference: PlaneSlice } | null;
  planesError: string | null;
  /** colour the graphs by error */
  colourByError: boolean;
  // calibration
  calibInputs: InputFile[];
  method: string;
  calibrating: Progress | null;
  calibrationResult: CalibrationView | null;
  calibError: string | null;
  calibPicked: string | null;
}

export const useRunLoadable = create<{ tabs: Record<string, RunLoadableTab> }>(() => ({ tabs: {} }));

function emptyTab(workerDocId: string): RunLoadableTab {
  return {
    workerDocId,
    plan: null,
    planError: null,
    source: 'random',
    file: null,
    scale: '1',
    mean: '0',
    color: 'gray',
    seed: '1',
    calibration: null,
    running: null,
    outcome: null,
    error: null,
    caffeTab: null,
    caffePlan: null,
    comparing: false,
    comparison: null,
    compareError: null,
    metric: 'snrDb',
    picked: null,
    channel: 0,
    planes: null,
    planesError: null,
    colourByError: true,
    calibInputs: [],
    method: 'max',
    calibrating: null,
    calibrationResult: null,
    calibError: null,
    calibPicked: null,
  };
}

export function updateRunLoadable(tabId: string, patch: Partial<RunLoadableTab> | ((t: RunLoadableTab) => Partial<RunLoadableTab>)) {
  useRunLoadable.setState((s) => {
    const t = s.tabs[tabId];
    if (!t) return s;
    return { tabs: { ...s.tabs, [tabId]: { ...t, ...(typeof patch === 'function' ? patch(t) : patch) } } };
  });
}

const docOf = (tabId: string | null): Doc | null => (tabId ? (useStudio.getState().docs.find((d) => d.id === tabId) ?? null) : null);

/** The open tabs a loadable can be compared with and calibrated from: documents with a float forward pass. */
export function caffeTabs(docs: readonly Doc[]): Doc[] {
  return docs.filter((d) => can(d.summary, 'run'));
}

/** The tab's state for its current worker document, with the plan fetched (and a Caffe tab picked when one is open). */
export async function ensureRunLoadable(tabId: string): Promise<RunLoadableTab | null> {
  const doc = docOf(tabId);
  if (!doc) return null;
  const existing = useRunLoadable.getState().tabs[tabId];
  if (existing && existing.workerDocId === doc.workerDocId && (existing.plan || existing.planError)) {
    pickDefaultCaffe(tabId);
    return existing;
  }
  const keep = existing ? { source: existing.source, file: existing.file, seed: existing.seed, scale: existing.scale, mean: existing.mean, color: existing.color, calibration: existing.calibration, caffeTab: existing.caffeTab } : {};
  useRunLoadable.setState((s) => ({ tabs: { ...s.tabs, [tabId]: { ...emptyTab(doc.workerDocId), ...keep } } }));
  try {
    const plan = await workers().model.api.loadableRunPlan(doc.workerDocId);
    updateRunLoadable(tabId, (t) => (t.workerDocId === doc.workerDocId ? { plan, ...(existing ? {} : { color: plan.imageChannels === 1 ? 'gray' : 'bgr' }) } : {}));
  } catch (e) {
    updateRunLoadable(tabId, (t) => (t.workerDocId === doc.workerDocId ? { planError: errorText(e, doc.title) } : {}));
  }
  pickDefaultCaffe(tabId);
  return useRunLoadable.getState().tabs[tabId] ?? null;
}

/** With no Caffe tab chosen (or the chosen one closed), the first open one. */
function pickDefaultCaffe(tabId: string) {
  const t = useRunLoadable.getState().tabs[tabId];
  if (!t) return;
  const open = caffeTabs(useStudio.getState().docs);
  if (t.caffeTab && open.some((d) => d.id === t.caffeTab)) {
    if (!t.caffePlan) void setCaffeTab(tabId, t.caffeTab);
    return;
  }
  if (open[0]) void setCaffeTab(tabId, open[0].id);
  else if (t.caffeTab) updateRunLoadable(tabId, { caffeTab: null, caffePlan: null, comparison: null, planes: null });
}

/** Compare with (and calibrate from) this Caffe tab: its input shape and transform become the image defaults. */
export async function setCaffeTab(tabId: string, caffeTab: string | null) {
  const caffe = docOf(caffeTab);
  updateRunLoadable(tabId, { caffeTab, caffePlan: null, comparison: null, compareError: null, planes: null, picked: null });
  if (!caffe) return;
  try {
    const caffePlan = await workers().model.api.runPlan(caffe.workerDocId);
    updateRunLoadable(tabId, (t) => {
      if (t.caffeTab !== caffeTab || !t.plan) return t.caffeTab === caffeTab ? { caffePlan } : {};
      const ch = inputChannels(t.plan, caffePlan.inputs[0]?.shape ?? null);
      const tf = caffePlan.transform;
      return { caffePlan, color: ch === 1 ? 'gray' : t.color === 'gray' ? 'bgr' : t.color, ...(tf && t.scale === '1' && t.mean === '0' ? { scale: String(tf.scale), mean: tf.mean.join(', ') } : {}) };
    });
  } catch (e) {
    updateRunLoadable(tabId, (t) => (t.caffeTab === caffeTab ? { compareError: errorText(e, caffe.title) } : {}));
  }
}

export function setLoadableInputFile(tabId: string, file: InputFile) {
  updateRunLoadable(tabId, { file, source: /\.npy$/i.test(file.name) ? 'array' : 'image' });
}

/** A calibration table the user gave (a `.json` file) for int8 runs. */
export async function setCalibrationFile(tabId: string, file: InputFile) {
  try {
    const scales = parseCalibrationScales(await file.blob.text(), file.name);
    updateRunLoadable(tabId, { calibration: { scales, source: file.name }, error: null });
  } catch (e) {
    updateRunLoadable(tabId, { error: e instanceof Error ? e.message : String(e) });
  }
}

function parseNumbers(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const values = parts.map(Number);
  return parts.length && values.every((v) => Number.isFinite(v)) ? values : null;
}

/** The input the fields describe, or a sentence saying which field is wrong. */
export function inputOf(t: Pick<RunLoadableTab, 'source' | 'file' | 'scale' | 'mean' | 'color' | 'seed'>): { ok: true; input: LoadableRunInputFile } | { ok: false; message: string } {
  if (t.source === 'random') {
    const seed = Number(t.seed);
    if (!Number.isInteger(seed)) return { ok: false, message: `the seed is a whole number, not '${t.seed}'` };
    return { ok: true, input: { kind: 'random', seed } };
  }
  if (!t.file) return { ok: false, message: `choose ${t.source === 'image' ? 'an image' : 'a .npy file'} for the input` };
  if (t.source === 'array') return { ok: true, input: { kind: 'array', file: t.file } };
  const scale = parseNumbers(t.scale);
  if (!scale || scale.length !== 1) return { ok: false, message: `the scale is one number, not '${t.scale}'` };
  const mean = parseNumbers(t.mean);
  const channels = t.color === 'gray' ? 1 : 3;
  if (!mean || (mean.length !== 1 && mean.length !== channels)) return { ok: false, message: `the mean is one number or ${channels} (one per channel), not '${t.mean}'` };
  return { ok: true, input: { kind: 'image', file: t.file, scale: scale[0]!, mean, color: t.color } };
}

export async function startLoadableRun(tabId: string) {
  const t = await ensureRunLoadable(tabId);
  const doc = docOf(tabId);
  if (!t || !doc || t.running) return;
  const req = inputOf(t);
  if (!req.ok) return updateRunLoadable(tabId, { error: req.message });
  const workerDocId = doc.workerDocId;
  const channels = t.plan ? inputChannels(t.plan, t.caffePlan?.inputs[0]?.shape ?? null) : undefined;
  updateRunLoadable(tabId, { running: { done: 0, total: t.plan?.ops ?? 0, what: '' }, error: null, comparison: null, planes: null, compareError: null });
  const startedAt = performance.now();
  try {
    const outcome = await workers().model.api.runLoadable(
      workerDocId,
      { input: req.input, calibration: t.calibration?.scales ?? null, ...(channels ? { channels } : {}) },
      Comlink.proxy((p: { done: number; total: number; engine: string; task: number; slot: number }) =>
        updateRunLoadable(tabId, (x) => (x.running ? { running: { done: p.done, total: p.total, what: `task ${p.task} ${p.engine} slot ${p.slot}` } } : {})),
      ),
    );
    performance.measure(`npu:run-loadable ${doc.title}`, { start: startedAt, end: performance.now() });
    updateRunLoadable(tabId, { running: null, outcome });
    if (useRunLoadable.getState().tabs[tabId]?.caffeTab) await compareWithCaffe(tabId);
  } catch (e) {
    const cancelled = e instanceof StudioError && e.info.kind === 'cancelled';
    updateRunLoadable(tabId, { running: null, error: errorText(e, doc.title) });
    if (!cancelled) pushAlert({ severity: 'error', message: errorText(e, doc.title), ...(e instanceof StudioError ? { error: e.info } : {}) });
  }
}

export function cancelLoadableRun(tabId: string) {
  const doc = docOf(tabId);
  if (doc) void workers().model.api.cancelLoadableRun(doc.workerDocId);
}

/** The last run against the Caffe tab's float pass; the worst layer's tensors come on screen. */
export async function compareWithCaffe(tabId: string) {
  const t = useRunLoadable.getState().tabs[tabId];
  const doc = docOf(tabId);
  const caffe = docOf(t?.caffeTab ?? null);
  if (!t || !doc || !caffe || !t.outcome) return;
  updateRunLoadable(tabId, { comparing: true, compareError: null });
  try {
    const comparison = await workers().model.api.compareLoadable(doc.workerDocId, caffe.workerDocId, caffe.files);
    let worst = comparison.rows[0] ?? null;
    for (const r of comparison.rows) if (worst && r.metrics.snrDb < worst.metrics.snrDb) worst = r;
    updateRunLoadable(tabId, { comparing: false, comparison });
    if (worst) await pickLayer(tabId, worst.order, 0);
  } catch (e) {
    updateRunLoadable(tabId, { comparing: false, compareError: errorText(e, caffe.title) });
  }
}

let planeSeq = 0;

/** The tensors of op `order` (its output, the Caffe blob, their difference), channel `channel`. */
export async function pickLayer(tabId: string, order: number, channel: number) {
  const doc = docOf(tabId);
  if (!doc) return;
  const seq = ++planeSeq;
  updateRunLoadable(tabId, { picked: order, channel, planesError: null });
  try {
    const planes = await workers().model.api.comparePlanes(doc.workerDocId, order, channel);
    if (seq === planeSeq) updateRunLoadable(tabId, { planes });
  } catch (e) {
    if (seq === planeSeq) updateRunLoadable(tabId, { planes: null, planesError: errorText(e, doc.title) });
  }
}

/** Images and `.npy` batches to calibrate with (added to the list). */
export function addCalibrationInputs(tabId: string, files: InputFile[]) {
  updateRunLoadable(tabId, (t) => ({ calibInputs: [...t.calibInputs, ...files.filter((f) => !t.calibInputs.some((g) => g.name === f.name && g.blob.size === f.blob.size))] }));
}

export async function startCalibration(tabId: string) {
  const t = useRunLoadable.getState().tabs[tabId];
  const caffe = docOf(t?.caffeTab ?? null);
  if (!t || !caffe || t.calibrating) return;
  if (!t.calibInputs.length) return updateRunLoadable(tabId, { calibError: 'add images or .npy arrays to calibrate with' });
  const scale = parseNumbers(t.scale)?.[0] ?? 1;
  const mean = parseNumbers(t.mean) ?? [0];
  const first = t.caffePlan?.inputs[0];
  const color = first?.image === 'gray' ? 'gray' : first?.image === 'bgr' ? 'bgr' : t.color;
  const inputs: LoadableRunInputFile[] = t.calibInputs.map((file) => (/\.npy$/i.test(file.name) ? { kind: 'array', file } : { kind: 'image', file, scale, mean, color }));
  updateRunLoadable(tabId, { calibrating: { done: 0, total: inputs.length, what: '' }, calibError: null });
  try {
    const result = await workers().model.api.calibrate(
      caffe.workerDocId,
      caffe.files,
      inputs,
      t.method,
      Comlink.proxy((p: { done: number; total: number; input: string }) => updateRunLoadable(tabId, (x) => (x.calibrating ? { calibrating: { done: p.done, total: p.total, what: p.input } } : {}))),
    );
    updateRunLoadable(tabId, (x) => ({ calibrating: null, calibrationResult: result, calibPicked: x.calibPicked && result.rows.some((r) => r.name === x.calibPicked) ? x.calibPicked : (result.rows[1]?.name ?? result.rows[0]?.name ?? null) }));
  } catch (e) {
    updateRunLoadable(tabId, { calibrating: null, calibError: errorText(e, caffe.title) });
  }
}

export function cancelCalibration(tabId: string) {
  const caffe = docOf(useRunLoadable.getState().tabs[tabId]?.caffeTab ?? null);
  if (caffe) void workers().model.api.cancelCalibration(caffe.workerDocId);
}

/** Another method over the same histograms (no inputs run again). */
export async function setCalibrationMethod(tabId: string, method: string) {
  const t = useRunLoadable.getState().tabs[tabId];
  updateRunLoadable(tabId, { method });
  const caffe = docOf(t?.caffeTab ?? null);
  if (!t?.calibrationResult || !caffe) return;
  try {
    const result = await workers().model.api.recalibrate(caffe.workerDocId, method);
    updateRunLoadable(tabId, { calibrationResult: result, calibError: null });
  } catch (e) {
    updateRunLoadable(tabId, { calibError: errorText(e, caffe.title) });
  }
}

/** The calibration just made becomes the table of this tab's int8 runs. */
export function useCalibrationForRuns(tabId: string) {
  const t = useRunLoadable.getState().tabs[tabId];
  if (!t?.calibrationResult) return;
  const scales: CalibrationScales = {};
  for (const [k, v] of Object.entries(t.calibrationResult.table)) scales[k] = { scale: v.scale };
  updateRunLoadable(tabId, { calibration: { scales, source: `Calibrate (${t.calibrationResult.method}, ${t.calibrationResult.inputs} inputs)` } });
}

export function forgetRunLoadable(tabId: string) {
  useRunLoadable.setState((s) => {
    const tabs: Record<string, RunLoadableTab> = {};
    for (const [id, t] of Object.entries(s.tabs)) {
      if (id === tabId) continue;
      tabs[id] = t.caffeTab === tabId ? { ...t, caffeTab: null, caffePlan: null, comparison: null, planes: null, calibrationResult: null } : t;
    }
    return { tabs };
  });
}

registerWorkerDocOwner({ reopen: async () => {}, tabClosed: forgetRunLoadable });

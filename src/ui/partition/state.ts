/**
 * Partition editor state per tab (zustand) and what the user can do with it. The `.part` text
 * lives in the Monaco model (the editor chunk is lazy); this store mirrors it, saves it as a
 * draft, asks the worker to partition it 150 ms after the last keystroke, and keeps the last
 * good plan on screen while the text has errors.
 */
import { create } from 'zustand';
import type { PartDiagnostic, PartitionCheck, PartitionPlanView, PartitionVocabulary } from '../../worker/api';
import { useStudio, pushAlert, updateDoc, type Doc } from '../store';
import { registerPartFiles, workers } from '../actions';
import type { InputFile } from '../../worker/api';
import { flushDrafts, loadDraft, saveDraftSoon, type PartDraft } from './drafts';
import { applyEdit, NEW_PARTITION, type TextEdit } from './edits';
import { errorText } from '../errors';
import { partCount } from './plan';

export const DEBOUNCE_MS = 150;

export interface CheckState {
  running: boolean;
  result: (PartitionCheck & { ms: number }) | null;
  error: string | null;
  /** the text the check ran on (a later edit makes the result stale) */
  text: string;
}

export interface CursorKey {
  section: string;
  key: string;
}

export interface PartitionTab {
  /** the draft key: the model's content hash (`sha256:<hex>`) */
  model: string;
  /** what an offered draft would replace: the dropped `.part` or the new template */
  draftOver: 'file' | 'new';
  partName: string;
  text: string;
  diagnostics: PartDiagnostic[];
  /** the last good partition */
  plan: PartitionPlanView | null;
  /** per source operator: the line of the latest partitioned text that decides its backend (0: none) */
  operatorLines: Int32Array | null;
  /** the text on screen has errors; `plan` comes from an earlier text */
  stale: boolean;
  /** a partition run is due or running */
  pending: boolean;
  error: string | null;
  ms: number;
  selectedPart: number | null;
  cursorKey: CursorKey | null;
  check: CheckState | null;
  downloading: boolean;
  /** a saved draft that differs from the `.part` that was dropped with the model */
  draft: PartDraft | null;
  /** how often a result was applied (tests and benches wait on it) */
  updates: number;
}

interface PartitionStore {
  tabs: Record<string, PartitionTab>;
  vocab: Record<string, PartitionVocabulary>;
}

export const usePartition = create<PartitionStore>(() => ({
  tabs: {},
  vocab: {},
}));

function patchTab(tabId: string, patch: Partial<PartitionTab> | ((t: PartitionTab) => Partial<PartitionTab>)) {
  usePartition.setState((s) => {
    const t = s.tabs[tabId];
    if (!t) return s;
    return { tabs: { ...s.tabs, [tabId]: { ...t, ...(typeof patch === 'function' ? patch(t) : patch) } } };
  });
}

function docOf(tabId: string): Doc | undefined {
  return useStudio.getState().docs.find((d) => d.id === tabId);
}

// ------------------------------------------------------------------ editor bridge

export interface EditorBridge {
  /** applies an edit as a user edit (undo works) */
  edit(e: TextEdit): void;
  reveal(line: number): void;
  focus(): void;
}
const bridges = new Map<string, EditorBridge>();
export function registerEditor(tabId: string, bridge: EditorBridge | null) {
  if (bridge) bridges.set(tabId, bridge);
  else bridges.delete(tabId);
}

// ------------------------------------------------------------------ stats for tests and benches

export interface PartitionStats {
  updates: number;
  /** performance.now() when the last partition request left (after the debounce) */
  requestAt: number;
  /** performance.now() when its result reached the store */
  appliedAt: number;
  workerMs: number;
  parts: number;
  stale: boolean;
}
declare global {
  interface Window {
    __npuPartition?: PartitionStats;
  }
}

// ------------------------------------------------------------------ opening

function sidecarPart(doc: Doc) {
  return doc.files.slice(1).find((f) => /\.part$/i.test(f.name)) ?? null;
}

function defaultPartName(model: string) {
  const dot = model.lastIndexOf('.');
  return `${dot > 0 ? model.slice(0, dot) : model}.part`;
}

const opening = new Set<string>();

/** The key of a tab's partition draft: its model's content hash (asked of the worker once), kept on the tab. */
async function draftKey(doc: Doc): Promise<string> {
  if (doc.contentHash) return doc.contentHash;
  const hash = `sha256:${await workers().model.api.contentHash(doc.files[0]!)}`;
  updateDoc(doc.id, { contentHash: hash });
  return hash;
}

/**
 * Opens the partition editor of a tab: the `.part` dropped with the model, else the saved draft
 * for this model file, else a new partition.
 */
export async function openPartition(tabId: string, fresh = false, given?: { name: string; text: string }) {
  const doc = docOf(tabId);
  if (!doc || opening.has(tabId)) return;
  if (usePartition.getState().tabs[tabId]) return;
  opening.add(tabId);
  try {
    const sidecar = given ? { name: given.name, blob: new Blob([given.text]) } : fresh ? null : sidecarPart(doc);
    const key = await draftKey(doc);
    const draft = await loadDraft(key);
    let text = NEW_PARTITION;
    let partName = defaultPartName(doc.title);
    if (sidecar) {
      text = await sidecar.blob.text();
      partName = sidecar.name;
    }
    // a saved draft is offered, never put in silently: over the dropped file or the new template
    const otherDraft: PartDraft | null = draft && draft.text !== text ? draft : null;
    const tab: PartitionTab = {
      model: key, draftOver: sidecar ? 'file' : 'new', partName, text, diagnostics: [], plan: null, operatorLines: null, stale: false, pending: true, error: null, ms: 0,
      selectedPart: null, cursorKey: null, check: null, downloading: false, draft: otherDraft, updates: 0,
    };
    usePartition.setState((s) => ({ tabs: { ...s.tabs, [tabId]: tab } }));
    if (!otherDraft) saveDraftSoon({ model: key, modelName: doc.title, partName, text, savedAt: Date.now() });
    void loadVocabulary(doc.workerDocId);
    await run(tabId);
  } catch (e) {
    pushAlert({ severity: 'error', message: errorText(e, `${doc.title}: partition`), docId: tabId });
  } finally {
    opening.delete(tabId);
  }
}

/**
 * A `.part` dropped alone onto an open model: its text goes into the tab's editor (an edit, so
 * undo brings the old text back), or opens the editor with it.
 */
export async function applyPartFile(tabId: string, file: InputFile) {
  const text = await file.blob.text();
  const t = usePartition.getState().tabs[tabId];
  if (!t) {
    await openPartition(tabId, false, { name: file.name, text });
    return;
  }
  patchTab(tabId, { partName: file.name });
  newText(tabId, text);
  pushAlert({ severity: 'info', docId: tabId, message: `${file.name} is now the partition of ${docOf(tabId)?.title ?? 'this model'} (Ctrl+Z in the editor brings back the previous text).` });
}
registerPartFiles(applyPartFile);

/** A new partition from the template (replacing the editor text; undo brings the old text back). */
export function newPartition(tabId: string) {
  const t = usePartition.getState().tabs[tabId];
  if (!t) return void openPartition(tabId, true);
  const bridge = bridges.get(tabId);
  const lines = t.text.split(/\r\n|\r|\n/);
  const edit: TextEdit = { line: 1, column: 1, endLine: lines.length, endColumn: (lines[lines.length - 1]?.length ?? 0) + 1, text: NEW_PARTITION };
  if (bridge) bridge.edit(edit);
  else textChanged(tabId, NEW_PARTITION);
}

export function closePartition(tabId: string) {
  void flushDrafts();
  registerEditor(tabId, null);
  usePartition.setState((s) => {
    const tabs = { ...s.tabs };
    delete tabs[tabId];
    return { tabs };
  });
}

export function restoreDraft(tabId: string) {
  const t = usePartition.getState().tabs[tabId];
  if (!t?.draft) return;
  const draft = t.draft;
  patchTab(tabId, { draft: null });
  newText(tabId, draft.text);
}

export function dismissDraft(tabId: string) {
  patchTab(tabId, { draft: null });
}

function newText(tabId: string, text: string) {
  const t = usePartition.getState().tabs[tabId];
  if (!t) return;
  const bridge = bridges.get(tabId);
  const lines = t.text.split(/\r\n|\r|\n/);
  const edit: TextEdit = { line: 1, column: 1, endLine: lines.length, endColumn: (lines[lines.length - 1]?.length ?? 0) + 1, text };
  if (bridge) bridge.edit(edit);
  else textChanged(tabId, text);
}

async function loadVocabulary(workerDocId: string) {
  if (usePartition.getState().vocab[workerDocId]) return;
  try {
    const v = await workers().model.api.partitionVocabulary(workerDocId);
    usePartition.setState((s) => ({ vocab: { ...s.vocab, [workerDocId]: v } }));
  } catch {
    /* without it the assign bar has no opcode row and the cursor key no highlight */
  }
}

// ------------------------------------------------------------------ editing and partitioning

const timers = new Map<string, ReturnType<typeof setTimeout>>();
const seqs = new Map<string, number>();

/** The editor's text changed: save the draft now-ish, partition after the debounce. */
export function textChanged(tabId: string, text: string) {
  const t = usePartition.getState().tabs[tabId];
  if (!t || t.text === text) return;
  patchTab(tabId, { text, pending: true });
  saveDraftSoon({ model: t.model, modelName: docOf(tabId)?.title ?? '', partName: t.partName, text, savedAt: Date.now() });
  const old = timers.get(tabId);
  if (old) clearTimeout(old);
  timers.set(tabId, setTimeout(() => {
    timers.delete(tabId);
    void run(tabId);
  }, DEBOUNCE_MS));
}

/** Partitions the tab's current text in the worker and shows the result. */
export async function run(tabId: string) {
  const doc = docOf(tabId);
  const t = usePartition.getState().tabs[tabId];
  if (!doc || !t) return;
  const seq = (seqs.get(tabId) ?? 0) + 1;
  seqs.set(tabId, seq);
  const text = t.text;
  const requestAt = performance.now();
  try {
    const r = await workers().model.api.partitionText(doc.workerDocId, text);
    if (seqs.get(tabId) !== seq) return;
    patchTab(tabId, (cur) => ({
      diagnostics: r.diagnostics,
      plan: r.plan ?? cur.plan,
      operatorLines: r.operatorLines,
      stale: !r.plan,
      pending: timers.has(tabId),
      error: null,
      ms: r.ms,
      selectedPart: r.plan && cur.selectedPart !== null && cur.selectedPart >= partCount(r.plan) ? null : cur.selectedPart,
      updates: cur.updates + 1,
    }));
    const now = usePartition.getState().tabs[tabId];
    window.__npuPartition = {
      updates: (window.__npuPartition?.updates ?? 0) + 1,
      requestAt,
      appliedAt: performance.now(),
      workerMs: r.ms,
      parts: now?.plan ? partCount(now.plan) : 0,
      stale: now?.stale ?? false,
    };
  } catch (e) {
    if (seqs.get(tabId) !== seq) return;
    patchTab(tabId, { pending: false, error: errorText(e, 'partition') });
  }
}

/**
 * Writes `[OPNAME] name=backend` (escaped) or `[OPCODE] OP=backend` through the editor. The worker
 * computes the edit from the text; when the text changed meanwhile (a keystroke during the round
 * trip), it is asked again for the new text, so an edit never lands at stale positions.
 */
export async function assign(tabId: string, section: 'OPNAME' | 'OPCODE' | 'partition', key: string, value: string) {
  const doc = docOf(tabId);
  if (!doc) return;
  let edit: TextEdit | null = null;
  let t: PartitionTab | undefined;
  for (let attempt = 0; ; attempt++) {
    t = usePartition.getState().tabs[tabId];
    if (!t) return;
    const text = t.text;
    try {
      edit = await workers().model.api.partitionAssignEdit(doc.workerDocId, text, section, key, value);
    } catch (e) {
      pushAlert({ severity: 'error', message: errorText(e, `${doc.title}: assign`), docId: tabId });
      return;
    }
    t = usePartition.getState().tabs[tabId];
    if (!t) return;
    if (t.text === text) break;
    if (attempt === 2) return; // the text keeps changing under us: the user is typing, leave it alone
  }
  if (!edit) return;
  const bridge = bridges.get(tabId);
  if (bridge) {
    bridge.edit(edit);
    // the edited line: the last line of the inserted text, or the replaced value's line
    const line = edit.line + (edit.text.split(/\r\n|\r|\n/).length - 1) - (edit.text.endsWith('\n') ? 1 : 0);
    bridge.reveal(line);
  } else textChanged(tabId, applyEdit(t.text, edit));
}

export function selectPart(tabId: string, index: number | null) {
  patchTab(tabId, (t) => ({ selectedPart: t.selectedPart === index ? null : index }));
}

export function setCursorKey(tabId: string, key: CursorKey | null) {
  const cur = usePartition.getState().tabs[tabId]?.cursorKey ?? null;
  if (cur === key || (cur && key && cur.section === key.section && cur.key === key.key)) return;
  patchTab(tabId, { cursorKey: key });
}

// ------------------------------------------------------------------ outputs

function saveBlob(bytes: Uint8Array, name: string, type: string) {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function zipName(model: string) {
  const dot = model.lastIndexOf('.');
  return `${dot > 0 ? model.slice(0, dot) : model}.parts.zip`;
}

export async function downloadParts(tabId: string) {
  const doc = docOf(tabId);
  const t = usePartition.getState().tabs[tabId];
  if (!doc || !t || t.stale) return;
  patchTab(tabId, { downloading: true });
  try {
    const r = await workers().model.api.partitionFiles(doc.workerDocId, t.text, t.partName);
    saveBlob(r.zip, zipName(doc.title), 'application/zip');
    const parts = r.files.filter((f) => f.name.endsWith('.circle')).length;
    pushAlert({ docId: tabId, severity: 'info', message: `${zipName(doc.title)}: ${parts} part${parts === 1 ? '' : 's'}, ${r.files.slice(parts).map((f) => f.name).join(', ')}` });
  } catch (e) {
    pushAlert({ severity: 'error', message: errorText(e, `${doc.title}: download parts`), docId: tabId });
  } finally {
    patchTab(tabId, { downloading: false });
  }
}

export async function checkParts(tabId: string) {
  const doc = docOf(tabId);
  const t = usePartition.getState().tabs[tabId];
  if (!doc || !t || t.stale) return;
  const text = t.text;
  patchTab(tabId, { check: { running: true, result: null, error: null, text } });
  try {
    const result = await workers().model.api.checkPartition(doc.workerDocId, text);
    patchTab(tabId, { check: { running: false, result, error: null, text } });
  } catch (e) {
    patchTab(tabId, { check: { running: false, result: null, error: errorText(e, 'check'), text } });
  }
}

export { NEW_PARTITION };

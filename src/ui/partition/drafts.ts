/**
 * `.part` drafts in IndexedDB, one per model content (the SHA-256 of its bytes, so a renamed
 * file keeps its draft and two different files of one name do not share one): every edit is saved (debounced, and
 * flushed when the page is hidden), so a reload or a worker restart loses nothing typed.
 * Falls back to memory when IndexedDB is unavailable (private windows in some browsers).
 */
export interface PartDraft {
  /** the key: `sha256:<hex>` of the model file's bytes */
  model: string;
  /** the model's file name when the draft was saved (shown to the user) */
  modelName?: string;
  /** `.part` file name */
  partName: string;
  text: string;
  savedAt: number;
}

const DB = 'npu-studio';
const STORE = 'part-drafts';
const memory = new Map<string, PartDraft>();
let dbPromise: Promise<IDBDatabase | null> | null = null;

function db(): Promise<IDBDatabase | null> {
  if (!dbPromise) {
    dbPromise = new Promise((resolve) => {
      try {
        const req = indexedDB.open(DB, 1);
        req.onupgradeneeded = () => {
          if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: 'model' });
        };
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => resolve(null);
        req.onblocked = () => resolve(null);
      } catch {
        resolve(null);
      }
    });
  }
  return dbPromise;
}

export async function loadDraft(model: string): Promise<PartDraft | null> {
  const d = await db();
  if (!d) return memory.get(model) ?? null;
  return await new Promise((resolve) => {
    try {
      const req = d.transaction(STORE, 'readonly').objectStore(STORE).get(model);
      req.onsuccess = () => resolve((req.result as PartDraft | undefined) ?? memory.get(model) ?? null);
      req.onerror = () => resolve(memory.get(model) ?? null);
    } catch {
      resolve(memory.get(model) ?? null);
    }
  });
}

export async function saveDraft(draft: PartDraft): Promise<void> {
  memory.set(draft.model, draft);
  const d = await db();
  if (!d) return;
  await new Promise<void>((resolve) => {
    try {
      const tx = d.transaction(STORE, 'readwrite');
      tx.objectStore(STORE).put(draft);
      tx.oncomplete = () => resolve();
      tx.onerror = () => resolve();
      tx.onabort = () => resolve();
    } catch {
      resolve();
    }
  });
}

const pending = new Map<string, { draft: PartDraft; timer: ReturnType<typeof setTimeout> }>();

/** Saves after `delay` ms of quiet; `flushDrafts` writes everything pending at once. */
export function saveDraftSoon(draft: PartDraft, delay = 250) {
  memory.set(draft.model, draft);
  const p = pending.get(draft.model);
  if (p) clearTimeout(p.timer);
  const timer = setTimeout(() => {
    pending.delete(draft.model);
    void saveDraft(draft);
  }, delay);
  pending.set(draft.model, { draft, timer });
}

export function flushDrafts(): Promise<void[]> {
  const all = [...pending.values()];
  pending.clear();
  return Promise.all(all.map((p) => (clearTimeout(p.timer), saveDraft(p.draft))));
}

if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => void flushDrafts());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void flushDrafts();
  });
}

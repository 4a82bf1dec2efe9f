/**
 * What was open, kept for the next load: every tab's files (the Blobs the user gave, stored as
 * they are in IndexedDB) and its document options, in tab order, up to `SESSION_LIMIT_BYTES`.
 * A reload reopens them (App, before any default sample); the status bar shows how much is kept
 * and forgets it on request. Nothing leaves the browser.
 */
import { create } from 'zustand';
import type { InputFile, OpenOptions } from '../../worker/api';

export interface KeptTab {
  order: number;
  files: InputFile[];
  options?: OpenOptions;
}

export interface SessionState {
  /** bytes kept for the next load */
  bytes: number;
  /** tabs kept */
  tabs: number;
  /** tabs left out because they would pass the limit */
  skipped: number;
}

/** files kept for a reload, at most (bigger sessions keep the first tabs that fit) */
export const SESSION_LIMIT_BYTES = 256 * 1024 * 1024;

export const useSession = create<SessionState>(() => ({ bytes: 0, tabs: 0, skipped: 0 }));

const DB = 'npu-studio-session';
const STORE = 'tabs';
let dbPromise: Promise<IDBDatabase | null> | null = null;

function db(): Promise<IDBDatabase | null> {
  dbPromise ??= new Promise((resolve) => {
    try {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: 'order' });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
      req.onblocked = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return dbPromise;
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => resolve();
    tx.onabort = () => resolve();
  });
}

/** Which tabs fit in the limit, in order (a tab is kept whole or not at all). */
export function tabsWithin<T extends { files: { blob: { size: number } }[] }>(tabs: readonly T[], limit = SESSION_LIMIT_BYTES): { kept: T[]; bytes: number; skipped: number } {
  const kept: T[] = [];
  let bytes = 0;
  for (const t of tabs) {
    const size = t.files.reduce((a, f) => a + f.blob.size, 0);
    if (bytes + size > limit) continue;
    kept.push(t);
    bytes += size;
  }
  return { kept, bytes, skipped: tabs.length - kept.length };
}

let writing: Promise<void> = Promise.resolve();

/** Replaces what is kept with these tabs (called when tabs open or close). */
export function keepSession(tabs: readonly { files: InputFile[]; options?: OpenOptions }[]): Promise<void> {
  const { kept, bytes, skipped } = tabsWithin(tabs);
  useSession.setState({ bytes, tabs: kept.length, skipped });
  writing = writing.then(async () => {
    const d = await db();
    if (!d) return;
    try {
      const tx = d.transaction(STORE, 'readwrite');
      const store = tx.objectStore(STORE);
      store.clear();
      kept.forEach((t, order) => store.put({ order, files: t.files.map((f) => ({ name: f.name, blob: f.blob })), ...(t.options ? { options: t.options } : {}) }));
      await done(tx);
    } catch {
      /* a full or unavailable store: the next load opens nothing, which is what it did before */
    }
  });
  return writing;
}

/** The tabs kept by the last page, in order. */
export async function keptTabs(): Promise<KeptTab[]> {
  const d = await db();
  if (!d) return [];
  return await new Promise((resolve) => {
    try {
      const req = d.transaction(STORE, 'readonly').objectStore(STORE).getAll();
      req.onsuccess = () => {
        const tabs = (req.result as KeptTab[]).filter((t) => Array.isArray(t.files) && t.files.length > 0).sort((a, b) => a.order - b.order);
        const { bytes, skipped } = tabsWithin(tabs);
        useSession.setState({ bytes, tabs: tabs.length, skipped });
        resolve(tabs);
      };
      req.onerror = () => resolve([]);
    } catch {
      resolve([]);
    }
  });
}

/** Forgets the kept files (the open tabs stay open; they are kept again when a tab opens or closes). */
export async function forgetSession(): Promise<void> {
  useSession.setState({ bytes: 0, tabs: 0, skipped: 0 });
  await writing;
  const d = await db();
  if (!d) return;
  const tx = d.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).clear();
  await done(tx);
}

/**
 * Worker clients for the UI thread. The model worker holds parsed models; the layout worker is
 * stateless, so cancelling a layout terminates it and starts a fresh one (effective at once).
 * A model worker that dies is restarted, the open documents are re-opened from the files the UI
 * keeps (Blobs, not copies), and the user is told.
 */
import * as Comlink from 'comlink';
import type { InputFile, LayoutWorkerApi, ModelWorkerApi, GraphLayout, GraphPack, LayoutInput, LayoutOptions, PreparedView } from '../worker/api';

type Listener = (event: { kind: 'restarted' | 'crashed'; message: string }) => void;

export class ModelWorkerClient {
  private worker!: Worker;
  api!: Comlink.Remote<ModelWorkerApi>;
  private listeners = new Set<Listener>();
  generation = 0;

  constructor() {
    this.start();
  }

  private start() {
    this.worker = new Worker(new URL('../worker/model.worker.ts', import.meta.url), { type: 'module', name: 'model' });
    this.worker.addEventListener('error', (e) => this.onCrash(e.message || 'the model worker stopped'));
    this.api = Comlink.wrap<ModelWorkerApi>(this.worker);
    this.generation++;
  }

  private onCrash(message: string) {
    this.worker.terminate();
    this.start();
    for (const l of this.listeners) l({ kind: 'restarted', message: `The model worker stopped (${message}); it was restarted.` });
  }

  /** used by tests and by a watchdog: kill the worker as if it had crashed */
  simulateCrash() {
    this.onCrash('simulated crash');
  }

  onEvent(l: Listener) {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export class LayoutCancelled extends Error {
  constructor() {
    super('layout cancelled');
  }
}

export class LayoutWorkerClient {
  private worker: Worker | null = null;
  private api: Comlink.Remote<LayoutWorkerApi> | null = null;
  private pendingReject: ((e: Error) => void) | null = null;

  private ensure() {
    if (!this.worker) {
      this.worker = new Worker(new URL('../worker/layout.worker.ts', import.meta.url), { type: 'module', name: 'layout' });
      this.api = Comlink.wrap<LayoutWorkerApi>(this.worker);
    }
    return this.api!;
  }

  async layout(input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<GraphLayout> {
    const api = this.ensure();
    return await new Promise<GraphLayout>((resolve, reject) => {
      this.pendingReject = reject;
      api
        .layout(input, options, onProgress ? Comlink.proxy(onProgress) : undefined)
        .then(resolve, reject)
        .finally(() => {
          if (this.pendingReject === reject) this.pendingReject = null;
        });
    });
  }

  /** layout plus the renderer's scene, both in the worker */
  async prepareView(pack: GraphPack, input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<PreparedView> {
    const api = this.ensure();
    return await new Promise<PreparedView>((resolve, reject) => {
      this.pendingReject = reject;
      api
        .prepareView(pack, input, options, onProgress ? Comlink.proxy(onProgress) : undefined)
        .then(resolve, reject)
        .finally(() => {
          if (this.pendingReject === reject) this.pendingReject = null;
        });
    });
  }

  /** stops a running layout within milliseconds: the worker is terminated and replaced lazily */
  cancel() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.api = null;
    const r = this.pendingReject;
    this.pendingReject = null;
    r?.(new LayoutCancelled());
  }
}

export type { InputFile };

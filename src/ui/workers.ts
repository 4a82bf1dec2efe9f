/**
 * Worker clients for the UI thread. The model worker holds parsed models; the layout worker is
 * stateless, so cancelling a layout terminates it and starts a fresh one (effective at once).
 * A model worker that dies is restarted, the open documents are re-opened from the files the UI
 * keeps (Blobs, not copies), and the user is told.
 */
import * as Comlink from 'comlink';
import type { InputFile, LayoutWorkerApi, ModelWorkerApi, GraphLayout, GraphPack, LayoutInput, LayoutOptions, PreparedView, DisplayOptions, SceneLabels } from '../worker/api';
import { packBuffers } from '../core/graph/pack';
import { fromWorker } from './errors';

type Listener = (event: { kind: 'restarted' | 'crashed'; message: string }) => void;

/**
 * `remote` with every method call raced against `crashed`: when the worker dies, the calls still
 * waiting on it reject with its reason instead of hanging. A call the worker failed rejects with
 * a `StudioError` (its `ErrorInfo` kept: a bad file, or an internal error of the studio).
 */
export function untilCrash<T extends object>(remote: T, crashed: Promise<never>): T {
  return new Proxy(remote, {
    get(target, prop) {
      const member = Reflect.get(target, prop) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) =>
        Promise.race([(member as (...a: unknown[]) => Promise<unknown>)(...args), crashed]).catch((e: unknown) => {
          throw fromWorker(e);
        });
    },
  });
}

export class ModelWorkerClient {
  private worker!: Worker;
  api!: Comlink.Remote<ModelWorkerApi>;
  private listeners = new Set<Listener>();
  generation = 0;

  constructor() {
    this.start();
  }

  private rejectPending: (e: Error) => void = () => {};

  private start() {
    this.worker = new Worker(new URL('../worker/model.worker.ts', import.meta.url), { type: 'module', name: 'model' });
    this.worker.addEventListener('error', (e) => this.onCrash(e.message || 'the model worker stopped'));
    const remote = Comlink.wrap<ModelWorkerApi>(this.worker);
    // A terminated worker never answers: every call still waiting on this worker is rejected when
    // it dies, so no request (and no spinner waiting on one) hangs across a restart.
    const crashed = new Promise<never>((_, reject) => {
      this.rejectPending = reject;
    });
    crashed.catch(() => {});
    this.api = untilCrash(remote, crashed);
    this.generation++;
  }

  private onCrash(message: string) {
    this.rejectPending(new Error(`the model worker stopped (${message}) before it answered`));
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

  constructor() {
    // started with the model worker (the first file opened), so it has loaded its code by the
    // time the first graph is ready to lay out
    this.ensure();
  }

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
        .then(resolve, (e: unknown) => reject(fromWorker(e)))
        .finally(() => {
          if (this.pendingReject === reject) this.pendingReject = null;
        });
    });
  }

  /** layout plus the renderer's scene, both in the worker */
  /** the pack's buffers are transferred to the worker (the caller must not use them afterwards) */
  async prepareView(
    pack: GraphPack,
    options: LayoutOptions,
    display: DisplayOptions,
    onProgress?: (phase: string, fraction: number) => void,
    labelsLater?: boolean,
  ): Promise<PreparedView> {
    const api = this.ensure();
    return await new Promise<PreparedView>((resolve, reject) => {
      this.pendingReject = reject;
      api
        .prepareView(Comlink.transfer(pack, packBuffers(pack)), options, display, onProgress ? Comlink.proxy(onProgress) : undefined, labelsLater)
        .then(resolve, (e: unknown) => reject(fromWorker(e)))
        .finally(() => {
          if (this.pendingReject === reject) this.pendingReject = null;
        });
    });
  }

  /**
   * The edge labels of a scene sent without them (`PreparedView.labelsJob`); null when they are
   * gone (a cancel since ended the worker that kept them).
   */
  async placeEdgeLabels(job: number): Promise<SceneLabels | null> {
    try {
      return await this.ensure().placeEdgeLabels(job);
    } catch (e) {
      throw fromWorker(e);
    }
  }

  /**
   * Stops a running layout within milliseconds: the worker is terminated and replaced lazily. An
   * idle worker is kept (its code is warm: a fresh one runs the first layout of a big graph
   * several times slower while V8 compiles it).
   */
  cancel() {
    if (!this.pendingReject) return;
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.api = null;
    const r = this.pendingReject;
    this.pendingReject = null;
    r?.(new LayoutCancelled());
  }
}

export type { InputFile };

/**
 * Loadable run methods of the model service (issue 15), for documents with the `runLoadable`
 * capability (the service `npu-studio run-loadable` uses too), and the calibration of a Caffe model (`run` capability): loaded by `service.ts` on
 * first use. Like the Caffe run (run-service.ts), a run yields to the event loop every few tens of
 * ms between op slots (a MessageChannel task), so `cancelLoadableRun` and the views' questions
 * are answered while it runs; progress goes out at those moments and is not awaited. Images are
 * decoded here (createImageBitmap + OffscreenCanvas, or the host's decoder in tests).
 */
import * as Comlink from 'comlink';
import type { CalibrationView, InputFile, LoadableRunInputFile, ModelWorkerApi } from './api';
import { openDocument, serviceOf, type OpenedDocument, type OpenOptions } from '../core/document';
import { FormatError } from '../core/errors';
import type { RunInputValue, RunService, SourceFile } from '../core/format';
import type { LoadableInputValue } from '../core/dla/run-types';
import type { CalibrationMethod, CalibrationResult } from '../core/dla/calibrate';
import { decodeImageInWorker, type RunHost } from './run-service';
import type { FastCaffeKernels } from '../core/caffe/forward/fast-kernels';
import { KERNELS_FROM_BYTES } from '../core/dla/run-service';
import { pause } from './pause';

export type DlaApi = Pick<
  ModelWorkerApi,
  'loadableRunPlan' | 'runLoadable' | 'cancelLoadableRun' | 'loadableSurface' | 'compareLoadable' | 'comparePlanes' | 'calibrate' | 'recalibrate' | 'cancelCalibration'
>;

async function sourceFiles(files: InputFile[]): Promise<SourceFile[]> {
  return Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) })));
}

export function createDlaService(doc: (docId: string) => Promise<OpenedDocument>, host: RunHost = {}): { api: DlaApi; forget(docId: string): void } {
  const running = new Map<string, { aborted: boolean }>();
  const calibrating = new Map<string, { aborted: boolean }>();
  const calibrations = new Map<string, { result(method: CalibrationMethod): CalibrationResult; inputs: string[] }>();
  const every = host.yieldEveryMs ?? 40;
  const decode = host.decodeImage ?? decodeImageInWorker;
  /** per Caffe document: a copy opened at batch 1, for inputs that are one item (an image, the loadable's input) */
  const oneItem = new Map<string, { key: string; doc: Promise<OpenedDocument> }>();

  /**
   * The run service for one item: the document itself when its batch (a document option) is 1 or
   * it has none, else a copy of it opened from its files with the same options and batch 1 (a
   * deploy written for batch 64 would compute one image 64 times).
   */
  const oneItemRun = async (caffeDocId: string, files: InputFile[]): Promise<RunService> => {
    const d = await doc(caffeDocId);
    const options = d.summary.options ?? [];
    const batch = options.find((o) => o.name === 'batch');
    if (!batch || batch.value === 1) return serviceOf(d, 'run');
    const key = `${files.map((f) => `${f.name}:${f.blob.size}`).join('|')} ${JSON.stringify(options.map((o) => o.value))}`;
    let copy = oneItem.get(caffeDocId);
    if (!copy || copy.key !== key) {
      const values: OpenOptions = Object.fromEntries(options.map((o) => [o.name, o.value]));
      copy = { key, doc: (async () => openDocument(await sourceFiles(files), { ...values, batch: 1 }))() };
      oneItem.set(caffeDocId, copy);
      copy.doc.catch(() => oneItem.delete(caffeDocId));
    }
    return serviceOf(await copy.doc, 'run');
  };

  /** a throttled progress callback that yields to the event loop when it reports */
  const throttled = <P extends { done: number; total: number }>(onProgress?: (p: P) => void) => {
    let last = performance.now();
    return async (p: P) => {
      const now = performance.now();
      if (now - last < every && p.done < p.total) return;
      last = now;
      onProgress?.(p);
      await pause();
    };
  };

  const method = async (text: string, file: string) => {
    const { parseCalibrationMethod } = await import('../core/dla/calibrate');
    try {
      return parseCalibrationMethod(text);
    } catch (e) {
      if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file, message: e.message });
      throw e;
    }
  };
  const view = (c: { result(m: CalibrationMethod): CalibrationResult; inputs: string[] }, m: CalibrationMethod): CalibrationView => ({ ...c.result(m), inputNames: c.inputs });

  return {
    forget(docId) {
      for (const map of [running, calibrating]) {
        const r = map.get(docId);
        if (r) r.aborted = true;
        map.delete(docId);
      }
      calibrations.delete(docId);
      oneItem.delete(docId);
    },
    api: {
      async loadableRunPlan(docId) {
        return serviceOf(await doc(docId), 'runLoadable').plan();
      },
      async runLoadable(docId, request, onProgress) {
        const service = serviceOf(await doc(docId), 'runLoadable');
        const before = running.get(docId);
        if (before) before.aborted = true;
        const signal = { aborted: false };
        running.set(docId, signal);
        try {
          const input = await inputValue(request.input, decode);
          // the worker's WebAssembly kernels, which the service uses for loadables of real size (ResNet-50, not LeNet)
          const caffeKernels = service.plan().memoryBytes > KERNELS_FROM_BYTES ? await host.kernels?.() : undefined;
          const kernels = caffeKernels && 'kernels' in caffeKernels ? (caffeKernels as FastCaffeKernels).kernels : undefined;
          return await service.run(
            { input, calibration: request.calibration, ...(request.channels ? { channels: request.channels } : {}) },
            { signal, onProgress: throttled(onProgress), now: () => performance.now(), ...(kernels ? { kernels } : {}) },
          );
        } finally {
          if (running.get(docId) === signal) running.delete(docId);
        }
      },
      async cancelLoadableRun(docId) {
        const r = running.get(docId);
        if (r) r.aborted = true;
      },
      async loadableSurface(docId, order, channel) {
        const s = serviceOf(await doc(docId), 'runLoadable').surface(order, channel);
        return Comlink.transfer(s, [s.values.buffer as ArrayBuffer]);
      },
      async compareLoadable(docId, caffeDocId, caffeFiles) {
        const service = serviceOf(await doc(docId), 'runLoadable');
        const caffe = await oneItemRun(caffeDocId, caffeFiles);
        const kernels = await host.kernels?.();
        return service.compare(caffe, await sourceFiles(caffeFiles), { now: () => performance.now(), ...(kernels ? { caffeKernels: kernels } : {}) });
      },
      async comparePlanes(docId, order, channel) {
        const p = serviceOf(await doc(docId), 'runLoadable').comparePlanes(order, channel);
        return Comlink.transfer(p, [p.loadable.values.buffer as ArrayBuffer, p.caffe.values.buffer as ArrayBuffer, p.difference.values.buffer as ArrayBuffer]);
      },
      async calibrate(caffeDocId, caffeFiles, inputs, methodText, onProgress) {
        const d = await doc(caffeDocId);
        const run = serviceOf(d, 'run');
        const single = inputs.some((i) => i.kind !== 'array') ? await oneItemRun(caffeDocId, caffeFiles) : run;
        const kernels = await host.kernels?.();
        const m = await method(methodText, d.summary.file);
        const before = calibrating.get(caffeDocId);
        if (before) before.aborted = true;
        const signal = { aborted: false };
        calibrating.set(caffeDocId, signal);
        try {
          const values: { name: string; value: RunInputValue }[] = [];
          for (const input of inputs) {
            const v = await inputValue(input, decode);
            if (v.kind === 'random') values.push({ name: `random ${v.seed}`, value: v });
            else values.push({ name: v.file, value: v });
          }
          const { calibrateCaffe } = await import('../core/dla/caffe-calibration');
          const c = await calibrateCaffe((v) => (v.kind === 'array' ? run : single), await sourceFiles(caffeFiles), values, { signal, onProgress: throttled(onProgress), ...(kernels ? { kernels } : {}) });
          calibrations.set(caffeDocId, c);
          return view(c, m);
        } finally {
          if (calibrating.get(caffeDocId) === signal) calibrating.delete(caffeDocId);
        }
      },
      async recalibrate(caffeDocId, methodText) {
        const d = await doc(caffeDocId);
        const c = calibrations.get(caffeDocId);
        if (!c) throw new FormatError({ kind: 'unsupported', file: d.summary.file, message: 'there is no calibration to re-read: calibrate first' });
        return view(c, await method(methodText, d.summary.file));
      },
      async cancelCalibration(caffeDocId) {
        const r = calibrating.get(caffeDocId);
        if (r) r.aborted = true;
      },
    },
  };
}

/** The UI's input (files as Blobs) as core takes it: images decoded to pixels, arrays read. */
async function inputValue(input: LoadableRunInputFile, decode: NonNullable<RunHost['decodeImage']>): Promise<Exclude<LoadableInputValue, { kind: 'values' }>> {
  switch (input.kind) {
    case 'random':
      return { kind: 'random', seed: input.seed };
    case 'array':
      return { kind: 'array', file: input.file.name, bytes: new Uint8Array(await input.file.blob.arrayBuffer()) };
    case 'image':
      return { kind: 'image', file: input.file.name, pixels: await decode(input.file.blob, input.file.name), scale: input.scale, mean: input.mean, color: input.color };
  }
}

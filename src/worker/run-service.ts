/**
 * Run methods of the model service (issue 11), for documents with the `run` capability: the
 * plan, the forward pass with progress and cancel, and planes of the last run's blobs. Loaded by
 * `service.ts` on first use.
 *
 * The pass runs on this worker's thread; after a layer, when some tens of ms have gone by since
 * the last pause, it yields to the event loop (a MessageChannel task, not a clamped timeout),
 * so a `cancelRun` and the panel's other questions get answered between layers. Progress goes
 * to the UI at the same moments and is not awaited. Images are decoded here: createImageBitmap
 * and an OffscreenCanvas in the browser, an injected decoder in tests.
 */
import * as Comlink from 'comlink';
import type { ModelWorkerApi, RunInputFile } from './api';
import { serviceOf, type OpenedDocument } from '../core/document';
import { FormatError } from '../core/errors';
import type { RgbaPixels, RunHooks, RunInputValue, RunProgressEvent } from '../core/format';
import { pause } from './pause';

export type RunApi = Pick<ModelWorkerApi, 'runPlan' | 'run' | 'cancelRun' | 'blobSlice'>;

export interface RunHost {
  /** PNG / JPEG to pixels (default: createImageBitmap + OffscreenCanvas) */
  decodeImage?(blob: Blob, file: string): Promise<RgbaPixels>;
  /** the heavy layers' kernels for a run (default: core's plain TypeScript reference) */
  kernels?(): Promise<RunHooks['kernels']>;
  /** ms between two pauses of a run (default 40) */
  yieldEveryMs?: number;
  /** files above this size open from their format's skeleton first (default LARGE_FILE_BYTES; tests lower it) */
  largeFileBytes?: number;
}

/** Decodes an image in a worker: pixels as stored (no colour-space conversion, alpha not premultiplied). */
export async function decodeImageInWorker(blob: Blob, file: string): Promise<RgbaPixels> {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') {
    throw new FormatError({ kind: 'unsupported', file, message: 'this browser cannot decode images in a worker (createImageBitmap / OffscreenCanvas)' });
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  } catch (e) {
    throw new FormatError({ kind: 'corrupt', file, offset: 0, message: `the image cannot be decoded (${(e as Error).message || 'not a PNG or JPEG the browser reads'})` });
  }
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new FormatError({ kind: 'unsupported', file, message: 'no 2D canvas in this worker to read the pixels' });
    ctx.drawImage(bitmap, 0, 0);
    const img = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    return { width: img.width, height: img.height, data: img.data };
  } finally {
    bitmap.close();
  }
}

async function inputValue(host: RunHost, input: RunInputFile): Promise<RunInputValue> {
  switch (input.kind) {
    case 'random':
      return { kind: 'random', seed: input.seed };
    case 'array':
      return { kind: 'array', file: input.file.name, bytes: new Uint8Array(await input.file.blob.arrayBuffer()) };
    case 'image': {
      const pixels = await (host.decodeImage ?? decodeImageInWorker)(input.file.blob, input.file.name);
      return { kind: 'image', file: input.file.name, pixels, scale: input.scale, mean: input.mean, ...(input.color ? { color: input.color } : {}) };
    }
  }
}

/** `doc`: the document with its values (for a large file opened from its skeleton, once the whole file is read). */
export function createRunService(doc: (docId: string) => Promise<OpenedDocument>, host: RunHost = {}): { api: RunApi; forget(docId: string): void } {
  /** the run in progress per document: its cancel flag */
  const running = new Map<string, { aborted: boolean }>();
  const every = host.yieldEveryMs ?? 40;
  return {
    forget(docId) {
      const r = running.get(docId);
      if (r) r.aborted = true;
      running.delete(docId);
    },
    api: {
      async runPlan(docId) {
        return serviceOf(await doc(docId), 'run').plan();
      },
      async run(docId, request, onProgress) {
        const service = serviceOf(await doc(docId), 'run');
        // one run per document: a new one cancels the one before
        const before = running.get(docId);
        if (before) before.aborted = true;
        const signal = { aborted: false };
        running.set(docId, signal);
        try {
          const inputs: Record<string, RunInputValue> = {};
          for (const [name, input] of Object.entries(request.inputs)) inputs[name] = await inputValue(host, input);
          const kernels = await host.kernels?.();
          let last = performance.now();
          const progress = async (p: RunProgressEvent) => {
            const now = performance.now();
            if (now - last < every && p.done < p.total) return;
            last = now;
            onProgress?.(p);
            await pause();
          };
          return await service.run(
            { inputs, ...(request.seed !== undefined ? { seed: request.seed } : {}) },
            { signal, onProgress: progress, now: () => performance.now(), ...(kernels ? { kernels } : {}) },
          );
        } finally {
          if (running.get(docId) === signal) running.delete(docId);
        }
      },
      async cancelRun(docId) {
        const r = running.get(docId);
        if (r) r.aborted = true;
      },
      async blobSlice(docId, key, item, channel) {
        const slice = serviceOf(await doc(docId), 'run').blobSlice(key, item, channel);
        return Comlink.transfer(slice, [slice.values.buffer as ArrayBuffer]);
      },
    },
  };
}

/**
 * The model service behind the worker: documents by id, graphs cached per document, find
 * indexes cached per graph. Kept free of worker globals so tests can drive it directly.
 *
 * It knows no format: `core/document.ts` opens a file set, and each method reaches the service
 * of the capability it serves (`serviceOf(doc, 'graph')`, ...). The partition and origins
 * methods live in their own modules, loaded on first use (a model that is only viewed never
 * loads the partitioner or the optimizer).
 */
import type { GraphForView, InputFile, ModelWorkerApi, OpenResult } from './api';
import { detectFormat, openDocument, serviceOf, type OpenedDocument, type OpenOptions, type SourceFile } from '../core/document';
import { LARGE_FILE_BYTES, type LargeFile } from '../core/format';
import { isFormatError, toErrorInfo } from '../core/errors';
import type { Graph } from '../core/graph/model';
import { layoutInputFor } from '../core/graph/size';
import { copyPack, packBuffers, packGraph } from '../core/graph/pack';
import * as Comlink from 'comlink';
import { buildFindIndex, find, type FindIndex } from '../core/graph/find';
import { guarded } from './failures';
import type { PartitionApi } from './partition-service';
import type { OriginsApi } from './origins-service';
import type { RunApi, RunHost } from './run-service';
import type { DlaApi } from './dla-service';
import type { CompileApi } from './compile-service';

interface Entry {
  doc: OpenedDocument;
  findIndexes: Map<string, FindIndex>;
  /**
   * Opened from the skeleton of a large file: resolves once the whole file is read and the
   * document opened again from it (`doc` replaced); what needs the values waits for it
   */
  whole: Promise<void> | null;
}

/** Bytes of a large file read before its format is known: enough for every format's detect. */
const DETECT_PREFIX = 1 << 20;

function largeFile(f: InputFile): LargeFile {
  return { name: f.name, size: f.blob.size, read: async (offset, length) => new Uint8Array(await f.blob.slice(offset, offset + length).arrayBuffer()) };
}

async function wholeFiles(files: InputFile[]): Promise<SourceFile[]> {
  return Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) })));
}

/**
 * The file set as the format first opens it: small files whole; a large file (over
 * LARGE_FILE_BYTES) as its format's skeleton when the format has one (the structure without the
 * bulk data, read piece by piece), else whole. `skeletons` says whether any skeleton was used.
 * (`large`: LARGE_FILE_BYTES, lower in tests.)
 */
async function firstSources(files: InputFile[], large: number): Promise<{ sources: SourceFile[]; skeletons: boolean }> {
  if (!files.some((f) => f.blob.size > large)) return { sources: await wholeFiles(files), skeletons: false };
  const probe = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.blob.slice(0, f.blob.size > large ? DETECT_PREFIX : f.blob.size).arrayBuffer()) })));
  const entry = detectFormat(probe);
  let skeletons = false;
  const sources = await Promise.all(
    files.map(async (f, i): Promise<SourceFile> => {
      if (f.blob.size <= large) return probe[i]!;
      // a file whose structure the skeleton walk refuses is read whole: its errors are then the reader's own
      const bytes = entry.skeleton ? await entry.skeleton(largeFile(f)).catch((e: unknown) => (isFormatError(e) ? null : Promise.reject(e))) : null;
      if (!bytes) return { name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) };
      skeletons = true;
      return { name: f.name, bytes, skeleton: true };
    }),
  );
  return { sources, skeletons };
}

/** Graph without ports and attributes: what the UI needs to draw and navigate. */
export function slimGraph(graph: Graph): Graph {
  return {
    ...graph,
    nodes: graph.nodes.map((n) => ({ ...n, inputs: [], outputs: [], attributes: [] })),
  };
}

/** A value made on first use (and made again after a failed attempt). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => {
    p ??= make().catch((e: unknown) => {
      p = null;
      throw e;
    });
    return p;
  };
}

/** `host`: how runs decode images and which kernels they use (the worker gives the browser's; tests give Node's). */
export function createModelService(host: RunHost = {}): ModelWorkerApi {
  const docs = new Map<string, Entry>();
  let next = 1;

  const entry = (docId: string): Entry => {
    const e = docs.get(docId);
    if (!e) throw new Error(`document ${docId} is not open`);
    return e;
  };
  const docOf = (docId: string) => entry(docId).doc;
  /** The document with its values: after the whole file was read when it was opened from a skeleton. */
  const wholeDoc = async (docId: string) => {
    const e = entry(docId);
    if (e.whole) await e.whole;
    return entry(docId).doc;
  };
  const graphs = (docId: string) => serviceOf(docOf(docId), 'graph');

  let partitionsLoaded: { forget(docId: string): void } | null = null;
  const partitions = once(async () => {
    const p = (await import('./partition-service')).createPartitionService(docOf);
    partitionsLoaded = p;
    return p.api;
  });
  const origins = once(async () => (await import('./origins-service')).createOriginsService(docOf, (files) => service.open(files)).api);
  let runsLoaded: { forget(docId: string): void } | null = null;
  const runs = once(async () => {
    const r = (await import('./run-service')).createRunService(wholeDoc, host);
    runsLoaded = r;
    return r.api;
  });
  let dlaLoaded: { forget(docId: string): void } | null = null;
  const dla = once(async () => {
    const r = (await import('./dla-service')).createDlaService(wholeDoc, host);
    dlaLoaded = r;
    return r.api;
  });
  const viaDla =
    <K extends keyof DlaApi>(name: K) =>
    async (...args: Parameters<DlaApi[K]>): Promise<Awaited<ReturnType<DlaApi[K]>>> =>
      ((await dla())[name] as (...a: Parameters<DlaApi[K]>) => Promise<Awaited<ReturnType<DlaApi[K]>>>)(...args);
  let compilesLoaded: { forget(docId: string): void } | null = null;
  const compiles = once(async () => {
    const c = (await import('./compile-service')).createCompileService({
      doc: wholeDoc,
      adopt(doc) {
        const docId = `doc${next++}`;
        docs.set(docId, { doc, findIndexes: new Map(), whole: null });
        return docId;
      },
      close: (docId) => service.close(docId),
    });
    compilesLoaded = c;
    return c.api;
  });
  const viaCompiles =
    <K extends keyof CompileApi>(name: K) =>
    async (...args: Parameters<CompileApi[K]>): Promise<Awaited<ReturnType<CompileApi[K]>>> =>
      ((await compiles())[name] as (...a: Parameters<CompileApi[K]>) => Promise<Awaited<ReturnType<CompileApi[K]>>>)(...args);
  const viaPartitions =
    <K extends keyof PartitionApi>(name: K) =>
    async (...args: Parameters<PartitionApi[K]>): Promise<Awaited<ReturnType<PartitionApi[K]>>> =>
      ((await partitions())[name] as (...a: Parameters<PartitionApi[K]>) => Promise<Awaited<ReturnType<PartitionApi[K]>>>)(...args);
  const viaOrigins =
    <K extends keyof OriginsApi>(name: K) =>
    async (...args: Parameters<OriginsApi[K]>): Promise<Awaited<ReturnType<OriginsApi[K]>>> =>
      ((await origins())[name] as (...a: Parameters<OriginsApi[K]>) => Promise<Awaited<ReturnType<OriginsApi[K]>>>)(...args);

  const viaRuns =
    <K extends keyof RunApi>(name: K) =>
    async (...args: Parameters<RunApi[K]>): Promise<Awaited<ReturnType<RunApi[K]>>> =>
      ((await runs())[name] as (...a: Parameters<RunApi[K]>) => Promise<Awaited<ReturnType<RunApi[K]>>>)(...args);

  const service: ModelWorkerApi = {
    runPlan: viaRuns('runPlan'),
    run: viaRuns('run'),
    cancelRun: viaRuns('cancelRun'),
    blobSlice: viaRuns('blobSlice'),
    loadableRunPlan: viaDla('loadableRunPlan'),
    runLoadable: viaDla('runLoadable'),
    cancelLoadableRun: viaDla('cancelLoadableRun'),
    loadableSurface: viaDla('loadableSurface'),
    compareLoadable: viaDla('compareLoadable'),
    comparePlanes: viaDla('comparePlanes'),
    calibrate: viaDla('calibrate'),
    recalibrate: viaDla('recalibrate'),
    cancelCalibration: viaDla('cancelCalibration'),
    partitionText: viaPartitions('partitionText'),
    partitionHover: viaPartitions('partitionHover'),
    partitionCompletions: viaPartitions('partitionCompletions'),
    partitionKeyAt: viaPartitions('partitionKeyAt'),
    partitionAssignEdit: viaPartitions('partitionAssignEdit'),
    partitionVocabulary: viaPartitions('partitionVocabulary'),
    partitionFiles: viaPartitions('partitionFiles'),
    checkPartition: viaPartitions('checkPartition'),
    compileForm: viaCompiles('compileForm'),
    compile: viaCompiles('compile'),
    compiledLoadable: viaCompiles('compiledLoadable'),
    compiledStage: viaCompiles('compiledStage'),
    origins: viaOrigins('origins'),
    optimize: viaOrigins('optimize'),
    optimizePasses: viaOrigins('optimizePasses'),
    async contentHash(file: InputFile): Promise<string> {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.blob.arrayBuffer()));
      return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    },
    async open(files: InputFile[], options?: OpenOptions): Promise<OpenResult> {
      const name = files[0]?.name ?? '(none)';
      try {
        const t0 = performance.now();
        let { sources, skeletons } = await firstSources(files, host.largeFileBytes ?? LARGE_FILE_BYTES);
        const t1 = performance.now();
        let doc: OpenedDocument;
        try {
          doc = await openDocument(sources, options);
        } catch (e) {
          if (!skeletons) throw e;
          // a file the skeleton cannot describe: read it whole, so the error (or the document) is the file's own
          sources = await wholeFiles(files);
          skeletons = false;
          doc = await openDocument(sources, options);
        }
        // User Timing entries in the worker's own timeline (benches read them; nothing else does)
        performance.measure(`npu:open:read ${name}`, { start: t0, end: t1 });
        performance.measure(`npu:open:parse ${name}`, { start: t1, end: performance.now() });
        const docId = `doc${next++}`;
        const e: Entry = { doc, findIndexes: new Map(), whole: null };
        if (skeletons) {
          // the whole files, read after the graph is on screen; the same structure, now with its values
          e.whole = (async () => {
            const whole = await openDocument(await wholeFiles(files), options);
            if (docs.get(docId) === e) e.doc = whole;
            performance.measure(`npu:open:whole ${name}`, { start: t1, end: performance.now() });
          })();
          e.whole.catch(() => {});
        }
        docs.set(docId, e);
        return { ok: true, docId, summary: doc.summary, diagnostics: doc.diagnostics };
      } catch (e) {
        return { ok: false, error: toErrorInfo(e, name) };
      }
    },
    async close(docId) {
      docs.delete(docId);
      partitionsLoaded?.forget(docId);
      runsLoaded?.forget(docId);
      dlaLoaded?.forget(docId);
      compilesLoaded?.forget(docId);
    },
    async graphForView(docId, graphId): Promise<GraphForView> {
      const graph = graphs(docId).graph(graphId);
      // boxes hold the op type and the node name on a second line (GraphView draws both)
      return { graph: slimGraph(graph), layoutInput: layoutInputFor(graph, { nameLine: true, constantRows: false }) };
    },
    async packedGraphForView(docId, graphId) {
      const t0 = performance.now();
      const svc = graphs(docId);
      // a format that packs straight from its model does so; the Graph is built when the view is
      // drawn (warmGraph), off the view's critical path, for the panel, find and partitions
      const pack = svc.pack ? svc.pack(graphId) : packGraph(svc.graph(graphId));
      const forLayout = copyPack(pack);
      performance.measure('npu:graph:pack', { start: t0, end: performance.now() });
      return Comlink.transfer({ pack, forLayout }, [...packBuffers(pack), ...packBuffers(forLayout)]);
    },
    async warmGraph(docId, graphId) {
      if (!docs.has(docId)) return;
      const t = performance.now();
      graphs(docId).graph(graphId);
      performance.measure('npu:graph:build', { start: t, end: performance.now() });
    },
    async nodeDetails(docId, graphId, nodeIndex) {
      return graphs(docId).nodeDetails(graphId, nodeIndex);
    },
    async tensorDetails(docId, graphId, tensor, valuesWidth) {
      return serviceOf(await wholeDoc(docId), 'graph').tensorDetails(graphId, tensor, valuesWidth);
    },
    async tensorNpy(docId, graphId, tensor) {
      const graph = serviceOf(await wholeDoc(docId), 'graph');
      return graph.tensorNpy ? graph.tensorNpy(graphId, tensor) : null;
    },
    async find(docId, graphId, query) {
      const e = entry(docId);
      let index = e.findIndexes.get(graphId);
      if (!index) {
        index = buildFindIndex(serviceOf(e.doc, 'graph').graph(graphId));
        e.findIndexes.set(graphId, index);
      }
      const t0 = performance.now();
      const r = find(index, query);
      return { results: r.results, total: r.total, ms: performance.now() - t0 };
    },
    async profile(docId) {
      return serviceOf(docOf(docId), 'profile').analysis();
    },
    async loadableOverview(docId) {
      return serviceOf(docOf(docId), 'loadable').overview();
    },
    async loadableSlot(docId, node) {
      return serviceOf(docOf(docId), 'loadable').slot(node);
    },
    async loadableMemoryMap(docId) {
      return serviceOf(docOf(docId), 'loadable').memoryMap();
    },
    async loadableBlob(docId, blob) {
      return serviceOf(docOf(docId), 'loadable').blob(blob);
    },
    async loadableBlobBytes(docId, blob, offset, length) {
      const bytes = serviceOf(docOf(docId), 'loadable').blobBytes(blob, offset, length);
      return Comlink.transfer(bytes, [bytes.buffer as ArrayBuffer]);
    },
    async loadableCompare(docIdA, docIdB) {
      return serviceOf(docOf(docIdA), 'loadable').compare(serviceOf(docOf(docIdB), 'loadable'));
    },
    async ping() {
      return 'pong' as const;
    },
  };
  // failures leave as data naming the document's file (the first argument is a document id)
  return guarded(service, (args) => (typeof args[0] === 'string' && docs.get(args[0])?.doc.summary.file) || 'NPU Studio');
}

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
import { openDocument, serviceOf, type OpenedDocument } from '../core/document';
import { toErrorInfo } from '../core/errors';
import type { Graph } from '../core/graph/model';
import { layoutInputFor } from '../core/graph/size';
import { copyPack, packBuffers, packGraph } from '../core/graph/pack';
import * as Comlink from 'comlink';
import { buildFindIndex, find, type FindIndex } from '../core/graph/find';
import { guarded } from './failures';
import type { PartitionApi } from './partition-service';
import type { OriginsApi } from './origins-service';

interface Entry {
  doc: OpenedDocument;
  findIndexes: Map<string, FindIndex>;
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

export function createModelService(): ModelWorkerApi {
  const docs = new Map<string, Entry>();
  let next = 1;

  const entry = (docId: string): Entry => {
    const e = docs.get(docId);
    if (!e) throw new Error(`document ${docId} is not open`);
    return e;
  };
  const docOf = (docId: string) => entry(docId).doc;
  const graphs = (docId: string) => serviceOf(docOf(docId), 'graph');

  let partitionsLoaded: { forget(docId: string): void } | null = null;
  const partitions = once(async () => {
    const p = (await import('./partition-service')).createPartitionService(docOf);
    partitionsLoaded = p;
    return p.api;
  });
  const origins = once(async () => (await import('./origins-service')).createOriginsService(docOf, (files) => service.open(files)).api);
  const viaPartitions =
    <K extends keyof PartitionApi>(name: K) =>
    async (...args: Parameters<PartitionApi[K]>): Promise<Awaited<ReturnType<PartitionApi[K]>>> =>
      ((await partitions())[name] as (...a: Parameters<PartitionApi[K]>) => Promise<Awaited<ReturnType<PartitionApi[K]>>>)(...args);
  const viaOrigins =
    <K extends keyof OriginsApi>(name: K) =>
    async (...args: Parameters<OriginsApi[K]>): Promise<Awaited<ReturnType<OriginsApi[K]>>> =>
      ((await origins())[name] as (...a: Parameters<OriginsApi[K]>) => Promise<Awaited<ReturnType<OriginsApi[K]>>>)(...args);

  const service: ModelWorkerApi = {
    partitionText: viaPartitions('partitionText'),
    partitionHover: viaPartitions('partitionHover'),
    partitionCompletions: viaPartitions('partitionCompletions'),
    partitionKeyAt: viaPartitions('partitionKeyAt'),
    partitionAssignEdit: viaPartitions('partitionAssignEdit'),
    partitionVocabulary: viaPartitions('partitionVocabulary'),
    partitionFiles: viaPartitions('partitionFiles'),
    checkPartition: viaPartitions('checkPartition'),
    origins: viaOrigins('origins'),
    optimize: viaOrigins('optimize'),
    optimizePasses: viaOrigins('optimizePasses'),
    async open(files: InputFile[]): Promise<OpenResult> {
      const name = files[0]?.name ?? '(none)';
      try {
        const t0 = performance.now();
        const sources = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) })));
        const t1 = performance.now();
        const doc = await openDocument(sources);
        // User Timing entries in the worker's own timeline (benches read them; nothing else does)
        performance.measure(`npu:open:read ${name}`, { start: t0, end: t1 });
        performance.measure(`npu:open:parse ${name}`, { start: t1, end: performance.now() });
        const docId = `doc${next++}`;
        docs.set(docId, { doc, findIndexes: new Map() });
        return { ok: true, docId, summary: doc.summary, diagnostics: doc.diagnostics };
      } catch (e) {
        return { ok: false, error: toErrorInfo(e, name) };
      }
    },
    async close(docId) {
      docs.delete(docId);
      partitionsLoaded?.forget(docId);
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
    async tensorDetails(docId, graphId, tensor) {
      return graphs(docId).tensorDetails(graphId, tensor);
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

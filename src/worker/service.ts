/**
 * The model service behind the worker: documents by id, graphs cached per document, find
 * indexes cached per graph. Kept free of worker globals so tests can drive it directly.
 */
import type { GraphForView, InputFile, ModelWorkerApi, OpenResult } from './api';
import { openDocument, type OpenedDocument } from '../core/document';
import { toErrorInfo } from '../core/errors';
import type { Graph } from '../core/graph/model';
import { layoutInputFor } from '../core/graph/size';
import { packBuffers, packGraph } from '../core/graph/pack';
import * as Comlink from 'comlink';
import { buildFindIndex, find, type FindIndex } from '../core/graph/find';
import { createOriginsService } from './origins-service';
import { createPartitionService, type PartitionSource } from './partition-service';

interface Entry {
  doc: OpenedDocument;
  findIndexes: Map<string, FindIndex>;
  /** the main file's bytes (partitioning re-reads the circle model from them, once) */
  main: PartitionSource;
}

/** Graph without ports and attributes: what the UI needs to draw and navigate. */
export function slimGraph(graph: Graph): Graph {
  return {
    ...graph,
    nodes: graph.nodes.map((n) => ({ ...n, inputs: [], outputs: [], attributes: [] })),
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

  const partitions = createPartitionService((docId) => entry(docId).main);

  const origins = createOriginsService((docId) => entry(docId).doc, (files) => service.open(files));

  const service: ModelWorkerApi = {
    ...partitions.api,
    ...origins.api,
    async open(files: InputFile[]): Promise<OpenResult> {
      const name = files[0]?.name ?? '(none)';
      try {
        const t0 = performance.now();
        const sources = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) })));
        const t1 = performance.now();
        const doc = openDocument(sources);
        // User Timing entries in the worker's own timeline (benches read them; nothing else does)
        performance.measure(`npu:open:read ${name}`, { start: t0, end: t1 });
        performance.measure(`npu:open:parse ${name}`, { start: t1, end: performance.now() });
        const docId = `doc${next++}`;
        docs.set(docId, { doc, findIndexes: new Map(), main: { name: sources[0]!.name, bytes: sources[0]!.bytes, format: doc.format } });
        return { ok: true, docId, kind: doc.kind ?? 'graph', summary: doc.summary, diagnostics: doc.diagnostics };
      } catch (e) {
        return { ok: false, error: toErrorInfo(e, name) };
      }
    },
    async close(docId) {
      docs.delete(docId);
      partitions.forget(docId);
    },
    async graphForView(docId, graphId): Promise<GraphForView> {
      const graph = entry(docId).doc.graph(graphId);
      // boxes hold the op type and the node name on a second line (GraphView draws both)
      return { graph: slimGraph(graph), layoutInput: layoutInputFor(graph, { nameLine: true, constantRows: false }) };
    },
    async packedGraphForView(docId, graphId) {
      const graph = entry(docId).doc.graph(graphId);
      const pack = packGraph(graph);
      const layoutInput = layoutInputFor(graph, { nameLine: true, constantRows: false });
      const buffers = [...packBuffers(pack), layoutInput.widths.buffer, layoutInput.heights.buffer, layoutInput.edgeFrom.buffer, layoutInput.edgeTo.buffer] as ArrayBuffer[];
      return Comlink.transfer({ pack, layoutInput }, [...new Set(buffers)]);
    },
    async nodeDetails(docId, graphId, nodeIndex) {
      return entry(docId).doc.nodeDetails(graphId, nodeIndex);
    },
    async tensorDetails(docId, graphId, tensor) {
      return entry(docId).doc.tensorDetails(graphId, tensor);
    },
    async find(docId, graphId, query) {
      const e = entry(docId);
      let index = e.findIndexes.get(graphId);
      if (!index) {
        index = buildFindIndex(e.doc.graph(graphId));
        e.findIndexes.set(graphId, index);
      }
      const t0 = performance.now();
      const r = find(index, query);
      return { results: r.results, total: r.total, ms: performance.now() - t0 };
    },
    async profile(docId) {
      const doc = entry(docId).doc;
      if (!doc.profile) throw new Error(`${doc.summary.file} is not a profile`);
      return doc.profile();
    },
    async ping() {
      return 'pong' as const;
    },
  };
  return service;
}

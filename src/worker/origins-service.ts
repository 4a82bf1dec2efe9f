/**
 * Origin methods of the model service (issue 4), for documents with the `origins` and `optimize`
 * capabilities: the origins of a graph for the Origins panel, and `optimize`, which runs the
 * document's origin-preserving passes here in the worker, opens the file they write (origin
 * tables included) as a new document like any other, and maps the operators of both graphs to
 * each other (many-to-many, through shared origin ids) as graph node indices. Loaded by
 * `service.ts` on first use.
 */
import type { InputFile, ModelWorkerApi, OpenResult, OptimizeView, OriginsView } from './api';
import { serviceOf, type OpenedDocument } from '../core/document';
import type { Graph } from '../core/graph/model';
import { toErrorInfo } from '../core/errors';
import { sourceName, type Origins } from '../core/origin/origins';

export type OriginsApi = Pick<ModelWorkerApi, 'origins' | 'optimize' | 'optimizePasses'>;

/** graph node index of each operator index (-1: not drawn) */
function opNodes(graph: Graph, operators: number): Int32Array {
  const map = new Int32Array(operators).fill(-1);
  graph.nodes.forEach((n, i) => {
    if (n.kind === 'op' && n.index >= 0 && n.index < operators) map[n.index] = i;
  });
  return map;
}

/** per-operator lists of operator indices -> per-node lists of node indices */
function toNodeLists(lists: number[][], fromGraph: Graph, fromOps: Int32Array, toOps: Int32Array): number[][] {
  const out: number[][] = fromGraph.nodes.map(() => []);
  lists.forEach((ops, i) => {
    const node = fromOps[i] ?? -1;
    if (node < 0) return;
    const mapped: number[] = [];
    for (const j of ops) {
      const n = toOps[j] ?? -1;
      if (n >= 0) mapped.push(n);
    }
    out[node] = mapped;
  });
  return out;
}

function originsView(origins: Origins, graphId: string, graph: Graph): OriginsView {
  const nodeIds: number[][] = graph.nodes.map((n) => (n.kind === 'op' ? [...(origins.ops[n.index] ?? [])] : []));
  const users = new Map<number, number[]>();
  nodeIds.forEach((ids, node) => {
    for (const id of ids) {
      const list = users.get(id);
      if (list) list.push(node);
      else users.set(id, [node]);
    }
  });
  const ids = new Set<number>(origins.sources.keys());
  for (const id of users.keys()) ids.add(id);
  const sources = [...ids].sort((a, b) => a - b).map((id) => ({ id, name: sourceName(origins, id), nodes: users.get(id) ?? [] }));
  return { graphId, kind: origins.kind, nodeIds, sources, diagnostics: origins.diagnostics };
}

export function createOriginsService(doc: (docId: string) => OpenedDocument, open: (files: InputFile[]) => Promise<OpenResult>): { api: OriginsApi } {
  return {
    api: {
      async origins(docId, graphId) {
        const d = doc(docId);
        const origins = serviceOf(d, 'origins').origins(graphId);
        return originsView(origins, graphId, serviceOf(d, 'graph').graph(graphId));
      },
      async optimizePasses(docId) {
        return serviceOf(doc(docId), 'optimize').passes();
      },
      async optimize(docId, passes): Promise<OptimizeView> {
        const t0 = performance.now();
        let file = 'model';
        try {
          const d = doc(docId);
          file = d.summary.file;
          const result = serviceOf(d, 'optimize').optimize(passes);
          const { name, bytes } = result.file;
          const opened = await open([{ name, blob: new Blob([bytes as Uint8Array<ArrayBuffer>]) }]);
          if (!opened.ok) return opened;
          const before = serviceOf(d, 'graph').graph(result.graphId);
          const after = serviceOf(doc(opened.docId), 'graph').graph(result.graphId);
          const beforeOps = opNodes(before, result.sourceToOptimized.length);
          const afterOps = opNodes(after, result.optimizedToSource.length);
          return {
            ok: true,
            docId: opened.docId,
            name,
            summary: opened.summary,
            diagnostics: opened.diagnostics,
            bytes,
            graphId: result.graphId,
            log: result.log,
            removed: result.removed,
            sourceToOptimized: toNodeLists(result.sourceToOptimized, before, beforeOps, afterOps),
            optimizedToSource: toNodeLists(result.optimizedToSource, after, afterOps, beforeOps),
            ms: performance.now() - t0,
          };
        } catch (e) {
          return { ok: false, error: toErrorInfo(e, file) };
        }
      },
    },
  };
}

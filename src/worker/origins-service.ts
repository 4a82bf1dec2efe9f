/**
 * Origin methods of the model service (issue 4): the origins of a graph for the Origins panel,
 * and `optimize`, which runs the origin-preserving passes here in the worker, writes the result
 * (with its origin tables), opens it as a new document like any circle file, and maps the
 * operators of both graphs to each other through shared origin ids (many-to-many).
 */
import type { InputFile, ModelWorkerApi, OpenResult, OptimizeView, OriginsView } from './api';
import type { OpenedDocument } from '../core/document';
import type { Graph } from '../core/graph/model';
import { toErrorInfo } from '../core/errors';
import { originsOf, relatedOps, sourceName, type Origins } from '../core/origin';
import { optimize, PASS_NAMES } from '../core/optimize';
import { write } from '../core/circle/write';

type OriginsApi = Pick<ModelWorkerApi, 'origins' | 'optimize' | 'optimizePasses'>;

function subgraphOf(graphId: string): number {
  const m = /^sg:(\d+)$/.exec(graphId);
  return m ? Number(m[1]) : -1;
}

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

function baseName(file: string): string {
  return file.replace(/\.circle$/i, '');
}

export function createOriginsService(doc: (docId: string) => OpenedDocument, open: (files: InputFile[]) => Promise<OpenResult>): { api: OriginsApi } {
  const circleOf = (docId: string) => {
    const d = doc(docId);
    if (!d.circle) throw new Error(`${d.summary.file} is not a circle model: origins and optimize read circle models only`);
    return { d, model: d.circle() };
  };
  return {
    api: {
      async origins(docId, graphId) {
        const { d, model } = circleOf(docId);
        const sg = subgraphOf(graphId);
        const origins = originsOf(model, Math.max(0, sg), d.summary.file);
        return originsView(origins, graphId, d.graph(graphId));
      },
      async optimizePasses() {
        return [...PASS_NAMES];
      },
      async optimize(docId, passes): Promise<OptimizeView> {
        const t0 = performance.now();
        let file = 'model.circle';
        try {
          const { d, model } = circleOf(docId);
          file = d.summary.file;
          const result = optimize(model, passes, { file });
          const bytes = write(result.model);
          const name = `${baseName(file)}.opt.circle`;
          const opened = await open([{ name, blob: new Blob([bytes as Uint8Array<ArrayBuffer>]) }]);
          if (!opened.ok) return opened;
          const before = d.graph('sg:0');
          const after = doc(opened.docId).graph('sg:0');
          const beforeOps = opNodes(before, model.subgraphs[0]?.operators.length ?? 0);
          const afterOps = opNodes(after, result.model.subgraphs[0]?.operators.length ?? 0);
          const rel = relatedOps(result.originsBefore, result.origins);
          return {
            ok: true,
            docId: opened.docId,
            name,
            summary: opened.summary,
            diagnostics: opened.diagnostics,
            bytes,
            log: result.log,
            removed: result.removed,
            sourceToOptimized: toNodeLists(rel.aToB, before, beforeOps, afterOps),
            optimizedToSource: toNodeLists(rel.bToA, after, afterOps, beforeOps),
            ms: performance.now() - t0,
          };
        } catch (e) {
          return { ok: false, error: toErrorInfo(e, file) };
        }
      },
    },
  };
}

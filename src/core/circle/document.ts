/**
 * Circle as an open document (loaded by `./format.ts` on first open): graphs, node and tensor
 * details, and the circle-only services: partition (`.part`), origins (ONE origin tables) and
 * optimize (origin-preserving passes).
 */
import type { FormatDocument, NodeDetails, SourceFile } from '../format';
import type { Graph } from '../graph/model';
import { read } from './read';
import { write } from './write';
import { summarize, toGraph, toGraphPack } from './graph';
import { circleInspect } from './inspect';
import { tensorDetails, tensorNpy } from './values';
import { builtinOperatorName } from './names';
import { originsOf, sourceName, type Origins } from '../origin/origins';
import { relatedOps } from '../origin/related';
import { preparePartition, type PreparedModel } from '../partition/prepare';
import { optimize } from '../optimize/optimize';
import { PASS_NAMES } from '../optimize/pipeline';
import { FormatError } from '../errors';

function subgraphIndexOf(graphId: string): number {
  const m = /^sg:(\d+)$/.exec(graphId);
  if (!m) throw new RangeError(`unknown graph id ${graphId}`);
  return Number(m[1]);
}

export function open(files: SourceFile[]): FormatDocument {
  const main = files[0]!;
  const model = read(main.bytes, main.name);
  const summary = summarize(model, main.name);
  const graphs = new Map<string, Graph>();
  const graph = (id: string): Graph => {
    let g = graphs.get(id);
    if (!g) {
      g = toGraph(model, subgraphIndexOf(id));
      graphs.set(id, g);
    }
    return g;
  };
  // origins per subgraph (tables for subgraph 0, else synthesised), decoded on first use
  const originsBySubgraph = new Map<number, Origins>();
  const originsOfSubgraph = (sg: number): Origins => {
    let o = originsBySubgraph.get(sg);
    if (!o) {
      o = originsOf(model, sg, main.name);
      originsBySubgraph.set(sg, o);
    }
    return o;
  };
  let prepared: PreparedModel | null = null;
  const main0 = summary.graphs[0]?.stats ?? { nodes: 0, edges: 0 };
  return {
    summary: { ...summary, counts: { kind: 'graph', graphs: summary.graphs.length, nodes: main0.nodes, edges: main0.edges } },
    diagnostics: [],
    services: {
      graph: {
        graph,
        pack: (id) => toGraphPack(model, subgraphIndexOf(id)),
        nodeDetails(graphId: string, nodeIndex: number): NodeDetails {
          const g = graph(graphId);
          const node = g.nodes[nodeIndex];
          if (!node) throw new RangeError(`node ${nodeIndex} does not exist in ${graphId}`);
          const extra: { name: string; value: string }[] = [];
          if (node.kind === 'op') {
            const op = model.subgraphs[subgraphIndexOf(graphId)]!.operators[node.index]!;
            const oc = model.operatorCodes[op.opcodeIndex];
            extra.push({ name: 'operator index', value: String(node.index) });
            if (oc) {
              extra.push({ name: 'op code', value: `${builtinOperatorName(oc.code)} (${oc.code})` });
              extra.push({ name: 'op version', value: String(oc.version) });
              if (oc.customCode !== null) extra.push({ name: 'custom_code', value: oc.customCode });
            }
            if (op.builtinOptions) extra.push({ name: 'builtin_options', value: op.builtinOptions.name });
            if (op.builtinOptions2) extra.push({ name: 'builtin_options_2', value: op.builtinOptions2.name });
            if (subgraphIndexOf(graphId) === 0) {
              const origins = originsOfSubgraph(0);
              const ids = origins.ops[node.index] ?? [];
              const shown = ids.slice(0, 20).map((id) => `${id} ${sourceName(origins, id)}`);
              if (ids.length > 20) shown.push(`... ${ids.length - 20} more`);
              extra.push({ name: origins.kind === 'file' ? 'origins' : 'origins (synthesised)', value: ids.length ? shown.join(', ') : '(none)' });
            }
          } else {
            extra.push({ name: 'tensor index', value: String(node.index) });
          }
          return { node, extra };
        },
        tensorDetails: (graphId, tensor, valuesWidth) => tensorDetails(model, subgraphIndexOf(graphId), tensor, main.bytes, valuesWidth),
        tensorNpy: (graphId, tensor) => tensorNpy(model, subgraphIndexOf(graphId), tensor, main.bytes),
      },
      partition: {
        source: main,
        prepared() {
          if (model.subgraphs.length === 0) throw new FormatError({ kind: 'unsupported', file: main.name, message: 'the model has no subgraph to partition' });
          prepared ??= preparePartition(model, main.name);
          return prepared;
        },
      },
      origins: {
        origins: (graphId) => originsOfSubgraph(subgraphIndexOf(graphId)),
      },
      inspect: circleInspect(model, main.name, summary),
      optimize: {
        passes: () => [...PASS_NAMES],
        optimize(passes) {
          const result = optimize(model, passes, { file: main.name });
          const related = relatedOps(result.originsBefore, result.origins);
          return {
            file: { name: `${main.name.replace(/\.circle$/i, '')}.opt.circle`, bytes: write(result.model) },
            log: result.log,
            removed: result.removed,
            sourceToOptimized: related.aToB,
            optimizedToSource: related.bToA,
            graphId: 'sg:0',
          };
        },
      },
    },
  };
}

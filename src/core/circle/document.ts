/** Circle as an `OpenedDocument` for the worker and the CLI (registered in core/document.ts). */
import type { DocumentFormat, NodeDetails, OpenedDocument, SourceFile } from '../document';
import type { Graph } from '../graph/model';
import { detect, read } from './read';
import { summarize, toGraph } from './graph';
import { tensorDetails, type TensorDetails } from './values';
import { builtinOperatorName } from './names';
import { originsOf, sourceName, type Origins } from '../origin/origins';

function subgraphIndexOf(graphId: string): number {
  const m = /^sg:(\d+)$/.exec(graphId);
  if (!m) throw new RangeError(`unknown graph id ${graphId}`);
  return Number(m[1]);
}

export const circleFormat: DocumentFormat = {
  name: 'circle',
  detect(files: SourceFile[]): boolean {
    const main = files[0];
    return !!main && detect(main.bytes, main.name);
  },
  open(files: SourceFile[]): OpenedDocument {
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
    // origins of subgraph 0 (tables or synthesised), decoded on the first node that asks
    let origins: Origins | null = null;
    return {
      format: 'circle',
      circle: () => model,
      summary,
      diagnostics: [],
      graph,
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
            origins ??= originsOf(model, 0, main.name);
            const ids = origins.ops[node.index] ?? [];
            const shown = ids.slice(0, 20).map((id) => `${id} ${sourceName(origins!, id)}`);
            if (ids.length > 20) shown.push(`... ${ids.length - 20} more`);
            extra.push({ name: origins.kind === 'file' ? 'origins' : 'origins (synthesised)', value: ids.length ? shown.join(', ') : '(none)' });
          }
        } else {
          extra.push({ name: 'tensor index', value: String(node.index) });
        }
        return { node, extra };
      },
      tensorDetails(graphId: string, tensor: number): TensorDetails {
        return tensorDetails(model, subgraphIndexOf(graphId), tensor, main.bytes);
      },
    };
  },
};

/** Circle as an `OpenedDocument` for the worker and the CLI (registered in core/document.ts). */
import type { DocumentFormat, NodeDetails, OpenedDocument, SourceFile } from '../document';
import type { Graph } from '../graph/model';
import { detect, read } from './read';
import { summarize, toGraph } from './graph';
import { tensorDetails, type TensorDetails } from './values';
import { builtinOperatorName } from './names';

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
    return {
      format: 'circle',
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

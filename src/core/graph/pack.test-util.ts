/** Test support: everything a pack says, as plain data (two packs of one graph compare equal whatever their string ids). */
import { decodeStrings, packedNodeRows, unpackGraph, type GraphPack } from './pack';

export function packContents(p: GraphPack) {
  const strings = decodeStrings(p.strings);
  const graph = unpackGraph(p, strings);
  return {
    graph,
    rows: graph.nodes.map((_, i) => packedNodeRows(p, strings, i)),
    subgraphs: p.subgraphs,
  };
}

/**
 * A Graph packed for crossing worker boundaries: typed arrays only, so every hop is a transfer
 * (no per-object structured clone on either side). Strings are interned once into one table of
 * UTF-16 code units (`StringTable`); every text field is an index into it. At 100,000 operators a
 * structured clone of node objects, or even of plain string arrays, costs the receiving thread
 * hundreds of milliseconds in one task; the packed form costs a transfer, one TextDecoder call and
 * slices that can be spread over several tasks (`unpackGraphSliced`).
 *
 * The pack is "slim" with respect to the side panel: ports and most attributes stay in the model
 * worker (fetched on demand with nodeDetails). It carries what node boxes draw: the constant
 * inputs (`GraphNode.constants`) and the attributes marked `inNode`.
 */
import type { Graph, GraphAttribute, GraphConstant, GraphEdge, GraphNode, GraphStats, NodeCategory, NodeKind } from './model';

const KINDS: NodeKind[] = ['op', 'input', 'output', 'const'];
export const CATEGORIES: NodeCategory[] = [
  'Layer', 'Activation', 'Pool', 'Normalization', 'Dropout', 'Shape', 'Tensor', 'Transform', 'Data',
  'Quantization', 'Custom', 'Control', 'Input', 'Output', 'Constant', 'Other',
];
const CATEGORY_INDEX = new Map(CATEGORIES.map((c, i) => [c, i]));

/** Strings as UTF-16 code units: string i is codes[offsets[i] .. offsets[i + 1]). */
export interface StringTable {
  codes: Uint16Array;
  offsets: Uint32Array;
}

export interface GraphPack {
  id: string;
  name: string;
  stats: GraphStats;
  strings: StringTable;
  /** per node; text fields are string indices */
  nodeId: Uint32Array;
  kind: Uint8Array;
  type: Uint32Array;
  nodeName: Uint32Array;
  /** index into CATEGORIES */
  category: Uint8Array;
  index: Int32Array;
  /** string index of the node's group, -1 for none */
  group: Int32Array;
  /** nodes with subgraph references: [node index, graph ids] (few) */
  subgraphs: [number, string[]][];
  edgeFrom: Uint32Array;
  edgeTo: Uint32Array;
  edgeTensor: Int32Array;
  edgeName: Uint32Array;
  edgeLabel: Uint32Array;
  /** constants of node i: constStart[i] .. constStart[i + 1]; shape as text `8×1×1×8` ('' for a scalar) */
  constStart: Uint32Array;
  constName: Uint32Array;
  constShape: Uint32Array;
  constDtype: Uint32Array;
  /** a scalar's value text ('' for none) */
  constValue: Uint32Array;
  /** in-node attributes of node i: attrStart[i] .. attrStart[i + 1] */
  attrStart: Uint32Array;
  attrName: Uint32Array;
  attrValue: Uint32Array;
}

/** Builds a StringTable: `add` stores each distinct string once, `append` stores without looking. */
export class StringTableBuilder {
  private readonly ids = new Map<string, number>();
  private codes = new Uint16Array(1 << 16);
  private offsets = new Uint32Array(1024);
  /** entries of `offsets` in use (one more than the strings) */
  private count = 1;
  private used = 0;

  /** index of `s` in the table (added on first sight) */
  add(s: string): number {
    const id = this.ids.get(s);
    if (id !== undefined) return id;
    const added = this.append(s);
    this.ids.set(s, added);
    return added;
  }

  /**
   * Adds `s` without looking it up: for strings that are (nearly) unique, such as node ids and
   * names, where a hash lookup per string would cost more than the occasional duplicate stored.
   */
  append(s: string): number {
    const id = this.count - 1;
    const need = this.used + s.length;
    if (need > this.codes.length) {
      const grown = new Uint16Array(Math.max(need, this.codes.length * 2));
      grown.set(this.codes.subarray(0, this.used));
      this.codes = grown;
    }
    const c = this.codes;
    let at = this.used;
    for (let i = 0; i < s.length; i++) c[at++] = s.charCodeAt(i);
    this.used = at;
    if (this.count === this.offsets.length) {
      const grown = new Uint32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.count++] = at;
    return id;
  }

  get size(): number {
    return this.count - 1;
  }

  finish(): StringTable {
    return { codes: this.codes.slice(0, this.used), offsets: this.offsets.slice(0, this.count) };
  }
}

/** `8×1×1×8` for [8, 1, 1, 8]; `?` for an unknown (negative) dimension; '' for a scalar. */
export function shapeText(shape: readonly number[]): string {
  let s = '';
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i]!;
    s += (i ? '\u00d7' : '') + (d < 0 || !Number.isFinite(d) ? '?' : String(d));
  }
  return s;
}

function parseShapeText(text: string): number[] {
  if (!text) return [];
  return text.split('\u00d7').map((d) => (d === '?' ? -1 : Number(d)));
}

export function packGraph(graph: Graph): GraphPack {
  const n = graph.nodes.length;
  const m = graph.edges.length;
  const st = new StringTableBuilder();
  const nodeId = new Uint32Array(n);
  const kind = new Uint8Array(n);
  const type = new Uint32Array(n);
  const nodeName = new Uint32Array(n);
  const category = new Uint8Array(n);
  const index = new Int32Array(n);
  const group = new Int32Array(n);
  const subgraphs: [number, string[]][] = [];
  const constStart = new Uint32Array(n + 1);
  const attrStart = new Uint32Array(n + 1);
  let nc = 0;
  let na = 0;
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i]!;
    nc += node.constants?.length ?? 0;
    const attrs = node.attributes;
    for (let k = 0; k < attrs.length; k++) if (attrs[k]!.inNode) na++;
  }
  const constName = new Uint32Array(nc);
  const constShape = new Uint32Array(nc);
  const constDtype = new Uint32Array(nc);
  const constValue = new Uint32Array(nc);
  const attrName = new Uint32Array(na);
  const attrValue = new Uint32Array(na);
  let c = 0;
  let a = 0;
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i]!;
    nodeId[i] = st.append(node.id);
    kind[i] = Math.max(0, KINDS.indexOf(node.kind));
    type[i] = st.add(node.type);
    nodeName[i] = st.append(node.name);
    category[i] = CATEGORY_INDEX.get(node.category) ?? CATEGORY_INDEX.get('Other')!;
    index[i] = node.index;
    group[i] = node.group === undefined ? -1 : st.add(node.group);
    if (node.subgraphs?.length) subgraphs.push([i, node.subgraphs]);
    const cs = node.constants;
    if (cs) {
      for (let k = 0; k < cs.length; k++) {
        const x = cs[k]!;
        constName[c] = st.add(x.name);
        constShape[c] = st.add(shapeText(x.shape));
        constDtype[c] = st.add(x.dtype);
        constValue[c] = st.add(x.value ?? '');
        c++;
      }
    }
    constStart[i + 1] = c;
    const attrs = node.attributes;
    for (let k = 0; k < attrs.length; k++) {
      const x = attrs[k]!;
      if (!x.inNode) continue;
      attrName[a] = st.add(x.name);
      attrValue[a] = st.add(x.value);
      a++;
    }
    attrStart[i + 1] = a;
  }
  const edgeFrom = new Uint32Array(m);
  const edgeTo = new Uint32Array(m);
  const edgeTensor = new Int32Array(m);
  const edgeName = new Uint32Array(m);
  const edgeLabel = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const edge = graph.edges[e]!;
    edgeFrom[e] = edge.from;
    edgeTo[e] = edge.to;
    edgeTensor[e] = edge.tensor;
    // an edge is mostly named as its source node (a tensor named as the op that makes it): share that string
    const src = graph.nodes[edge.from];
    edgeName[e] = src && src.name === edge.name ? nodeName[edge.from]! : st.add(edge.name);
    edgeLabel[e] = st.add(edge.label);
  }
  return {
    id: graph.id,
    name: graph.name,
    stats: graph.stats,
    strings: st.finish(),
    nodeId, kind, type, nodeName, category, index, group, subgraphs,
    edgeFrom, edgeTo, edgeTensor, edgeName, edgeLabel,
    constStart, constName, constShape, constDtype, constValue,
    attrStart, attrName, attrValue,
  };
}

/**
 * Every string of the table. One TextDecoder call decodes all code units into one string, then
 * each entry is a slice of it (lengths in code units are preserved: a lone surrogate, which no
 * format reader produces, would read back as U+FFFD).
 */
export function decodeStrings(t: StringTable): string[] {
  const out: string[] = new Array<string>(t.offsets.length - 1);
  const all = decodeAll(t);
  for (let i = 0; i < out.length; i++) out[i] = all.slice(t.offsets[i]!, t.offsets[i + 1]!);
  return out;
}

function decodeAll(t: StringTable): string {
  return new TextDecoder('utf-16le').decode(t.codes);
}

/** A function that lets other work run (e.g. a zero-delay timeout); unpacking calls it between slices. */
export type Yield = () => Promise<void>;

/** Items per slice of `unpackGraphSliced`: a few milliseconds of work each on a slow machine. */
const SLICE = 10_000;

/**
 * The slim graph's nodes share these (frozen: no caller may fill a slim node's ports or
 * attributes); 300,000 empty arrays fewer to allocate and collect at 100,000 operators.
 */
const NO_PORTS: GraphNode['inputs'] = Object.freeze([]) as unknown as GraphNode['inputs'];
const NO_ATTRIBUTES: GraphNode['attributes'] = Object.freeze([]) as unknown as GraphNode['attributes'];

/** The slim Graph back (ports, attributes and constants left out; see `packedNodeRows`). */
export function unpackGraph(p: GraphPack, strings: readonly string[] = decodeStrings(p.strings)): Graph {
  const g = startGraph(p);
  fillNodes(p, strings, g.nodes, 0, g.nodes.length);
  fillEdges(p, strings, g.edges, 0, g.edges.length);
  return g;
}

/**
 * `unpackGraph` in slices, calling `yieldTo` between them so that no single task of the calling
 * thread is long (the UI thread's budget is 50 ms). Returns the graph and the decoded strings.
 */
export async function unpackGraphSliced(p: GraphPack, yieldTo: Yield): Promise<{ graph: Graph; strings: string[] }> {
  const all = decodeAll(p.strings);
  const offs = p.strings.offsets;
  const strings: string[] = new Array<string>(offs.length - 1);
  for (let i = 0; i < strings.length; i += SLICE) {
    const end = Math.min(strings.length, i + SLICE);
    for (let k = i; k < end; k++) strings[k] = all.slice(offs[k]!, offs[k + 1]!);
    await yieldTo();
  }
  const g = startGraph(p);
  for (let i = 0; i < g.nodes.length; i += SLICE) {
    fillNodes(p, strings, g.nodes, i, Math.min(g.nodes.length, i + SLICE));
    await yieldTo();
  }
  for (let e = 0; e < g.edges.length; e += SLICE) {
    fillEdges(p, strings, g.edges, e, Math.min(g.edges.length, e + SLICE));
    await yieldTo();
  }
  return { graph: g, strings };
}

function startGraph(p: GraphPack): Graph {
  return {
    id: p.id,
    name: p.name,
    nodes: new Array<GraphNode>(p.nodeId.length),
    edges: new Array<GraphEdge>(p.edgeFrom.length),
    stats: p.stats,
  };
}

function fillNodes(p: GraphPack, s: readonly string[], nodes: GraphNode[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const node: GraphNode = {
      id: s[p.nodeId[i]!]!,
      kind: KINDS[p.kind[i]!] ?? 'op',
      type: s[p.type[i]!]!,
      name: s[p.nodeName[i]!]!,
      category: CATEGORIES[p.category[i]!] ?? 'Other',
      index: p.index[i]!,
      inputs: NO_PORTS,
      outputs: NO_PORTS,
      attributes: NO_ATTRIBUTES,
    };
    if (p.group[i]! >= 0) node.group = s[p.group[i]!]!;
    nodes[i] = node;
  }
  for (const [i, ids] of p.subgraphs) if (i >= from && i < to) nodes[i]!.subgraphs = ids;
}

function fillEdges(p: GraphPack, s: readonly string[], edges: GraphEdge[], from: number, to: number): void {
  for (let e = from; e < to; e++) {
    edges[e] = { from: p.edgeFrom[e]!, to: p.edgeTo[e]!, tensor: p.edgeTensor[e]!, name: s[p.edgeName[e]!]!, label: s[p.edgeLabel[e]!]! };
  }
}

/** The constant inputs and in-node attributes of node i, read back from the pack. */
export function packedNodeRows(p: GraphPack, strings: readonly string[], i: number): { constants: GraphConstant[]; attributes: GraphAttribute[] } {
  const constants: GraphConstant[] = [];
  for (let c = p.constStart[i]!; c < p.constStart[i + 1]!; c++) {
    const x: GraphConstant = { name: strings[p.constName[c]!]!, shape: parseShapeText(strings[p.constShape[c]!]!), dtype: strings[p.constDtype[c]!]! };
    const value = strings[p.constValue[c]!]!;
    if (value) x.value = value;
    constants.push(x);
  }
  const attributes: GraphAttribute[] = [];
  for (let a = p.attrStart[i]!; a < p.attrStart[i + 1]!; a++) {
    attributes.push({ name: strings[p.attrName[a]!]!, value: strings[p.attrValue[a]!]!, inNode: true });
  }
  return { constants, attributes };
}

/** The typed arrays of a pack (each distinct buffer once), for a transfer list. */
export function packBuffers(p: GraphPack): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [
    p.strings.codes, p.strings.offsets, p.nodeId, p.kind, p.type, p.nodeName, p.category, p.index, p.group,
    p.edgeFrom, p.edgeTo, p.edgeTensor, p.edgeName, p.edgeLabel,
    p.constStart, p.constName, p.constShape, p.constDtype, p.constValue, p.attrStart, p.attrName, p.attrValue,
  ];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** A copy with its own buffers (one to keep, one to transfer away). */
export function copyPack(p: GraphPack): GraphPack {
  return {
    ...p,
    strings: { codes: p.strings.codes.slice(), offsets: p.strings.offsets.slice() },
    nodeId: p.nodeId.slice(), kind: p.kind.slice(), type: p.type.slice(), nodeName: p.nodeName.slice(),
    category: p.category.slice(), index: p.index.slice(), group: p.group.slice(),
    subgraphs: p.subgraphs.map(([i, ids]) => [i, [...ids]]),
    edgeFrom: p.edgeFrom.slice(), edgeTo: p.edgeTo.slice(), edgeTensor: p.edgeTensor.slice(), edgeName: p.edgeName.slice(), edgeLabel: p.edgeLabel.slice(),
    constStart: p.constStart.slice(), constName: p.constName.slice(), constShape: p.constShape.slice(), constDtype: p.constDtype.slice(), constValue: p.constValue.slice(),
    attrStart: p.attrStart.slice(), attrName: p.attrName.slice(), attrValue: p.attrValue.slice(),
  };
}

/**
 * A Graph packed for crossing worker boundaries: typed arrays only, so every hop is a transfer
 * (no per-object structured clone on either side). Strings are interned once into one table
 * (`StringTable`, UTF-8); every text field is an index into it. At 100,000 operators a
 * structured clone of node objects, or even of plain string arrays, costs the receiving thread
 * hundreds of milliseconds in one task; the packed form costs a transfer, one TextDecoder call and
 * slices that can be spread over several tasks (`unpackGraphSliced`).
 *
 * The pack is "slim" with respect to the side panel: ports and most attributes stay in the model
 * worker (fetched on demand with nodeDetails). It carries what node boxes draw: the constant
 * inputs (`GraphNode.constants`) and the attributes marked `inNode`.
 */
import type { ChainedLayer, Graph, GraphAttribute, GraphConstant, GraphEdge, GraphNode, GraphStats, NodeCategory, NodeKind } from './model';

export const KINDS: NodeKind[] = ['op', 'input', 'output', 'const'];
export const CATEGORIES: NodeCategory[] = [
  'Layer', 'Activation', 'Pool', 'Normalization', 'Dropout', 'Shape', 'Tensor', 'Transform', 'Data',
  'Quantization', 'Custom', 'Control', 'Input', 'Output', 'Constant', 'Other',
];
const CATEGORY_INDEX = new Map(CATEGORIES.map((c, i) => [c, i]));
/** the index of a node kind in KINDS, as a pack stores it (0 for an unknown one) */
export function kindIndex(kind: NodeKind): number {
  return Math.max(0, KINDS.indexOf(kind));
}
/** the index of a category in CATEGORIES, as a pack stores it ('Other' for an unknown one) */
export function categoryIndex(category: NodeCategory): number {
  return CATEGORY_INDEX.get(category) ?? CATEGORY_INDEX.get('Other')!;
}

/**
 * Strings as one UTF-8 text: decoded, string i is the code units offsets[i] .. offsets[i + 1] of
 * it (offsets count UTF-16 code units, as JavaScript strings do). UTF-8 because the browser's
 * encoder and decoder are fast for it (ASCII names above all), several times faster than any
 * per-character copy or a UTF-16 TextDecoder. A lone surrogate, which no format reader produces,
 * reads back as U+FFFD: one code unit for one, so the offsets stay true.
 */
export interface StringTable {
  utf8: Uint8Array;
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
  /** nodes with layers drawn inside their box (GraphNode.chain): [node index, layers] (few) */
  chains: [number, ChainedLayer[]][];
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

/**
 * Builds a StringTable: `add` stores each distinct string once, `append` stores without looking.
 * Each string is written as UTF-8 when it is stored (ASCII, the common case, a byte per code
 * unit in JavaScript; the rest of a string from its first other character by the native
 * encoder), so no list of the strings is kept for a join at the end: at 100,000 operators that
 * list (200,000 strings, each kept alive and stored into an old array) and its join cost more than
 * the encoding. Each string is encoded on its own: a lone surrogate, which no format reader
 * produces, becomes U+FFFD (one code unit for one, so the offsets stay true).
 */
export class StringTableBuilder {
  private readonly ids = new Map<string, number>();
  private count = 0;
  private offsets: Uint32Array;
  private used = 0;
  private bytes: Uint8Array;
  private written = 0;

  /** capacity hints (the table grows past them): strings, UTF-8 bytes */
  constructor(strings = 1023, bytes = 1 << 16) {
    this.offsets = new Uint32Array(Math.max(1, strings) + 1);
    this.bytes = new Uint8Array(Math.max(16, bytes));
  }

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
    const id = this.count++;
    if (id + 1 === this.offsets.length) {
      const grown = new Uint32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.used += s.length;
    this.offsets[id + 1] = this.used;
    this.write(s);
    return id;
  }

  /**
   * `append(prefix + String(n))` for an integer n >= 0 (node ids `op:12`) without making the
   * string: the prefix as `append` writes it, then the digits.
   */
  appendNumbered(prefix: string, n: number): number {
    if (!(Number.isSafeInteger(n) && n >= 0)) return this.append(`${prefix}${n}`);
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    const id = this.count++;
    if (id + 1 === this.offsets.length) {
      const grown = new Uint32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.used += prefix.length + digits;
    this.offsets[id + 1] = this.used;
    this.write(prefix);
    this.reserve(digits);
    const b = this.bytes;
    let at = this.written + digits;
    this.written = at;
    for (let x = n; ; ) {
      const q = Math.floor(x / 10);
      b[--at] = 0x30 + (x - 10 * q);
      if (q === 0) break;
      x = q;
    }
    return id;
  }

  /** room for `n` more bytes */
  private reserve(n: number): void {
    if (this.written + n > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.written + n));
      grown.set(this.bytes.subarray(0, this.written));
      this.bytes = grown;
    }
  }

  private write(s: string): void {
    const n = s.length;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit
    this.reserve(3 * n);
    const b = this.bytes;
    let at = this.written;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        at += ENCODER.encodeInto(i === 0 ? s : s.slice(i), b.subarray(at)).written;
        break;
      }
      b[at++] = c;
    }
    this.written = at;
  }

  get size(): number {
    return this.count;
  }

  finish(): StringTable {
    return { utf8: this.bytes.slice(0, this.written), offsets: this.offsets.slice(0, this.count + 1) };
  }
}

const ENCODER = new TextEncoder();

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

/**
 * A typed array that grows by doubling (the pack's columns while they are written). One class per
 * element type, so that every `push` site sees one array kind (a shared generic class made the
 * stores polymorphic, a measurable part of packing 100,000 operators).
 */
class U32Column {
  length = 0;
  constructor(private data: Uint32Array) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(Math.max(16, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  at(i: number): number {
    return this.data[i]!;
  }
  /** sets an entry already written (i < length) */
  set(i: number, v: number): void {
    this.data[i] = v;
  }
  /** the written part (the array itself when its capacity was exact, else a copy of that part) */
  finish(): Uint32Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}
class I32Column {
  length = 0;
  constructor(private data: Int32Array) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(Math.max(16, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  finish(): Int32Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}
class U8Column {
  length = 0;
  constructor(private data: Uint8Array) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint8Array(Math.max(16, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  finish(): Uint8Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}
const u8 = (n: number) => new U8Column(new Uint8Array(n));
const i32 = (n: number) => new I32Column(new Int32Array(n));
const u32 = (n: number) => new U32Column(new Uint32Array(n));

/**
 * Writes a GraphPack node by node and edge by edge, without a Graph in between: `packGraph` uses
 * it for a Graph, and a format may use it to pack its model directly (circle: `toGraphPack`), which
 * at 100,000 operators saves building and collecting several hundred thousand objects. Constants
 * and attributes belong to the node added last. Capacities are hints; every column grows.
 */
export class PackBuilder {
  readonly strings: StringTableBuilder;
  private readonly nodeId: U32Column;
  private readonly kind: U8Column;
  private readonly type: U32Column;
  private readonly nodeName: U32Column;
  private readonly category: U8Column;
  private readonly index: I32Column;
  private readonly group: I32Column;
  private readonly subgraphs: [number, string[]][] = [];
  private readonly chains: [number, ChainedLayer[]][] = [];
  private readonly constStart: U32Column;
  private readonly constName: U32Column;
  private readonly constShape: U32Column;
  private readonly constDtype: U32Column;
  private readonly constValue: U32Column;
  private readonly attrStart: U32Column;
  private readonly attrName: U32Column;
  private readonly attrValue: U32Column;
  private readonly edgeFrom: U32Column;
  private readonly edgeTo: U32Column;
  private readonly edgeTensor: I32Column;
  private readonly edgeName: U32Column;
  private readonly edgeLabel: U32Column;

  /**
   * Capacity hints (every column grows past them; a column filled exactly to its capacity is
   * returned by `finish` without a copy): `rows` for the constants, `attributeRows` for the
   * in-node attributes, `strings` and `stringBytes` for the string table.
   */
  constructor(nodes = 16, edges = 16, rows = 16, attributeRows = rows, strings?: number, stringBytes?: number) {
    this.strings = new StringTableBuilder(strings, stringBytes);
    this.constName = u32(rows);
    this.constShape = u32(rows);
    this.constDtype = u32(rows);
    this.constValue = u32(rows);
    this.attrName = u32(attributeRows);
    this.attrValue = u32(attributeRows);
    this.nodeId = u32(nodes);
    this.kind = u8(nodes);
    this.type = u32(nodes);
    this.nodeName = u32(nodes);
    this.category = u8(nodes);
    this.index = i32(nodes);
    this.group = i32(nodes);
    this.constStart = u32(nodes + 1);
    this.attrStart = u32(nodes + 1);
    this.constStart.push(0);
    this.attrStart.push(0);
    this.edgeFrom = u32(edges);
    this.edgeTo = u32(edges);
    this.edgeTensor = i32(edges);
    this.edgeName = u32(edges);
    this.edgeLabel = u32(edges);
  }

  get nodeCount(): number {
    return this.kind.length;
  }

  /**
   * Adds a node; its texts are string ids of `strings` (`add` for repeated texts such as types,
   * `append` for unique ones such as ids and names). Returns its index.
   */
  node(id: number, kind: NodeKind, type: number, name: number, category: NodeCategory, index: number, group = -1): number {
    return this.nodeIndexed(id, kindIndex(kind), type, name, categoryIndex(category), index, group);
  }

  /** `node` with the kind and category as `kindIndex` and `categoryIndex` give them (looked up once by the caller) */
  nodeIndexed(id: number, kind: number, type: number, name: number, category: number, index: number, group = -1): number {
    const i = this.kind.length;
    this.nodeId.push(id);
    this.kind.push(kind);
    this.type.push(type);
    this.nodeName.push(name);
    this.category.push(category);
    this.index.push(index);
    this.group.push(group);
    this.constStart.push(this.constName.length);
    this.attrStart.push(this.attrName.length);
    return i;
  }

  /** the name string id of node i (an edge named as its source shares it) */
  nameOf(i: number): number {
    return this.nodeName.at(i);
  }

  /** a constant input of the node added last; shape as `shapeText` gives it, value '' for none */
  constant(name: number, shape: number, dtype: number, value: number): void {
    this.constName.push(name);
    this.constShape.push(shape);
    this.constDtype.push(dtype);
    this.constValue.push(value);
    this.constStart.set(this.kind.length, this.constName.length);
  }

  /** an in-node attribute of the node added last */
  attribute(name: number, value: number): void {
    this.attrName.push(name);
    this.attrValue.push(value);
    this.attrStart.set(this.kind.length, this.attrName.length);
  }

  subgraphRefs(node: number, graphIds: string[]): void {
    if (graphIds.length) this.subgraphs.push([node, graphIds]);
  }

  /** layers drawn inside the box of `node` (GraphNode.chain) */
  chain(node: number, layers: ChainedLayer[]): void {
    if (layers.length) this.chains.push([node, layers]);
  }

  edge(from: number, to: number, tensor: number, name: number, label: number): void {
    this.edgeFrom.push(from);
    this.edgeTo.push(to);
    this.edgeTensor.push(tensor);
    this.edgeName.push(name);
    this.edgeLabel.push(label);
  }

  finish(id: string, name: string, stats: GraphStats): GraphPack {
    return {
      id, name, stats,
      strings: this.strings.finish(),
      nodeId: this.nodeId.finish(), kind: this.kind.finish(), type: this.type.finish(), nodeName: this.nodeName.finish(),
      category: this.category.finish(), index: this.index.finish(), group: this.group.finish(), subgraphs: this.subgraphs, chains: this.chains,
      edgeFrom: this.edgeFrom.finish(), edgeTo: this.edgeTo.finish(), edgeTensor: this.edgeTensor.finish(), edgeName: this.edgeName.finish(), edgeLabel: this.edgeLabel.finish(),
      constStart: this.constStart.finish(), constName: this.constName.finish(), constShape: this.constShape.finish(), constDtype: this.constDtype.finish(), constValue: this.constValue.finish(),
      attrStart: this.attrStart.finish(), attrName: this.attrName.finish(), attrValue: this.attrValue.finish(),
    };
  }
}

export function packGraph(graph: Graph): GraphPack {
  const b = new PackBuilder(graph.nodes.length, graph.edges.length);
  const st = b.strings;
  for (let i = 0; i < graph.nodes.length; i++) {
    const node = graph.nodes[i]!;
    b.node(st.append(node.id), node.kind, st.add(node.type), st.append(node.name), node.category, node.index, node.group === undefined ? -1 : st.add(node.group));
    if (node.subgraphs?.length) b.subgraphRefs(i, node.subgraphs);
    if (node.chain?.length) b.chain(i, node.chain);
    const cs = node.constants;
    if (cs) for (const x of cs) b.constant(st.add(x.name), st.add(shapeText(x.shape)), st.add(x.dtype), st.add(x.value ?? ''));
    for (const x of node.attributes) if (x.inNode) b.attribute(st.add(x.name), st.add(x.value));
  }
  for (const edge of graph.edges) {
    // an edge is mostly named as its source node (a tensor named as the op that makes it): share that string
    const src = graph.nodes[edge.from];
    b.edge(edge.from, edge.to, edge.tensor, src && src.name === edge.name ? b.nameOf(edge.from) : st.add(edge.name), st.add(edge.label));
  }
  return b.finish(graph.id, graph.name, graph.stats);
}

/**
 * Every string of the table. One TextDecoder call decodes the whole text into one string, then
 * each entry is a slice of it (lengths in code units are preserved: a lone surrogate, which no
 * format reader produces, would read back as U+FFFD).
 */
export function decodeStrings(t: StringTable): string[] {
  const out: string[] = new Array<string>(t.offsets.length - 1);
  const all = decodeAll(t);
  for (let i = 0; i < out.length; i++) out[i] = all.slice(t.offsets[i]!, t.offsets[i + 1]!);
  return out;
}

/** UTF-8 bytes decoded per slice of `decodeStringsSliced` (a few milliseconds of work). */
const DECODE_SLICE_BYTES = 1 << 16;

/**
 * `decodeStrings` in slices: the text is decoded a piece at a time (a streaming TextDecoder, so a
 * character split between two pieces comes out whole) and every string that ends inside the text
 * decoded so far is cut from it, with `yieldTo` between pieces. At 100,000 operators decoding the
 * whole table in one call was a 50 ms task of its own.
 */
export async function decodeStringsSliced(t: StringTable, yieldTo: Yield, sliceBytes = DECODE_SLICE_BYTES): Promise<string[]> {
  const count = t.offsets.length - 1;
  const out: string[] = new Array<string>(count);
  const offs = t.offsets;
  const decoder = new TextDecoder();
  let text = '';
  /** code-unit offset of text[0] in the whole decoded table */
  let base = 0;
  let next = 0;
  for (let at = 0; at < t.utf8.length || next < count; at += sliceBytes) {
    const end = Math.min(t.utf8.length, at + sliceBytes);
    text += decoder.decode(t.utf8.subarray(at, end), { stream: end < t.utf8.length });
    const upTo = base + text.length;
    let k = next;
    while (k < count && offs[k + 1]! <= upTo) {
      out[k] = text.slice(offs[k]! - base, offs[k + 1]! - base);
      k++;
    }
    if (k === next && end >= t.utf8.length) {
      // no text left to decode: what remains of the offsets points past it (read back as '')
      for (; k < count; k++) out[k] = text.slice(Math.max(0, offs[k]! - base), Math.max(0, offs[k + 1]! - base));
    }
    next = k;
    if (next < count) {
      // keep the unfinished string's start; drop what every later string starts after
      const keep = Math.max(0, offs[next]! - base);
      text = text.slice(keep);
      base += keep;
    }
    await yieldTo();
  }
  return out;
}

function decodeAll(t: StringTable): string {
  return new TextDecoder().decode(t.utf8);
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
  const strings = await decodeStringsSliced(p.strings, yieldTo);
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

/**
 * Node i of the slim graph (no ports or attributes; its `subgraphs` and `chain`, kept in the
 * pack's sparse lists, are for the caller to add). `unpackGraph` and `packedGraph` both make
 * their nodes here.
 */
export function packedNode(p: GraphPack, s: readonly string[], i: number): GraphNode {
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
  return node;
}

/** Edge e of the slim graph (`unpackGraph` and `packedGraph` both make their edges here). */
export function packedEdge(p: GraphPack, s: readonly string[], e: number): GraphEdge {
  return { from: p.edgeFrom[e]!, to: p.edgeTo[e]!, tensor: p.edgeTensor[e]!, name: s[p.edgeName[e]!]!, label: s[p.edgeLabel[e]!]! };
}

function fillNodes(p: GraphPack, s: readonly string[], nodes: GraphNode[], from: number, to: number): void {
  for (let i = from; i < to; i++) nodes[i] = packedNode(p, s, i);
  for (const [i, ids] of p.subgraphs) if (i >= from && i < to) nodes[i]!.subgraphs = ids;
  for (const [i, layers] of p.chains) if (i >= from && i < to) nodes[i]!.chain = layers;
}

function fillEdges(p: GraphPack, s: readonly string[], edges: GraphEdge[], from: number, to: number): void {
  for (let e = from; e < to; e++) edges[e] = packedEdge(p, s, e);
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
    p.strings.utf8, p.strings.offsets, p.nodeId, p.kind, p.type, p.nodeName, p.category, p.index, p.group,
    p.edgeFrom, p.edgeTo, p.edgeTensor, p.edgeName, p.edgeLabel,
    p.constStart, p.constName, p.constShape, p.constDtype, p.constValue, p.attrStart, p.attrName, p.attrValue,
  ];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** A copy with its own buffers (one to keep, one to transfer away). */
export function copyPack(p: GraphPack): GraphPack {
  return {
    ...p,
    strings: { utf8: p.strings.utf8.slice(), offsets: p.strings.offsets.slice() },
    nodeId: p.nodeId.slice(), kind: p.kind.slice(), type: p.type.slice(), nodeName: p.nodeName.slice(),
    category: p.category.slice(), index: p.index.slice(), group: p.group.slice(),
    subgraphs: p.subgraphs.map(([i, ids]) => [i, [...ids]]),
    chains: p.chains.map(([i, layers]) => [i, layers.map((l) => ({ ...l }))]),
    edgeFrom: p.edgeFrom.slice(), edgeTo: p.edgeTo.slice(), edgeTensor: p.edgeTensor.slice(), edgeName: p.edgeName.slice(), edgeLabel: p.edgeLabel.slice(),
    constStart: p.constStart.slice(), constName: p.constName.slice(), constShape: p.constShape.slice(), constDtype: p.constDtype.slice(), constValue: p.constValue.slice(),
    attrStart: p.attrStart.slice(), attrName: p.attrName.slice(), attrValue: p.attrValue.slice(),
  };
}

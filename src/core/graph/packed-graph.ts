/**
 * A GraphPack read on demand: the slim Graph `unpackGraph` gives, whose nodes, edges and strings
 * are made from the pack's typed arrays when first read, instead of all at once.
 *
 * Why: the UI thread reads a few thousand nodes of a 100,000-operator graph at a time (the ones on
 * screen, the selection, a find result), but unpacking made 100,000 node objects, 133,334 edge
 * objects and 200,000 strings that all survive: the garbage collector copied and marked them in
 * pauses of 70-300 ms on the UI thread, longer than a frame budget and than the 50 ms a task may
 * take. Here the pack's text is decoded once into one string (in slices, `readPackedGraphSliced`)
 * and the rest stays typed arrays until asked for.
 *
 * The Graph keeps its type (`nodes: GraphNode[]`): `nodes`, `edges` and `strings` are arrays
 * behind a Proxy that makes element i on first read (nodes and edges are kept once made, so a
 * node read twice is the same object; a string is cut from the text once). Indexing, length,
 * iteration, spread and the Array methods (map, forEach, filter, some, includes...) work as on an
 * array. Nothing may write into them (as with the slim graph's frozen ports and attributes).
 */
import type { Graph, GraphEdge, GraphNode } from './model';
import { packedEdge, packedNode, type GraphPack, type StringTable, type Yield } from './pack';

/** UTF-8 bytes decoded per slice of `decodePackTextSliced` (about a millisecond of work). */
const TEXT_SLICE_BYTES = 1 << 18;

/**
 * The whole text of a string table as one string, decoded a slice at a time (a streaming
 * TextDecoder: a character split between two slices comes out whole) with `yieldTo` between
 * slices. String i is `text.slice(offsets[i], offsets[i + 1])`, as `decodeStrings` cuts it.
 */
export async function decodePackTextSliced(t: StringTable, yieldTo: Yield, sliceBytes = TEXT_SLICE_BYTES): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for (let at = 0; at < t.utf8.length; at += sliceBytes) {
    const end = Math.min(t.utf8.length, at + sliceBytes);
    parts.push(decoder.decode(t.utf8.subarray(at, end), { stream: end < t.utf8.length }));
    await yieldTo();
  }
  return parts.join('');
}

/** The index a property key names (`'12'` -> 12), or -1 for any other key. */
function indexKey(key: string | symbol): number {
  if (typeof key !== 'string' || key.length === 0) return -1;
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  // (an index key from V8 carries its number: no string is made to check it)
  const i = Number(key);
  return Number.isInteger(i) ? i : -1;
}

/**
 * A read-only array of `count` elements whose element i is `make(i)`, made on first read and
 * kept (an array behind a Proxy: the target holds the elements made so far).
 */
function lazyArray<T>(count: number, make: (i: number) => T): T[] {
  const target = new Array<T>(count);
  const element = (i: number): T => {
    let v = target[i];
    if (v === undefined) target[i] = v = make(i);
    return v;
  };
  return new Proxy(target, {
    get(t, key, receiver) {
      const i = indexKey(key);
      if (i < 0) return Reflect.get(t, key, receiver) as unknown;
      return i < count ? element(i) : undefined;
    },
    has(t, key) {
      const i = indexKey(key);
      return i < 0 ? Reflect.has(t, key) : i < count;
    },
    getOwnPropertyDescriptor(t, key) {
      const i = indexKey(key);
      if (i < 0 || i >= count) return Reflect.getOwnPropertyDescriptor(t, key);
      return { value: element(i), writable: false, enumerable: true, configurable: true };
    },
    ownKeys(t) {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < count; i++) keys.push(String(i));
      for (const k of Reflect.ownKeys(t)) if (indexKey(k) < 0) keys.push(k);
      return keys;
    },
    // read-only: an assignment throws (strict mode), as writing into a frozen array does
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
}

/** The strings of a table read from its decoded text (`decodePackTextSliced`): string i is cut when first read. */
export function packStrings(t: StringTable, text: string): readonly string[] {
  const offs = t.offsets;
  // kept once cut: the renderer reads the texts on screen every frame
  return lazyArray(Math.max(0, offs.length - 1), (i) => text.slice(offs[i]!, offs[i + 1]!));
}

/** the pack a `packedGraph` was read from */
const packs = new WeakMap<Graph, GraphPack>();

/**
 * The pack behind a Graph `packedGraph` made (undefined for any other Graph): loops over many
 * edges or nodes read its typed arrays (`edgeFrom`, `edgeTo`, `kind`...) instead of making the
 * objects.
 */
export function packOf(graph: Graph): GraphPack | undefined {
  return packs.get(graph);
}

/**
 * The slim Graph of a pack (what `unpackGraph` gives: no ports, attributes or constants; see
 * `packedNodeRows`), its nodes and edges made as they are read. `strings` is the pack's string
 * table decoded (`packStrings`, or `decodeStrings`).
 */
export function packedGraph(p: GraphPack, strings: readonly string[]): Graph {
  const subgraphs = new Map(p.subgraphs);
  const chains = new Map(p.chains);
  const node = (i: number): GraphNode => {
    const n = packedNode(p, strings, i);
    const s = subgraphs.get(i);
    if (s) n.subgraphs = s;
    const c = chains.get(i);
    if (c) n.chain = c;
    return n;
  };
  const edge = (e: number): GraphEdge => packedEdge(p, strings, e);
  const graph: Graph = {
    id: p.id,
    name: p.name,
    nodes: lazyArray(p.nodeId.length, node),
    edges: lazyArray(p.edgeFrom.length, edge),
    stats: p.stats,
  };
  packs.set(graph, p);
  return graph;
}

/**
 * The pack's slim Graph and its strings, read on demand (`packedGraph`, `packStrings`): the only
 * work up front is decoding the text, in slices with `yieldTo` between them.
 */
export async function readPackedGraphSliced(p: GraphPack, yieldTo: Yield): Promise<{ graph: Graph; strings: readonly string[] }> {
  const strings = packStrings(p.strings, await decodePackTextSliced(p.strings, yieldTo));
  return { graph: packedGraph(p, strings), strings };
}

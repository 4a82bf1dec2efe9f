/**
 * Circle model -> the shared `Graph` (one per subgraph) and the `ModelSummary` of the model panel.
 * Works on structure only: buffer bytes are never read (metadata previews read at most 256 bytes
 * of a metadata entry), so a 100 MB model summarises as fast as a 100 kB one.
 */
import { float32Text, float64Text } from '../tensor-text';
import type { Graph, GraphAttribute, GraphConstant, GraphEdge, GraphInfo, GraphNode, GraphPort, GraphStats, ModelSummary } from '../graph/model';
import { operatorCategory } from './categories';
import type { CircleBuffer, CircleModel, CircleSubGraph, CircleTensor, OptionTable, OptionValue, UnionValue } from './model';
import { builtinOperatorName, dtypeName, enumValueName, operatorType, tensorTypeString } from './names';
import { CIRCLE_SCHEMA } from './schema-table';
import type { SchemaField } from './fbs-schema';
import { PackBuilder, categoryIndex, kindIndex, shapeText, type GraphPack, type StringTableBuilder } from '../graph/pack';
import { readFloat16LE } from '../fp16';

const CUSTOM = 32;

/** Graph id of a subgraph: `sg:<index>`. */
export function graphId(subgraphIndex: number): string {
  return `sg:${subgraphIndex}`;
}

export function subgraphName(model: CircleModel, index: number): string {
  const name = model.subgraphs[index]?.name;
  return name ? name : index === 0 ? 'main' : `subgraph ${index}`;
}

export function bufferHasData(b: CircleBuffer | undefined): boolean {
  return !!b && ((b.data !== null && b.data.length > 0) || (b.offset > 1 && b.size > 0));
}

/** Byte size of a buffer's contents, inline or external. */
export function bufferSize(b: CircleBuffer | undefined): number {
  if (!b) return 0;
  if (b.data && b.data.length) return b.data.length;
  return b.offset > 1 ? b.size : 0;
}

/** Port role names of the common ops (Netron's metadata names); others are numbered. */
const INPUT_ROLES: Record<string, string[]> = {
  CONV_2D: ['input', 'filter', 'bias'],
  DEPTHWISE_CONV_2D: ['input', 'filter', 'bias'],
  CONV_3D: ['input', 'filter', 'bias'],
  FULLY_CONNECTED: ['input', 'weights', 'bias'],
  TRANSPOSE_CONV: ['output_shape', 'weights', 'input', 'bias'],
  INSTANCE_NORM: ['input', 'gamma', 'beta'],
  PRELU: ['input', 'alpha'],
  RESHAPE: ['tensor', 'shape'],
  IF: ['cond'],
  ARG_MAX: ['input', 'dimension'],
  ARG_MIN: ['input', 'dimension'],
  EXPAND_DIMS: ['input', 'axis'],
  FILL: ['dims', 'value'],
  GATHER: ['input', 'positions'],
  MEAN: ['input', 'axis'],
  SUM: ['input', 'axis'],
  REDUCE_MAX: ['input', 'axis'],
  REDUCE_MIN: ['input', 'axis'],
  REDUCE_PROD: ['input', 'axis'],
  REDUCE_ANY: ['input', 'axis'],
  PAD: ['input', 'paddings'],
  PADV2: ['input', 'paddings', 'constant_values'],
  MIRROR_PAD: ['input', 'paddings'],
  RESIZE_BILINEAR: ['input', 'size'],
  RESIZE_NEAREST_NEIGHBOR: ['input', 'size'],
  SLICE: ['input', 'begin', 'size'],
  SPLIT: ['axis', 'input'],
  SPLIT_V: ['input', 'size_splits', 'axis'],
  STRIDED_SLICE: ['input', 'begin', 'end', 'strides'],
  TILE: ['input', 'multipliers'],
  TRANSPOSE: ['input', 'perm'],
  // binary element-wise ops: Netron's A and B
  ...Object.fromEntries(
    ['ADD', 'SUB', 'MUL', 'DIV', 'POW', 'SQUARED_DIFFERENCE', 'FLOOR_DIV', 'FLOOR_MOD', 'MAXIMUM', 'MINIMUM', 'LESS', 'LESS_EQUAL', 'GREATER', 'GREATER_EQUAL', 'EQUAL', 'NOT_EQUAL', 'LOGICAL_AND', 'LOGICAL_OR'].map((op) => [op, ['A', 'B']]),
  ),
  BCQ_FULLY_CONNECTED: ['input', 'weights_scales', 'weights_binary', 'bias', 'weights_clusters'],
  BCQ_GATHER: ['input_scales', 'input_binary', 'indices', 'input_clusters'],
};

function formatValue(v: OptionValue): string {
  if (v === null) return '';
  if (Array.isArray(v)) return `[${(v as OptionValue[]).map(formatValue).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${formatValue(x)}`)
      .join(', ')}}`;
  }
  // option floats are float32 in the schema: `0.001`, not `0.0010000000474974513`
  if (typeof v === 'number' && !Number.isInteger(v)) return float32Text(v);
  return String(v);
}

/**
 * Marks an attribute for the node box (Netron shows an attribute in the node when its value
 * differs from the schema default: `padding = VALID`, `stride_w = 2`, `fused_activation_function =
 * RELU`, a non-empty `new_shape`), leaving `inNode` off otherwise.
 */
function inNode(a: GraphAttribute, shown: boolean): GraphAttribute {
  if (shown) a.inNode = true;
  return a;
}

/** A field holding a subgraph index (`then_subgraph_index` ...): a reference, never drawn in the node. */
function isSubgraphField(f: SchemaField, v: OptionValue): v is number {
  return f.name.endsWith('_subgraph_index') && typeof v === 'number';
}

/** Whether Netron would draw the field in the node box: its value differs from the schema default. */
function shownInNode(f: SchemaField, v: OptionValue): boolean {
  if (isSubgraphField(f, v)) return false;
  if (f.type.kind === 'enum' && !f.vector && typeof v === 'number') return v !== f.default;
  if (f.type.kind === 'enum' && f.vector && Array.isArray(v)) return v.length > 0;
  if (f.vector || f.type.kind === 'string') return (Array.isArray(v) || typeof v === 'string') && v.length > 0;
  return f.type.kind === 'scalar' ? v !== f.default : v !== null;
}

/** One options field as a formatted attribute (enums by name). */
function fieldAttribute(f: SchemaField, v: OptionValue): GraphAttribute {
  if (isSubgraphField(f, v)) return { name: f.name, value: graphId(v), type: 'subgraph' };
  if (f.type.kind === 'enum' && !f.vector && typeof v === 'number') return { name: f.name, value: enumValueName(f.type.ref!, v), type: 'enum' };
  if (f.type.kind === 'enum' && f.vector && Array.isArray(v)) return { name: f.name, value: `[${(v as number[]).map((x) => enumValueName(f.type.ref!, x)).join(', ')}]`, type: 'enum[]' };
  const base = f.type.base;
  const type = f.type.kind === 'string' ? 'string' : f.type.kind === 'table' || f.type.kind === 'union' ? 'table' : base === 'bool' ? 'bool' : base === 'float' || base === 'double' ? 'float' : 'int';
  return { name: f.name, value: formatValue(v), type: f.vector ? `${type}[]` : type };
}

/** Every field of an options union value as a formatted attribute (enums by name); non-default ones are marked `inNode`. */
export function optionAttributes(u: UnionValue): GraphAttribute[] {
  const def = CIRCLE_SCHEMA.tables[u.name];
  const out: GraphAttribute[] = [];
  if (!def) {
    out.push({ name: 'options', value: `${u.name} (not decoded)`, type: 'string' });
    return out;
  }
  for (const f of def.fields) {
    if (f.deprecated) continue;
    const v = u.fields[f.name];
    if (v === undefined) continue;
    out.push(inNode(fieldAttribute(f, v), shownInNode(f, v)));
  }
  return out;
}

/** Whether an options table can hold a subgraph index (per table name, from the schema; unknown tables are read). */
const MAY_REFER: Map<string, boolean> = new Map();
function mayReferToSubgraphs(name: string): boolean {
  let may = MAY_REFER.get(name);
  if (may === undefined) {
    const def = CIRCLE_SCHEMA.tables[name];
    may = !def || def.fields.some((f) => f.name.endsWith('_subgraph_index'));
    MAY_REFER.set(name, may);
  }
  return may;
}

/**
 * String ids of in-node attributes while packing: a field's name once, and a scalar value's text
 * once per field and value (100,000 operators repeat a few `padding = SAME`, `stride_w = 2`).
 */
class AttributeIds {
  private readonly names = new Map<SchemaField, number>();
  private readonly values = new Map<SchemaField, Map<OptionValue, number>>();
  constructor(private readonly st: PackBuilder['strings']) {}
  name(f: SchemaField): number {
    let id = this.names.get(f);
    if (id === undefined) this.names.set(f, (id = this.st.add(f.name)));
    return id;
  }
  value(f: SchemaField, v: OptionValue): number {
    // arrays and tables are texts of their own each time; scalars, enums and strings are cached
    if (v !== null && typeof v === 'object') return this.st.add(fieldAttribute(f, v).value);
    let byValue = this.values.get(f);
    if (!byValue) this.values.set(f, (byValue = new Map()));
    let id = byValue.get(v);
    if (id === undefined) byValue.set(v, (id = this.st.add(fieldAttribute(f, v).value)));
    return id;
  }
}

/**
 * The in-node attributes of an options union value (what `optionAttributes` marks `inNode`), as
 * string ids (name, value, name, value ...), in the same order; values formatted only for those.
 */
function inNodeAttributeIds(u: UnionValue, ids: AttributeIds): number[] {
  const out: number[] = [];
  const def = CIRCLE_SCHEMA.tables[u.name];
  if (!def) return out;
  for (const f of def.fields) {
    if (f.deprecated) continue;
    const v = u.fields[f.name];
    if (v === undefined || !shownInNode(f, v)) continue;
    out.push(ids.name(f), ids.value(f, v));
  }
  return out;
}

/**
 * What an options value puts into a pack (its in-node attribute ids and its subgraph references),
 * remembered for the last few values by identity: the reader shares equal option values
 * (read.ts), so 100,000 operators hold a handful of them and each is looked through once. Within
 * one packing nothing changes the model, and the string ids are the ones the first look gave
 * (a string table gives a text the same id every time).
 */
class PackedOptions {
  private readonly values: UnionValue[] = [];
  private readonly attributes: number[][] = [];
  private readonly refs: string[][] = [];
  private next = 0;
  constructor(private readonly ids: AttributeIds) {}
  /** writes the in-node attributes of `u` to the node added last; returns its subgraph references */
  pack(u: UnionValue, b: PackBuilder): string[] {
    let k = this.values.indexOf(u);
    if (k < 0) {
      k = this.next;
      this.next = (k + 1) % RECENT_OPTIONS;
      this.values[k] = u;
      this.attributes[k] = inNodeAttributeIds(u, this.ids);
      this.refs[k] = subgraphRefs(u);
    }
    const a = this.attributes[k]!;
    for (let j = 0; j < a.length; j += 2) b.attribute(a[j]!, a[j + 1]!);
    return this.refs[k]!;
  }
}
const RECENT_OPTIONS = 8;
const NO_REFS: string[] = [];

function subgraphRefs(u: UnionValue | null): string[] {
  if (!u || !mayReferToSubgraphs(u.name)) return [];
  const refs: string[] = [];
  for (const [k, v] of Object.entries(u.fields as OptionTable)) {
    if (k.endsWith('_subgraph_index') && typeof v === 'number') refs.push(graphId(v));
  }
  return refs;
}

/**
 * The value of a scalar constant held inline (`axis = 0`, as Netron shows it in the node): one
 * element read on the spot. values.ts decodes whole tensors for the panel; this reads one number
 * for the node box without going through it (values.ts imports this module).
 */
function scalarValue(type: number, b: CircleBuffer | undefined): string | null {
  const d = b?.data;
  if (!d || d.length === 0) return null;
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const need = (n: number) => d.length >= n;
  let v: number | bigint | boolean;
  switch (type) {
    case 0: if (!need(4)) return null; v = dv.getFloat32(0, true); break; // FLOAT32
    case 1: if (!need(2)) return null; v = readFloat16LE(dv, 0); break; // FLOAT16
    case 2: if (!need(4)) return null; v = dv.getInt32(0, true); break; // INT32
    case 3: v = dv.getUint8(0); break; // UINT8
    case 4: if (!need(8)) return null; v = dv.getBigInt64(0, true); break; // INT64
    case 6: v = dv.getUint8(0) !== 0; break; // BOOL
    case 7: if (!need(2)) return null; v = dv.getInt16(0, true); break; // INT16
    case 9: v = dv.getInt8(0); break; // INT8
    case 10: if (!need(8)) return null; v = dv.getFloat64(0, true); break; // FLOAT64
    default: return null;
  }
  // floats print the shortest text that reads back as the same value (`0.1`, not `0.10000000149011612`)
  if (typeof v === 'number' && !Number.isInteger(v)) return type === 10 ? float64Text(v) : float32Text(v);
  return String(v);
}

/** The graph of one subgraph: op nodes, input/output markers, one edge per (tensor, consumer). */
export function toGraph(model: CircleModel, subgraphIndex: number): Graph {
  const sg: CircleSubGraph | undefined = model.subgraphs[subgraphIndex];
  if (!sg) throw new RangeError(`subgraph ${subgraphIndex} does not exist (the model has ${model.subgraphs.length})`);
  const tensors = sg.tensors;
  const nt = tensors.length;
  const isGraphInput = new Uint8Array(nt);
  for (const t of sg.inputs) if (t >= 0 && t < nt) isGraphInput[t] = 1;
  // per tensor, once: whether it is a constant, and its type text (`float32[1,16,16,8]`)
  const isConstant = new Uint8Array(nt);
  for (let t = 0; t < nt; t++) if (!isGraphInput[t] && bufferHasData(model.buffers[tensors[t]!.buffer])) isConstant[t] = 1;
  const constant = (t: number) => isConstant[t] === 1;
  const typeText: (string | undefined)[] = new Array<string | undefined>(nt);
  const typeOf = (t: number): string => {
    let s = typeText[t];
    if (s === undefined) {
      const tensor = tensors[t]!;
      s = tensorTypeString(tensor.type, tensor.shape, tensor.shapeSignature);
      typeText[t] = s;
    }
    return s;
  };

  const port = (name: string, t: number): GraphPort => {
    const tensor = tensors[t];
    if (!tensor) return { name, tensor: -1, label: '', type: '' };
    const p: GraphPort = { name, tensor: t, label: tensor.name, type: typeOf(t) };
    if (isConstant[t]) p.constant = true;
    return p;
  };
  /** a constant input as the node box draws it: role, shape (-1 for a dynamic dimension), dtype */
  const constantOf = (name: string, t: number): GraphConstant => {
    const tensor = tensors[t]!;
    const sig = tensor.shapeSignature;
    const shape = sig && sig.length === tensor.shape.length ? tensor.shape.map((d, i) => (sig[i] === -1 ? -1 : d)) : tensor.shape.slice();
    const c: GraphConstant = { name, shape, dtype: dtypeName(tensor.type) };
    if (shape.length === 0) {
      const v = scalarValue(tensor.type, model.buffers[tensor.buffer]);
      if (v !== null) c.value = v;
    }
    return c;
  };

  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  /** node index producing each tensor, -1 if none yet */
  const source = new Int32Array(nt).fill(-1);

  // Graph inputs first.
  for (const t of sg.inputs) {
    if (t < 0 || t >= nt || source[t] !== -1) continue;
    source[t] = nodes.length;
    nodes.push({ id: `in:${t}`, kind: 'input', type: 'Input', name: tensors[t]!.name, category: 'Input', index: t, inputs: [], outputs: [port('output', t)], attributes: [] });
  }
  // Operators.
  const opNode = new Int32Array(sg.operators.length);
  sg.operators.forEach((op, i) => {
    const oc = model.operatorCodes[op.opcodeIndex];
    const builtin = oc ? builtinOperatorName(oc.code) : `Unknown(opcode_index ${op.opcodeIndex})`;
    const isCustom = !!oc && oc.code === CUSTOM;
    const type = operatorType(model, op.opcodeIndex);
    const roles = INPUT_ROLES[builtin] ?? [];
    const attributes: GraphAttribute[] = [];
    if (op.builtinOptions) attributes.push(...optionAttributes(op.builtinOptions));
    if (op.builtinOptions2) attributes.push(...optionAttributes(op.builtinOptions2));
    if (isCustom) {
      attributes.push({ name: 'custom_code', value: oc?.customCode ?? '', type: 'string' });
      if (op.customOptions) attributes.push({ name: 'custom_options', value: `${op.customOptions.length} bytes`, type: 'bytes' });
    }
    const refs = [...subgraphRefs(op.builtinOptions), ...subgraphRefs(op.builtinOptions2)];
    const firstOut = op.outputs.find((t) => t >= 0 && t < nt);
    const node: GraphNode = {
      id: `op:${i}`,
      kind: 'op',
      type,
      name: firstOut !== undefined ? tensors[firstOut]!.name : type,
      category: operatorCategory(builtin, isCustom),
      index: i,
      inputs: op.inputs.map((t, k) => port(roles[k] ?? String(k), t)),
      outputs: op.outputs.map((t, k) => port(String(k), t)),
      attributes,
    };
    let constants: GraphConstant[] | undefined;
    for (let k = 0; k < op.inputs.length; k++) {
      const t = op.inputs[k]!;
      if (t < 0 || t >= nt || !isConstant[t]) continue;
      (constants ??= []).push(constantOf(roles[k] ?? String(k), t));
    }
    if (constants) node.constants = constants;
    if (refs.length) node.subgraphs = refs;
    opNode[i] = nodes.length;
    for (const t of op.outputs) if (t >= 0 && t < nt && source[t] === -1) source[t] = nodes.length;
    nodes.push(node);
  });
  // Non-constant tensors nobody produces become their own sources.
  const sourceOf = (t: number): number => {
    if (source[t] === -1) {
      source[t] = nodes.length;
      nodes.push({ id: `in:${t}`, kind: 'input', type: 'Input', name: tensors[t]!.name, category: 'Input', index: t, inputs: [], outputs: [port('output', t)], attributes: [] });
    }
    return source[t]!;
  };
  const edge = (t: number, to: number) => {
    edges.push({ from: sourceOf(t), to, tensor: t, name: tensors[t]!.name, label: typeOf(t) });
  };
  sg.operators.forEach((op, i) => {
    const seen = new Set<number>();
    for (const t of op.inputs) {
      if (t < 0 || t >= nt || seen.has(t) || constant(t)) continue;
      seen.add(t);
      edge(t, opNode[i]!);
    }
  });
  // Graph outputs last.
  sg.outputs.forEach((t, k) => {
    if (t < 0 || t >= nt) return;
    const at = nodes.length;
    nodes.push({ id: `out:${k}`, kind: 'output', type: 'Output', name: tensors[t]!.name, category: 'Output', index: t, inputs: [port('input', t)], outputs: [], attributes: [] });
    if (!constant(t)) edge(t, at);
  });
  return { id: graphId(subgraphIndex), name: subgraphName(model, subgraphIndex), nodes, edges, stats: { nodes: sg.operators.length, edges: edges.length } };
}

/**
 * String ids of a text made from a tensor's type, shape and shape signature, remembered for the
 * last few distinct (type, shape, signature) seen. Comparing a short shape with a few remembered
 * ones costs far less than building its text and hashing it into the string table again (a
 * 100,000-operator network repeats a handful of shapes). Equal keys make equal texts, so the ids
 * are the ones `make` would give.
 */
class RecentShapes {
  private readonly types: number[] = [];
  private readonly shapes: number[][] = [];
  private readonly sigs: (number[] | null)[] = [];
  private readonly ids: number[] = [];
  private next = 0;
  constructor(private readonly make: (type: number, shape: number[], sig: number[] | null) => number) {}
  id(type: number, shape: number[], sig: number[] | null): number {
    for (let k = 0; k < this.ids.length; k++) {
      if (this.types[k] === type && sameInts(this.shapes[k]!, shape) && (this.sigs[k] === sig || (this.sigs[k] !== null && sig !== null && sameInts(this.sigs[k]!, sig)))) return this.ids[k]!;
    }
    const id = this.make(type, shape, sig);
    const at = this.next;
    this.next = (at + 1) % RECENT_SHAPES;
    this.types[at] = type;
    this.shapes[at] = shape;
    this.sigs[at] = sig;
    this.ids[at] = id;
    return id;
  }
}
const RECENT_SHAPES = 8;

function sameInts(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `packGraph(toGraph(model, subgraphIndex))` written straight from the model: the same nodes in the
 * same order, the same edges, constants and in-node attributes (a test holds the two equal on
 * every sample), without building the Graph's node, port and attribute objects first. The view
 * asks for this; the Graph itself is built when the side panel, find or a partition needs it.
 */
export function toGraphPack(model: CircleModel, subgraphIndex: number): GraphPack {
  const sg: CircleSubGraph | undefined = model.subgraphs[subgraphIndex];
  if (!sg) throw new RangeError(`subgraph ${subgraphIndex} does not exist (the model has ${model.subgraphs.length})`);
  const p = new SubgraphPacker(model, sg);
  p.graphInputs();
  p.operators();
  p.operatorEdges();
  p.graphOutputs();
  return p.b.finish(graphId(subgraphIndex), subgraphName(model, subgraphIndex), { nodes: sg.operators.length, edges: p.edges });
}

/**
 * The number of edges, constant rows and in-node attribute rows `toGraphPack` writes for a
 * subgraph, counted the way it writes them (exported for the test that holds the two together).
 */
export function packSizes(sg: CircleSubGraph, isConstant: Uint8Array): { edges: number; constants: number; attributes: number } {
  const nt = isConstant.length;
  const seenBy = new Int32Array(nt).fill(-1);
  const shown = new RecentCounts();
  let edges = 0, constants = 0, attributes = 0;
  for (let i = 0; i < sg.operators.length; i++) {
    const op = sg.operators[i]!;
    const inputs = op.inputs;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      if (t < 0 || t >= nt) continue;
      if (isConstant[t]) constants++;
      else if (seenBy[t] !== i) {
        seenBy[t] = i;
        edges++;
      }
    }
    if (op.builtinOptions) attributes += shown.of(op.builtinOptions);
    if (op.builtinOptions2) attributes += shown.of(op.builtinOptions2);
  }
  for (let k = 0; k < sg.outputs.length; k++) {
    const t = sg.outputs[k]!;
    if (t >= 0 && t < nt && !isConstant[t]) edges++;
  }
  return { edges, constants, attributes };
}

/** The in-node attribute count of an options value (as `inNodeAttributeIds` finds them), for the last few values by identity. */
class RecentCounts {
  private readonly values: UnionValue[] = [];
  private readonly counts: number[] = [];
  private next = 0;
  of(u: UnionValue): number {
    const k = this.values.indexOf(u);
    if (k >= 0) return this.counts[k]!;
    let n = 0;
    const def = CIRCLE_SCHEMA.tables[u.name];
    if (def) {
      for (const f of def.fields) {
        if (f.deprecated) continue;
        const v = u.fields[f.name];
        if (v !== undefined && shownInNode(f, v)) n++;
      }
    }
    const at = this.next;
    this.next = (at + 1) % RECENT_OPTIONS;
    this.values[at] = u;
    this.counts[at] = n;
    return n;
  }
}

/** What `toGraphPack` keeps per op code: type, category, input roles. */
interface PackedCode {
  type: number;
  typeText: string;
  category: number;
  roles: string[];
  roleIds: number[];
}

/**
 * The state of one `toGraphPack`, its steps as methods: each per-operator step is a function of
 * its own, optimized on its own after a few calls (one long function was optimized in the middle
 * of its loops and deoptimized on reaching code that had not run yet).
 */
class SubgraphPacker {
  readonly b: PackBuilder;
  private readonly st: StringTableBuilder;
  private readonly tensors: CircleTensor[];
  private readonly nt: number;
  private readonly isConstant: Uint8Array;
  /** per tensor, once: its name and type text as string ids (-1: not yet) */
  private readonly nameId: Int32Array;
  private readonly labelId: Int32Array;
  /** node of the tensor's producer (-1: none yet) */
  private readonly source: Int32Array;
  private readonly opNode: Int32Array;
  private readonly seenBy: Int32Array;
  private readonly typeTexts: RecentShapes;
  private readonly shapeTexts: RecentShapes;
  private readonly dtypeIds = new Map<number, number>();
  /** per op code index, once */
  private readonly codes: (PackedCode | undefined)[] = [];
  private readonly packedOptions: PackedOptions;
  private readonly inputType: number;
  private readonly outputType: number;
  private noValue = -1;
  edges = 0;

  constructor(private readonly model: CircleModel, private readonly sg: CircleSubGraph) {
    const tensors = (this.tensors = sg.tensors);
    const nt = (this.nt = tensors.length);
    const isGraphInput = new Uint8Array(nt);
    for (let k = 0; k < sg.inputs.length; k++) {
      const t = sg.inputs[k]!;
      if (t >= 0 && t < nt) isGraphInput[t] = 1;
    }
    const isConstant = (this.isConstant = new Uint8Array(nt));
    for (let t = 0; t < nt; t++) if (!isGraphInput[t] && bufferHasData(model.buffers[tensors[t]!.buffer])) isConstant[t] = 1;
    // capacities: one node per input, operator and output (a hint: input nodes for tensors nobody
    // produces come on top); edges, constant and attribute rows counted exactly, so that those
    // columns are neither regrown nor copied to their length at the end; the string table sized
    // for every node id and tensor name (a hint: past it, it grows)
    const nodes = sg.inputs.length + sg.operators.length + sg.outputs.length;
    const sizes = packSizes(sg, isConstant);
    let nameBytes = 0;
    for (let t = 0; t < nt; t++) nameBytes += tensors[t]!.name.length;
    this.b = new PackBuilder(nodes, sizes.edges, sizes.constants, sizes.attributes, nodes + nt + 1024, nameBytes + 12 * nodes + (1 << 16));
    const st = (this.st = this.b.strings);
    this.nameId = new Int32Array(nt).fill(-1);
    this.labelId = new Int32Array(nt).fill(-1);
    this.source = new Int32Array(nt).fill(-1);
    this.seenBy = new Int32Array(nt).fill(-1);
    this.opNode = new Int32Array(sg.operators.length);
    // type texts through a cache of the last few shapes: a network repeats a handful, so most
    // tensors build and hash no text at all
    this.typeTexts = new RecentShapes((type, shape, sig) => st.add(tensorTypeString(type, shape, sig)));
    // a constant's row texts: the shape (dynamic dimensions as -1) through the same kind of cache,
    // the dtype once per type, an empty value once
    this.shapeTexts = new RecentShapes((_type, shape, sig) =>
      st.add(shapeText(sig && sig.length === shape.length ? shape.map((d, j) => (sig[j] === -1 ? -1 : d)) : shape)),
    );
    this.inputType = st.add('Input');
    this.outputType = st.add('Output');
    this.packedOptions = new PackedOptions(new AttributeIds(st));
  }

  private nameOf(t: number): number {
    const id = this.nameId[t]!;
    return id >= 0 ? id : (this.nameId[t] = this.st.append(this.tensors[t]!.name));
  }

  private labelOf(t: number): number {
    const id = this.labelId[t]!;
    if (id >= 0) return id;
    const x = this.tensors[t]!;
    return (this.labelId[t] = this.typeTexts.id(x.type, x.shape, x.shapeSignature));
  }

  private dtypeOf(type: number): number {
    let id = this.dtypeIds.get(type);
    if (id === undefined) this.dtypeIds.set(type, (id = this.st.add(dtypeName(type))));
    return id;
  }

  private codeOf(opcodeIndex: number): PackedCode {
    let code = this.codes[opcodeIndex];
    if (!code) {
      const oc = this.model.operatorCodes[opcodeIndex];
      const builtin = oc ? builtinOperatorName(oc.code) : `Unknown(opcode_index ${opcodeIndex})`;
      const custom = !!oc && oc.code === CUSTOM;
      const typeText = operatorType(this.model, opcodeIndex);
      code = { type: this.st.add(typeText), typeText, category: categoryIndex(operatorCategory(builtin, custom)), roles: INPUT_ROLES[builtin] ?? [], roleIds: [] };
      this.codes[opcodeIndex] = code;
    }
    return code;
  }

  private inputNode(t: number): number {
    return this.b.nodeIndexed(this.st.appendNumbered('in:', t), INPUT_KIND, this.inputType, this.nameOf(t), INPUT_CATEGORY, t);
  }

  graphInputs(): void {
    const inputs = this.sg.inputs;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      if (t < 0 || t >= this.nt || this.source[t] !== -1) continue;
      this.source[t] = this.inputNode(t);
    }
  }

  /** every operator's node (each loop a function of its own: optimized while it runs, on its own) */
  operators(): void {
    for (let i = 0; i < this.sg.operators.length; i++) this.operator(i);
  }

  /** the node of operator i, its constant rows and in-node attributes */
  private operator(i: number): void {
    const op = this.sg.operators[i]!;
    const { b, st, nt, source } = this;
    const code = this.codeOf(op.opcodeIndex);
    const outputs = op.outputs;
    let firstOut = -1;
    for (let k = 0; k < outputs.length; k++) {
      const t = outputs[k]!;
      if (t >= 0 && t < nt) {
        firstOut = t;
        break;
      }
    }
    const node = b.nodeIndexed(st.appendNumbered('op:', i), OP_KIND, code.type, firstOut >= 0 ? this.nameOf(firstOut) : st.add(code.typeText), code.category, i);
    const inputs = op.inputs;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      if (t < 0 || t >= nt || !this.isConstant[t]) continue;
      const x = this.tensors[t]!;
      const role = code.roleIds[k] ?? (code.roleIds[k] = st.add(code.roles[k] ?? String(k)));
      const shape = this.shapeTexts.id(0, x.shape, x.shapeSignature);
      const dtype = this.dtypeOf(x.type);
      const value = x.shape.length === 0 ? scalarValue(x.type, this.model.buffers[x.buffer]) : null;
      b.constant(role, shape, dtype, value === null ? (this.noValue >= 0 ? this.noValue : (this.noValue = st.add(''))) : st.add(value));
    }
    const r1 = op.builtinOptions ? this.packedOptions.pack(op.builtinOptions, b) : NO_REFS;
    const r2 = op.builtinOptions2 ? this.packedOptions.pack(op.builtinOptions2, b) : NO_REFS;
    if (r1.length || r2.length) b.subgraphRefs(node, [...r1, ...r2]);
    this.opNode[i] = node;
    for (let k = 0; k < outputs.length; k++) {
      const t = outputs[k]!;
      if (t >= 0 && t < nt && source[t] === -1) source[t] = node;
    }
  }

  /** an edge from the tensor's producer (an input node made for it when it has none) to `to` */
  private edge(t: number, to: number): void {
    if (this.source[t] === -1) this.source[t] = this.inputNode(t);
    // named as its tensor: the string its source node (named by the same tensor) holds already
    this.b.edge(this.source[t]!, to, t, this.nameOf(t), this.labelOf(t));
    this.edges++;
  }

  /**
   * the edges into every operator (after every operator's node): one per (tensor, consumer), a
   * tensor read twice by an op counts once (seenBy: the op that last read it)
   */
  operatorEdges(): void {
    for (let i = 0; i < this.sg.operators.length; i++) this.edgesInto(i);
  }

  private edgesInto(i: number): void {
    const inputs = this.sg.operators[i]!.inputs;
    const { nt, seenBy, isConstant } = this;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      if (t < 0 || t >= nt || seenBy[t] === i || isConstant[t]) continue;
      seenBy[t] = i;
      this.edge(t, this.opNode[i]!);
    }
  }

  graphOutputs(): void {
    const outputs = this.sg.outputs;
    for (let k = 0; k < outputs.length; k++) {
      const t = outputs[k]!;
      if (t < 0 || t >= this.nt) continue;
      const at = this.b.nodeIndexed(this.st.appendNumbered('out:', k), OUTPUT_KIND, this.outputType, this.nameOf(t), OUTPUT_CATEGORY, t);
      if (!this.isConstant[t]) this.edge(t, at);
    }
  }
}
const OP_KIND = kindIndex('op');
const INPUT_KIND = kindIndex('input');
const OUTPUT_KIND = kindIndex('output');
const INPUT_CATEGORY = categoryIndex('Input');
const OUTPUT_CATEGORY = categoryIndex('Output');

/** The stats `toGraph` would give, counted without building the graph. */
export function graphStats(model: CircleModel, subgraphIndex: number): GraphStats {
  const sg = model.subgraphs[subgraphIndex];
  if (!sg) throw new RangeError(`subgraph ${subgraphIndex} does not exist (the model has ${model.subgraphs.length})`);
  const nt = sg.tensors.length;
  const isGraphInput = new Uint8Array(nt);
  for (const t of sg.inputs) if (t >= 0 && t < nt) isGraphInput[t] = 1;
  const constant = (t: number) => !isGraphInput[t] && bufferHasData(model.buffers[sg.tensors[t]!.buffer]);
  let edges = 0;
  // a tensor read twice by an op counts once (seenBy: the op that last read it)
  const seenBy = new Int32Array(nt).fill(-1);
  for (let i = 0; i < sg.operators.length; i++) {
    const inputs = sg.operators[i]!.inputs;
    for (let k = 0; k < inputs.length; k++) {
      const t = inputs[k]!;
      if (t < 0 || t >= nt || seenBy[t] === i || constant(t)) continue;
      seenBy[t] = i;
      edges++;
    }
  }
  for (const t of sg.outputs) if (t >= 0 && t < nt && !constant(t)) edges++;
  return { nodes: sg.operators.length, edges };
}

const HEX_PREVIEW_BYTES = 32;
const TEXT_PREVIEW_LIMIT = 256;

/** circle.md section 5: printable ASCII under 256 bytes as text, otherwise hex and the size. */
export function metadataPreview(data: Uint8Array | null, size: number): string {
  if (!data || size === 0) return size === 0 ? '(empty)' : `(${size} bytes, stored outside the FlatBuffer)`;
  if (data.length < TEXT_PREVIEW_LIMIT) {
    let printable = true;
    for (let i = 0; i < data.length; i++) {
      const c = data[i]!;
      if (!((c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d)) {
        printable = false;
        break;
      }
    }
    if (printable) return String.fromCharCode(...data);
  }
  const head = Array.from(data.subarray(0, HEX_PREVIEW_BYTES), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${head}${data.length > HEX_PREVIEW_BYTES ? ' …' : ''} (${data.length} bytes)`;
}

/** Everything the model panel shows, without weight bytes. */
export function summarize(model: CircleModel, file: string): ModelSummary {
  let inline = 0;
  let external = 0;
  for (let i = 0; i < model.buffers.length; i++) {
    const b = model.buffers[i]!;
    if (b.data && b.data.length) inline += b.data.length;
    else if (b.offset > 1 && b.size > 0) external += b.size;
  }
  const kind = model.identifier === 'TFL3' ? 'tflite' : 'circle';
  const operators = model.subgraphs.reduce((a, sg) => a + sg.operators.length, 0);
  const tensors = model.subgraphs.reduce((a, sg) => a + sg.tensors.length, 0);
  return {
    format: 'circle',
    file,
    formatLabel: `${kind} (${model.identifier}, schema version ${model.version})`,
    description: model.description,
    properties: [
      { name: 'format', value: kind, type: 'string' },
      { name: 'identifier', value: model.identifier, type: 'string' },
      { name: 'version', value: String(model.version), type: 'int' },
      { name: 'description', value: model.description, type: 'string' },
      { name: 'subgraphs', value: String(model.subgraphs.length), type: 'int' },
      { name: 'operators', value: String(operators), type: 'int' },
      { name: 'tensors', value: String(tensors), type: 'int' },
      { name: 'operator codes', value: model.operatorCodes.map((oc) => (oc.code === CUSTOM ? oc.customCode ?? 'CUSTOM' : builtinOperatorName(oc.code))).join(', '), type: 'string[]' },
    ],
    graphs: model.subgraphs.map((_, i): GraphInfo => ({ id: graphId(i), name: subgraphName(model, i), stats: graphStats(model, i) })),
    metadata: model.metadata.map((m) => {
      const b = model.buffers[m.buffer];
      const size = bufferSize(b);
      return { name: m.name, size, preview: metadataPreview(b?.data ?? null, size) };
    }),
    signatures: model.signatureDefs.map((s) => ({
      key: s.signatureKey,
      subgraph: s.subgraphIndex,
      inputs: s.inputs.map((x) => ({ name: x.name, tensor: x.tensorIndex })),
      outputs: s.outputs.map((x) => ({ name: x.name, tensor: x.tensorIndex })),
    })),
    buffers: { count: model.buffers.length, bytes: inline, external },
  };
}

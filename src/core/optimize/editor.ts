/**
 * The optimizer's working model and the small graph-editing vocabulary every pass uses.
 *
 * `WorkModel` is a CircleModel whose arrays (subgraphs, tensors, operators, buffers, op codes)
 * are private copies a pass may change in place, plus, per subgraph, the origin set of every
 * operator (parallel to `operators`). Each pass edits through `GraphEditor`, which keeps the two
 * in step: removing an operator removes its origin, replacing one states the origin it gets.
 */
import type { CircleModel, CircleOperator, CircleSubGraph, CircleTensor, UnionValue } from '../circle/model';
import { encodeOpcode } from '../circle/write';
import type { OriginSet } from '../origin/rules';

export interface WorkModel {
  model: CircleModel;
  /** per subgraph, per operator: its origin set */
  origins: OriginSet[][];
}

/** A copy whose arrays may be edited without touching the input model (buffer bytes shared). */
export function workModel(model: CircleModel, origins0: readonly OriginSet[]): WorkModel {
  const copy: CircleModel = {
    ...model,
    operatorCodes: model.operatorCodes.map((c) => ({ ...c })),
    buffers: model.buffers.map((b) => ({ ...b })),
    metadata: model.metadata.map((m) => ({ ...m })),
    metadataBuffer: [...model.metadataBuffer],
    signatureDefs: model.signatureDefs.map((s) => ({ ...s, inputs: s.inputs.map((x) => ({ ...x })), outputs: s.outputs.map((x) => ({ ...x })) })),
    subgraphs: model.subgraphs.map((sg) => ({
      ...sg,
      tensors: sg.tensors.map((t) => ({ ...t })),
      inputs: [...sg.inputs],
      outputs: [...sg.outputs],
      operators: sg.operators.map((op) => ({ ...op, inputs: [...op.inputs], outputs: [...op.outputs] })),
    })),
  };
  const origins = copy.subgraphs.map((sg, i) => sg.operators.map((_, j) => (i === 0 ? [...(origins0[j] ?? [])] : [])));
  return { model: copy, origins };
}

/** Builtin operator codes the passes use (circle_schema.fbs BuiltinOperator). */
export const Op = {
  ADD: 0,
  CONV_2D: 3,
  DEPTHWISE_CONV_2D: 4,
  FULLY_CONNECTED: 9,
  MUL: 18,
  RELU: 19,
  RELU6: 21,
  RESHAPE: 22,
  TANH: 28,
  MEAN: 40,
  SUB: 41,
  DIV: 42,
  MAXIMUM: 55,
  MINIMUM: 57,
  NEG: 59,
  SQRT: 75,
  RSQRT: 76,
  POW: 78,
  SQUARE: 92,
  SQUARED_DIFFERENCE: 99,
  ABS: 101,
  INSTANCE_NORM: -2,
} as const;

/** ActivationFunctionType values. */
export const Act = { NONE: 0, RELU: 1, RELU_N1_TO_1: 2, RELU6: 3, TANH: 4 } as const;

/** The options table (BuiltinOptions id and name) of ops that carry a fused activation. */
export const OPTIONS_OF: Readonly<Record<number, [number, string]>> = {
  [Op.ADD]: [11, 'AddOptions'],
  [Op.CONV_2D]: [1, 'Conv2DOptions'],
  [Op.DEPTHWISE_CONV_2D]: [2, 'DepthwiseConv2DOptions'],
  [Op.FULLY_CONNECTED]: [8, 'FullyConnectedOptions'],
  [Op.MUL]: [21, 'MulOptions'],
  [Op.SUB]: [28, 'SubOptions'],
  [Op.DIV]: [29, 'DivOptions'],
  [Op.INSTANCE_NORM]: [254, 'InstanceNormOptions'],
};

export const FLOAT32 = 0;

export class GraphEditor {
  private producerOf: Int32Array | null = null;
  private consumersOf: number[][] | null = null;

  constructor(
    readonly work: WorkModel,
    readonly index: number,
  ) {}

  get model(): CircleModel {
    return this.work.model;
  }
  get sg(): CircleSubGraph {
    return this.work.model.subgraphs[this.index]!;
  }
  get ops(): CircleOperator[] {
    return this.sg.operators;
  }
  get origins(): OriginSet[] {
    return this.work.origins[this.index]!;
  }

  /** Forget cached producer/consumer maps (after any edit). */
  invalidate(): void {
    this.producerOf = null;
    this.consumersOf = null;
  }

  private build(): void {
    const n = this.sg.tensors.length;
    const producer = new Int32Array(n).fill(-1);
    const consumers: number[][] = Array.from({ length: n }, () => []);
    this.ops.forEach((op, i) => {
      for (const t of op.outputs) if (t >= 0 && t < n) producer[t] = i;
      for (const t of op.inputs) if (t >= 0 && t < n && !consumers[t]!.includes(i)) consumers[t]!.push(i);
    });
    this.producerOf = producer;
    this.consumersOf = consumers;
  }

  /** Operator index producing tensor `t`, or -1. */
  producer(t: number): number {
    if (!this.producerOf) this.build();
    return t >= 0 && t < this.producerOf!.length ? this.producerOf![t]! : -1;
  }

  /** Operator indices reading tensor `t` (each once). */
  consumers(t: number): number[] {
    if (!this.consumersOf) this.build();
    return t >= 0 && t < this.consumersOf!.length ? this.consumersOf![t]! : [];
  }

  code(op: number | CircleOperator): number {
    const o = typeof op === 'number' ? this.ops[op] : op;
    return o ? (this.model.operatorCodes[o.opcodeIndex]?.code ?? Number.NaN) : Number.NaN;
  }

  tensor(t: number): CircleTensor {
    return this.sg.tensors[t]!;
  }

  isGraphOutput(t: number): boolean {
    return this.sg.outputs.includes(t);
  }
  isGraphInput(t: number): boolean {
    return this.sg.inputs.includes(t);
  }

  /** Used outside this subgraph's operators: a graph output or input. */
  isBoundary(t: number): boolean {
    return this.isGraphOutput(t) || this.isGraphInput(t);
  }

  /** A tensor with constant data: non-empty buffer, not produced, not a graph input, not variable. */
  isConst(t: number): boolean {
    if (t < 0) return false;
    const tensor = this.sg.tensors[t];
    if (!tensor || tensor.isVariable || tensor.buffer <= 0) return false;
    const b = this.model.buffers[tensor.buffer];
    return !!b && !!b.data && b.data.length > 0 && this.producer(t) < 0 && !this.isGraphInput(t);
  }

  /** The float32 values of a constant float32 tensor (no quantization), or null. */
  constF32(t: number): Float32Array | null {
    if (!this.isConst(t)) return null;
    const tensor = this.tensor(t);
    if (tensor.type !== FLOAT32 || (tensor.quantization && tensor.quantization.scale.length)) return null;
    const data = this.model.buffers[tensor.buffer]!.data!;
    const n = tensor.shape.reduce((a, d) => a * d, 1);
    if (data.length !== n * 4) return null;
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
    return out;
  }

  /** Float32 without quantization and with a static shape. */
  isPlainF32(t: number): boolean {
    const tensor = this.sg.tensors[t];
    if (!tensor || tensor.type !== FLOAT32) return false;
    if (tensor.quantization && tensor.quantization.scale.length) return false;
    return !(tensor.shapeSignature && tensor.shapeSignature.some((d) => d < 0));
  }

  addBuffer(data: Uint8Array): number {
    this.model.buffers.push({ data, offset: 0, size: 0 });
    return this.model.buffers.length - 1;
  }

  addTensor(t: CircleTensor): number {
    this.sg.tensors.push(t);
    this.invalidate();
    return this.sg.tensors.length - 1;
  }

  /** A new float32 constant tensor holding `values`. */
  addConstF32(name: string, shape: number[], values: Float32Array): number {
    const buffer = this.addBuffer(new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength)));
    return this.addTensor({
      name,
      shape: [...shape],
      shapeSignature: null,
      type: FLOAT32,
      buffer,
      quantization: null,
      isVariable: false,
      sparsity: null,
      hasRank: false,
      variantTensors: [],
      compressionType: 0,
    });
  }

  /** A tensor name not used yet in this subgraph, based on `base`. */
  freshName(base: string): string {
    const names = new Set(this.sg.tensors.map((t) => t.name));
    if (!names.has(base)) return base;
    for (let i = 1; ; i++) if (!names.has(`${base}_${i}`)) return `${base}_${i}`;
  }

  /** Index of the op code entry for `code` (version 1 added when absent). */
  opcodeIndex(code: number, version = 1): number {
    const i = this.model.operatorCodes.findIndex((c) => c.code === code && c.customCode === null);
    if (i >= 0) return i;
    this.model.operatorCodes.push({ code, ...encodeOpcode(code), customCode: null, version });
    return this.model.operatorCodes.length - 1;
  }

  /** The fused activation of an operator (NONE when it has no options). */
  activation(op: number): number {
    const v = this.ops[op]!.builtinOptions?.fields['fused_activation_function'];
    return typeof v === 'number' ? v : Act.NONE;
  }

  /** Whether the op's kind carries a fused activation field. */
  hasActivationField(op: number): boolean {
    return OPTIONS_OF[this.code(op)] !== undefined;
  }

  /** Sets the fused activation (creating the options table when the op has none). */
  setActivation(op: number, act: number): void {
    const o = this.ops[op]!;
    const opts: UnionValue | null = o.builtinOptions;
    if (opts) o.builtinOptions = { ...opts, fields: { ...opts.fields, fused_activation_function: act } };
    else {
      const spec = OPTIONS_OF[this.code(op)];
      if (!spec) throw new Error(`operator ${op} has no fused activation`);
      o.builtinOptions = { type: spec[0], name: spec[1], fields: { fused_activation_function: act } };
    }
  }

  /** Replace operator `i` (same position) and give it `origin`. */
  setOp(i: number, op: CircleOperator, origin: OriginSet): void {
    this.ops[i] = op;
    this.origins[i] = origin;
    this.invalidate();
  }

  setOrigin(i: number, origin: OriginSet): void {
    this.origins[i] = origin;
  }

  /** Remove operators (their origins go with them: callers absorb them first). */
  removeOps(indices: Iterable<number>): void {
    const drop = new Set(indices);
    if (!drop.size) return;
    const keep = (_: unknown, i: number) => !drop.has(i);
    this.sg.operators = this.ops.filter(keep);
    this.work.origins[this.index] = this.origins.filter(keep);
    this.invalidate();
  }

  /** Make every reader of tensor `from` read `to` instead (inputs of operators only). */
  rewireConsumers(from: number, to: number): void {
    for (const op of this.ops) op.inputs = op.inputs.map((t) => (t === from ? to : t));
    this.invalidate();
  }

  /** `name` of an operator for log lines: `CONV_2D "conv1"` style, by its first output. */
  describe(op: number): string {
    const o = this.ops[op]!;
    const t = o.outputs.length ? this.sg.tensors[o.outputs[0]!] : undefined;
    return `#${op} "${t?.name ?? '?'}"`;
  }
}

/** Number of elements of a shape. */
export function elements(shape: readonly number[]): number {
  return shape.reduce((a, d) => a * d, 1);
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * Whether a constant of `shape` is a per-channel vector over the last axis of size `channels`
 * (every other dimension 1; the last one `channels` or 1) with a rank no greater than `rank`,
 * so broadcasting it against the output keeps the output's shape.
 */
export function isPerChannel(shape: readonly number[], channels: number, rank: number): boolean {
  if (shape.length > rank) return false;
  if (shape.length === 0) return true;
  const last = shape[shape.length - 1]!;
  return (last === channels || last === 1) && shape.slice(0, -1).every((d) => d === 1);
}

/** Per-channel values of a per-channel constant (a single value broadcast to every channel). */
export function perChannel(values: Float32Array, channels: number): Float32Array {
  if (values.length === channels) return values;
  return new Float32Array(channels).fill(values[0]!);
}

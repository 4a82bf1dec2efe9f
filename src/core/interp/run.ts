/**
 * The interpreter loop: run a subgraph's operators in stored order (circle keeps them
 * topologically sorted), each value computed once; IF and WHILE run other subgraphs.
 *
 * It never returns a result it cannot stand behind: an operator it does not know, a quantized
 * tensor where the kernel only computes floats, an output dtype that differs from the model's
 * declaration, all throw `InterpreterError` naming the operator and its index.
 */
import type { CircleModel, CircleQuantization, CircleSubGraph, CircleTensor } from '../circle/model';
import { operatorType } from '../circle/names';
import { ELEMENTWISE_KERNELS } from './elementwise';
import { InterpreterError, KernelError, invalid, unsupported } from './errors';
import { input, optNumber, shapeString, type Kernel, type KernelContext } from './kernel';
import { NN_KERNELS } from './nn';
import { SHAPE_KERNELS } from './shape';
import { allocate, decodeConstant, dtypeOfTensorType, elementCount, fromNumbers, isFloat, scalarOf, toNumbers, type TensorValue } from './tensor';

export interface RunOptions {
  /** subgraph to run (default 0) */
  subgraph?: number;
  /** WHILE iterations allowed per loop before an error of kind `limit` (default 100,000) */
  maxWhileIterations?: number;
  /** IF / WHILE nesting allowed before an error of kind `limit` (default 64) */
  maxDepth?: number;
}

const CONTROL_KERNELS: Record<string, Kernel> = {
  /** float16 -> float32, or (q - zero_point) * scale per tensor or per channel (quantized_dimension) */
  DEQUANTIZE: (ctx) => {
    const x = input(ctx, 0);
    const values = toNumbers(x);
    if (x.dtype === 'float16' || x.dtype === 'float32') return [fromNumbers('float32', x.shape, values)];
    const q = ctx.inputQuantization?.[0];
    if (!q || q.scale.length === 0) unsupported(`DEQUANTIZE of ${x.dtype} needs quantization parameters`);
    const axis = q.scale.length > 1 ? q.quantizedDimension : -1;
    const inner = axis >= 0 ? elementCount(x.shape.slice(axis + 1)) : 1;
    const channels = axis >= 0 ? (x.shape[axis] ?? 1) : 1;
    if (axis >= 0 && channels !== q.scale.length) invalid(`${q.scale.length} scales for ${channels} channels`);
    const out = values.map((v, i) => {
      const c = axis >= 0 ? Math.floor(i / inner) % channels : 0;
      return Math.fround((v - (q.zeroPoint[c] ?? 0)) * q.scale[c]!);
    });
    return [fromNumbers('float32', x.shape, out)];
  },
  IF: (ctx) => {
    const cond = input(ctx, 0);
    const branch = scalarOf(cond) !== 0 ? optNumber(ctx, 'then_subgraph_index', -1) : optNumber(ctx, 'else_subgraph_index', -1);
    const rest: TensorValue[] = [];
    for (let i = 1; i < ctx.inputs.length; i++) rest.push(input(ctx, i));
    return ctx.runSubgraph(branch, rest);
  },
  WHILE: (ctx) => {
    const condIndex = optNumber(ctx, 'cond_subgraph_index', -1);
    const bodyIndex = optNumber(ctx, 'body_subgraph_index', -1);
    let vars: TensorValue[] = ctx.inputs.map((_, i) => input(ctx, i));
    for (let iteration = 0; ; iteration++) {
      const [cond] = ctx.runSubgraph(condIndex, vars);
      if (!cond || cond.data.length === 0) invalid('the WHILE condition subgraph returned no value');
      if (scalarOf(cond) === 0) return vars;
      if (iteration >= whileCap.current) throw new KernelError('limit', `WHILE did not finish within ${whileCap.current} iterations`);
      const next = ctx.runSubgraph(bodyIndex, vars);
      if (next.length !== vars.length) invalid(`the WHILE body returned ${next.length} values for ${vars.length} loop variables`);
      vars = next;
    }
  },
};

/** the cap of the run in progress (runs are synchronous, so one slot suffices) */
const whileCap = { current: 100_000 };

/** Every operator type name the interpreter computes. */
export const KERNELS: Readonly<Record<string, Kernel>> = { ...ELEMENTWISE_KERNELS, ...SHAPE_KERNELS, ...NN_KERNELS, ...CONTROL_KERNELS };

/** Operators that only move data: quantized tensors pass when all share one scale and zero point. */
const MOVEMENT = new Set(['RESHAPE', 'SQUEEZE', 'EXPAND_DIMS', 'TRANSPOSE', 'CONCATENATION', 'SPLIT', 'SPLIT_V', 'UNPACK', 'PACK', 'SLICE', 'SHAPE', 'IF', 'WHILE']);

function isQuantized(t: CircleTensor): boolean {
  const dtype = dtypeOfTensorType(t.type);
  return t.quantization !== null && t.quantization.scale.length > 0 && dtype !== null && !isFloat(dtype);
}

function sameQuantization(a: CircleQuantization, b: CircleQuantization): boolean {
  return a.scale.length === b.scale.length && a.scale.every((s, i) => s === b.scale[i]) && a.zeroPoint.every((z, i) => z === b.zeroPoint[i]);
}

export class Interpreter {
  private readonly constants = new Map<string, TensorValue | null>();
  private depth = 0;
  private readonly maxDepth: number;

  constructor(
    private readonly model: CircleModel,
    private readonly options: RunOptions = {},
  ) {
    this.maxDepth = options.maxDepth ?? 64;
  }

  run(inputs: TensorValue[], subgraphIndex = this.options.subgraph ?? 0): TensorValue[] {
    const saved = whileCap.current;
    whileCap.current = this.options.maxWhileIterations ?? 100_000;
    try {
      return this.runSubgraph(subgraphIndex, inputs);
    } finally {
      whileCap.current = saved;
    }
  }

  private subgraph(index: number): CircleSubGraph {
    const sg = Number.isInteger(index) ? this.model.subgraphs[index] : undefined;
    if (!sg) throw new InterpreterError({ kind: 'invalid', message: `the model has no subgraph ${index} (it has ${this.model.subgraphs.length})` });
    return sg;
  }

  /** The decoded constant data of a tensor, or null when it has none. */
  private constant(sgIndex: number, tensorIndex: number): TensorValue | null {
    const key = `${sgIndex}:${tensorIndex}`;
    if (this.constants.has(key)) return this.constants.get(key) ?? null;
    const tensor = this.model.subgraphs[sgIndex]!.tensors[tensorIndex]!;
    const dtype = dtypeOfTensorType(tensor.type);
    let value: TensorValue | null = null;
    const buffer = this.model.buffers[tensor.buffer];
    if (buffer && !buffer.data && buffer.size > 0)
      throw new InterpreterError({ kind: 'unsupported', subgraphIndex: sgIndex, message: `tensor "${tensor.name}" keeps its data in an extended buffer, which the interpreter does not read` });
    if (buffer?.data && buffer.data.length > 0) {
      if (!dtype) throw new InterpreterError({ kind: 'unsupported', subgraphIndex: sgIndex, message: `constant tensor "${tensor.name}" has a type the interpreter does not hold` });
      try {
        value = decodeConstant(this.model, tensor, dtype);
      } catch (e) {
        throw new InterpreterError({ kind: 'invalid', subgraphIndex: sgIndex, message: `constant tensor "${tensor.name}": ${(e as Error).message}` });
      }
    }
    // a zero-element constant has no bytes to store: its value is the empty tensor
    if (!value && dtype && tensor.shape.length > 0 && elementCount(tensor.shape) === 0 && !this.model.subgraphs[sgIndex]!.inputs.includes(tensorIndex))
      value = { dtype, shape: [...tensor.shape], data: allocate(dtype, 0) };
    this.constants.set(key, value);
    return value;
  }

  runSubgraph(sgIndex: number, inputs: readonly TensorValue[]): TensorValue[] {
    const sg = this.subgraph(sgIndex);
    if (this.depth >= this.maxDepth) throw new InterpreterError({ kind: 'limit', subgraphIndex: sgIndex, message: `subgraph calls nest deeper than ${this.maxDepth}` });
    if (inputs.length !== sg.inputs.length)
      throw new InterpreterError({ kind: 'invalid', subgraphIndex: sgIndex, message: `expected ${sg.inputs.length} inputs, got ${inputs.length}` });
    const kernels = sg.operators.map((op, k) => {
      const name = operatorType(this.model, op.opcodeIndex);
      const kernel = KERNELS[name];
      if (!kernel) throw new InterpreterError({ kind: 'unsupported', operator: name, operatorIndex: k, subgraphIndex: sgIndex, message: `${name} is not supported by the reference interpreter` });
      return { name, kernel };
    });
    const values = new Array<TensorValue | undefined>(sg.tensors.length);
    sg.inputs.forEach((t, i) => {
      const tensor = sg.tensors[t]!;
      const value = inputs[i]!;
      checkInput(tensor, value, i, sgIndex);
      values[t] = value;
    });
    const valueOf = (t: number, what: string): TensorValue => {
      const v = values[t] ?? this.constant(sgIndex, t);
      if (!v) {
        const name = sg.tensors[t]?.name ?? `#${t}`;
        throw new InterpreterError({ kind: 'invalid', subgraphIndex: sgIndex, message: `${what} tensor "${name}" has no value: it is no graph input, constant or earlier output` });
      }
      return v;
    };
    this.depth++;
    try {
      sg.operators.forEach((op, k) => {
        const { name, kernel } = kernels[k]!;
        const fail = (kind: 'unsupported' | 'invalid' | 'limit', message: string): never => {
          throw new InterpreterError({ kind, operator: name, operatorIndex: k, subgraphIndex: sgIndex, message });
        };
        const opInputs = op.inputs.map((t, i) => (t < 0 ? null : valueOf(t, `input ${i} of operator ${k} (${name}):`)));
        const quantized = [...op.inputs, ...op.outputs].filter((t) => t >= 0 && isQuantized(sg.tensors[t]!)).map((t) => sg.tensors[t]!);
        if (quantized.length > 0) {
          if (name === 'DEQUANTIZE') {
            // computes from the input's own parameters
          } else if (!MOVEMENT.has(name)) fail('unsupported', `quantized ${name} is not supported (float kernels only)`);
          const q0 = quantized[0]!.quantization!;
          if (name !== 'DEQUANTIZE' && quantized.some((t) => !sameQuantization(t.quantization!, q0))) fail('unsupported', `${name} with differing quantization parameters is not supported`);
        }
        const outputDTypes = op.outputs.map((t) => (t < 0 ? null : dtypeOfTensorType(sg.tensors[t]!.type)));
        const ctx: KernelContext = {
          inputs: opInputs,
          outputCount: op.outputs.length,
          outputDTypes,
          options: op.builtinOptions?.fields ?? {},
          inputQuantization: op.inputs.map((t) => (t < 0 ? null : (sg.tensors[t]!.quantization ?? null))),
          runSubgraph: (index, args) => this.runSubgraph(index, args),
        };
        let results: TensorValue[];
        try {
          results = kernel(ctx);
        } catch (e) {
          if (e instanceof InterpreterError) throw e;
          if (e instanceof KernelError) return fail(e.kind, e.message);
          return fail('invalid', e instanceof Error ? e.message : String(e));
        }
        if (results.length !== op.outputs.length) fail('invalid', `computed ${results.length} outputs, the model lists ${op.outputs.length}`);
        op.outputs.forEach((t, j) => {
          if (t < 0) return;
          const declared = outputDTypes[j];
          const got = results[j]!;
          if (declared && declared !== got.dtype) fail('invalid', `output ${j} ("${sg.tensors[t]!.name}") is declared ${declared} but computes as ${got.dtype}`);
          values[t] = got;
        });
      });
    } finally {
      this.depth--;
    }
    return sg.outputs.map((t) => valueOf(t, 'graph output'));
  }
}

function checkInput(tensor: CircleTensor, value: TensorValue, i: number, sgIndex: number): void {
  const fail = (message: string): never => {
    throw new InterpreterError({ kind: 'invalid', subgraphIndex: sgIndex, message: `input ${i} ("${tensor.name}"): ${message}` });
  };
  const declared = dtypeOfTensorType(tensor.type);
  if (!declared) fail(`type ${tensor.type} is not supported by the interpreter`);
  if (declared !== value.dtype) fail(`expected ${declared}, got ${value.dtype}`);
  if (elementCount(value.shape) !== value.data.length) fail(`shape ${shapeString(value.shape)} does not match ${value.data.length} elements`);
  // static dims must match; dims marked -1 in shape_signature are free
  const sig = tensor.shapeSignature && tensor.shapeSignature.length === tensor.shape.length ? tensor.shapeSignature : tensor.shape;
  if (!tensor.hasRank && tensor.shape.length === 0 && !tensor.shapeSignature) return; // unranked
  if (sig.some((d) => d === -1)) {
    if (value.shape.length !== sig.length || sig.some((d, k) => d !== -1 && d !== value.shape[k])) fail(`shape ${shapeString(value.shape)} does not fit ${shapeString(sig)}`);
    return;
  }
  if (value.shape.length !== sig.length || sig.some((d, k) => d !== value.shape[k])) {
    // a scalar and a one-element tensor are taken for each other (recipes mix [] and [1])
    if (elementCount(sig) !== 1 || elementCount(value.shape) !== 1) fail(`shape ${shapeString(value.shape)} does not fit ${shapeString(sig)}`);
  }
}

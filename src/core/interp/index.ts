/**
 * Reference interpreter for circle models (pure TypeScript): run a model on given or random
 * inputs and compare two runs, to check that partitioned and optimized models compute what the
 * source model computes.
 */
import type { CircleModel } from '../circle/model';
import { InterpreterError } from './errors';
import { Interpreter, KERNELS, type RunOptions } from './run';
import type { TensorValue } from './tensor';

export { compareOutputs, type CompareOptions, type ComparisonReport, type OutputDifference } from './compare';
export { InterpreterError, type InterpreterErrorInfo, type InterpreterErrorKind } from './errors';
export { randomInputs, type RandomInputOptions } from './random';
export { seededRandom } from '../random';
export type { RunOptions } from './run';
export { dtypeOfTensorType, fromNumbers, toNumbers, type DType, type TensorData, type TensorValue } from './tensor';

/** Operator type names (BuiltinOperator names) the interpreter computes, sorted. */
export const SUPPORTED_OPERATORS: readonly string[] = Object.keys(KERNELS).sort();

/**
 * Run a subgraph (default 0). `inputs` are in SubGraph.inputs order, or keyed by input tensor
 * name. Returns the outputs in SubGraph.outputs order. Throws `InterpreterError` for an
 * unsupported operator (naming it and its index), bad inputs, or a runaway WHILE.
 */
export function run(model: CircleModel, inputs: TensorValue[] | Record<string, TensorValue>, options: RunOptions = {}): TensorValue[] {
  const index = options.subgraph ?? 0;
  const sg = model.subgraphs[index];
  if (!sg) throw new InterpreterError({ kind: 'invalid', message: `the model has no subgraph ${index} (it has ${model.subgraphs.length})` });
  let ordered: TensorValue[];
  if (Array.isArray(inputs)) ordered = inputs;
  else {
    const names = sg.inputs.map((t) => sg.tensors[t]!.name);
    const unknown = Object.keys(inputs).filter((k) => !names.includes(k));
    if (unknown.length > 0) throw new InterpreterError({ kind: 'invalid', subgraphIndex: index, message: `no graph input is named ${unknown.map((n) => `"${n}"`).join(', ')} (inputs: ${names.join(', ')})` });
    ordered = names.map((name) => {
      const v = inputs[name];
      if (!v) throw new InterpreterError({ kind: 'invalid', subgraphIndex: index, message: `no value given for input "${name}"` });
      return v;
    });
  }
  return new Interpreter(model, options).run(ordered, index);
}

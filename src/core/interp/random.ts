/**
 * Deterministic random inputs for a subgraph: one tensor per graph input, of its dtype and shape
 * (a dynamic dimension, -1 in shape_signature, becomes 1), from the project's seeded generator
 * (`core/random.ts`), so the same seed gives the same bytes everywhere.
 *
 * Default ranges follow ONE's value tests (numpy `random_sample` for floats): floats in [0, 1),
 * which keeps SQRT / RSQRT / LOG / POW of the fixture recipes finite; integers in [0, 10); bools
 * half true.
 */
import type { CircleModel } from '../circle/model';
import { InterpreterError } from './errors';
import { seededRandom } from '../random';
import { dtypeOfTensorType, elementCount, fromNumbers, isFloat, type TensorValue } from './tensor';

export interface RandomInputOptions {
  subgraph?: number;
  /** [min, max) for float inputs; default [0, 1) */
  floatRange?: [number, number];
  /** [min, max) for integer inputs; default [0, 10) */
  intRange?: [number, number];
}

export function randomInputs(model: CircleModel, seed: number, options: RandomInputOptions = {}): TensorValue[] {
  const index = options.subgraph ?? 0;
  const sg = model.subgraphs[index];
  if (!sg) throw new InterpreterError({ kind: 'invalid', message: `the model has no subgraph ${index}` });
  const random = seededRandom(seed);
  const [fmin, fmax] = options.floatRange ?? [0, 1];
  const [imin, imax] = options.intRange ?? [0, 10];
  return sg.inputs.map((t, i) => {
    const tensor = sg.tensors[t]!;
    const dtype = dtypeOfTensorType(tensor.type);
    if (!dtype) throw new InterpreterError({ kind: 'unsupported', subgraphIndex: index, message: `input ${i} ("${tensor.name}") has a type the interpreter does not hold` });
    const sig = tensor.shapeSignature && tensor.shapeSignature.length === tensor.shape.length ? tensor.shapeSignature : tensor.shape;
    const shape = sig.map((d) => (d < 0 ? 1 : d));
    const n = elementCount(shape);
    const values = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const u = random();
      if (dtype === 'bool') values[k] = u < 0.5 ? 0 : 1;
      else if (isFloat(dtype)) values[k] = fmin + (fmax - fmin) * u;
      else values[k] = Math.floor(imin + (imax - imin) * u);
    }
    return fromNumbers(dtype, shape, values);
  });
}

/**
 * Names of circle enum values: operator codes, tensor types and every other enum of the schema.
 * Unknown values get a readable placeholder (`Unknown(<n>)`, `TensorType(<n>)`), never an error.
 */
import { BuiltinOperator } from './generated/circle/builtin-operator';
import { TensorType } from './generated/circle/tensor-type';
import type { CircleModel } from './model';
import { CIRCLE_SCHEMA } from './schema-table';

/** BuiltinOperator enum name of a code (negative circle codes included), `Unknown(<n>)` otherwise. */
export function builtinOperatorName(code: number): string {
  const name = (BuiltinOperator as unknown as Record<number, string | undefined>)[code];
  return typeof name === 'string' ? name : `Unknown(${code})`;
}

/** TensorType enum name (`FLOAT32`, `UINT4`, ...), `TensorType(<n>)` for unknown values. */
export function tensorTypeName(type: number): string {
  const name = (TensorType as unknown as Record<number, string | undefined>)[type];
  return typeof name === 'string' ? name : `TensorType(${type})`;
}

/** Lower-case dtype for type strings: `float32`, `int8`, `uint4`; unknown: `TensorType(<n>)`. */
export function dtypeName(type: number): string {
  const name = (TensorType as unknown as Record<number, string | undefined>)[type];
  return typeof name === 'string' ? name.toLowerCase() : `TensorType(${type})`;
}

/** `float32[1,224,224,3]`; a dynamic dimension (-1 in shape_signature) shows as `?`. */
export function tensorTypeString(type: number, shape: number[], shapeSignature?: number[] | null): string {
  const dims = shapeSignature && shapeSignature.length === shape.length ? shape.map((d, i) => (shapeSignature[i] === -1 ? '?' : String(d))) : shape.map(String);
  return `${dtypeName(type)}[${dims.join(',')}]`;
}

const enumNames = new Map<string, Map<number, string>>();
for (const [name, e] of Object.entries(CIRCLE_SCHEMA.enums)) {
  const m = new Map<number, string>();
  for (const [k, v] of Object.entries(e.values)) if (!m.has(v)) m.set(v, k);
  enumNames.set(name, m);
}

/** Name of a value of any schema enum (e.g. `ActivationFunctionType`, 1 -> `RELU`). */
export function enumValueName(enumName: string, value: number): string {
  return enumNames.get(enumName)?.get(value) ?? `${enumName}(${value})`;
}

/** The op type shown on a node: the BuiltinOperator name, or the custom_code of a custom op. */
export function operatorType(model: CircleModel, opcodeIndex: number): string {
  const oc = model.operatorCodes[opcodeIndex];
  if (!oc) return `Unknown(opcode_index ${opcodeIndex})`;
  if (oc.code === BuiltinOperator.CUSTOM) return oc.customCode ?? 'CUSTOM';
  return builtinOperatorName(oc.code);
}

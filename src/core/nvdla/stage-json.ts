/**
 * Stage outputs as JSON text: the plain stage data with weight arrays summarised (count, range and
 * the first values) so `network.json`, `canonical.json` and `engine.json` stay readable.
 */

export interface WeightsSummary {
  dtype: 'float32' | 'int8' | 'int16' | 'uint8' | 'uint16' | 'int32' | 'float64';
  count: number;
  min: number;
  max: number;
  first: number[];
}

const DTYPE: [new (...args: never[]) => ArrayBufferView, WeightsSummary['dtype']][] = [
  [Float32Array, 'float32'],
  [Float64Array, 'float64'],
  [Int8Array, 'int8'],
  [Int16Array, 'int16'],
  [Int32Array, 'int32'],
  [Uint8Array, 'uint8'],
  [Uint16Array, 'uint16'],
];

export function summariseArray(v: ArrayBufferView): WeightsSummary | { dtype: string; bytes: number } {
  const entry = DTYPE.find(([ctor]) => v instanceof ctor);
  if (!entry) return { dtype: 'bytes', bytes: v.byteLength };
  const a = v as unknown as ArrayLike<number>;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const first: number[] = [];
  for (let i = 0; i < Math.min(8, a.length); i++) first.push(a[i]!);
  return { dtype: entry[1], count: a.length, min: a.length ? min : 0, max: a.length ? max : 0, first };
}

/** JSON text of a stage value; typed arrays become summaries, non-finite numbers strings. */
export function stageJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (ArrayBuffer.isView(v)) return summariseArray(v);
      if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    },
    1,
  );
}

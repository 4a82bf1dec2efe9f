/** A float32 blob value: NCHW (or any rank) row-major, as Caffe stores blobs. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function tensor(shape: number[], data?: Float32Array): Tensor {
  const n = elementCount(shape);
  if (data && data.length !== n) throw new RangeError(`tensor data has ${data.length} values, shape [${shape.join(',')}] needs ${n}`);
  return { shape, data: data ?? new Float32Array(n) };
}

/**
 * The loadable's bindable tensors as a run sees them: each INPUT / OUTPUT memory entry with its
 * tensor descriptor (shape, data type, pixel format), float values in (quantised with the tensor's
 * scale for int8), float values out (dequantised), as the runtime's test app binds them.
 */
import { FormatError } from '../errors';
import type { Loadable, TensorDescListEntry } from '../loadable/model';
import { PIXEL_FORMAT } from '../loadable/names';
import { MEMORY_FLAGS } from './memory';
import type { BoundInput, OutputTensor } from './run';
import { decodeTensor, encodeTensor, tensorLayout } from './tensor-io';

export interface TensorSpec {
  kind: 'input' | 'output';
  bindId: number;
  memId: number;
  name: string;
  /** N, C, H, W of the descriptor (C includes channels the runtime pads, e.g. 4 for a 1-channel image) */
  shape: [number, number, number, number];
  dataType: 'fp16' | 'int8' | 'int16';
  /** pixel format name (`A8B8G8R8`, `FEATURE`, ...) */
  format: string;
  /** bytes of the tensor in memory */
  size: number;
  /** an int tensor needs a scale to take or give floats */
  needsScale: boolean;
}

function specOf(l: Loadable, memId: number, kind: 'input' | 'output', file: string): TensorSpec {
  const m = l.memory_list[memId]!;
  const desc = l.tensor_desc_list[m.tensor_desc_id];
  if (!desc) throw new FormatError({ kind: 'corrupt', file, path: `memory_list[${memId}].tensor_desc_id`, message: `the ${kind} names tensor descriptor ${m.tensor_desc_id}, past the ${l.tensor_desc_list.length} descriptors` });
  const layout = tensorLayout(desc, file);
  return {
    kind,
    bindId: m.bind_id,
    memId,
    name: desc.name,
    shape: [layout.shape.n, layout.shape.c, layout.shape.h, layout.shape.w],
    dataType: layout.kind,
    format: PIXEL_FORMAT[desc.pixel_format] ?? String(desc.pixel_format),
    size: desc.size,
    needsScale: layout.kind !== 'fp16',
  };
}

/** Inputs then outputs, each in bind-id order. */
export function bindableTensors(l: Loadable, file = l.file): TensorSpec[] {
  const out: TensorSpec[] = [];
  l.memory_list.forEach((m, i) => {
    if (m.flags & MEMORY_FLAGS.INPUT) out.push(specOf(l, i, 'input', file));
    else if (m.flags & MEMORY_FLAGS.OUTPUT) out.push(specOf(l, i, 'output', file));
  });
  return out.sort((a, b) => (a.kind === b.kind ? a.bindId - b.bindId : a.kind === 'input' ? -1 : 1));
}

function descOf(l: Loadable, spec: TensorSpec): TensorDescListEntry {
  return l.tensor_desc_list[l.memory_list[spec.memId]!.tensor_desc_id]!;
}

/**
 * Float NCHW values (N x `channels` x H x W, `channels` at most the descriptor's C: the runtime
 * leaves padded image channels 0) in the tensor's format; `scale` quantises int tensors.
 */
export function bindInput(l: Loadable, spec: TensorSpec, values: ArrayLike<number>, channels: number, scale: number | null, file = l.file): BoundInput {
  return { bindId: spec.bindId, bytes: encodeTensor(descOf(l, spec), file, values, channels, scale) };
}

/** An output's values as floats: fp16 as they are, int8 / int16 times `scale` (raw integers when null). */
export function outputValues(out: OutputTensor, scale: number | null, file: string): { shape: [number, number, number, number]; values: Float32Array } {
  if (!out.desc) throw new FormatError({ kind: 'corrupt', file, path: `memory_list[${out.memId}].tensor_desc_id`, message: `output ${out.bindId} has no tensor descriptor` });
  const d = decodeTensor(out.desc, file, out.bytes, scale);
  return { shape: [d.shape.n, d.shape.c, d.shape.h, d.shape.w], values: d.values };
}

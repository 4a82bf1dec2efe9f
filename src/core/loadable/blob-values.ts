/**
 * A blob's values as the descriptors that read it say they are stored (`blobElement`: CONV
 * weights in the conv's input precision, SDP operands in their own op's precision, EMU buffers in
 * their format), and their histogram (`histogram`).
 *
 * The histogram reads the bytes once: every value is counted in a table by its bit pattern (256
 * entries for 8-bit elements, 65,536 for 16-bit ones, fp16 included), and the statistics and bins
 * are computed from that table, so a 125 MB weight blob costs one pass of table increments and no
 * per-value decode. Nothing is copied: the blob stays a view into the file.
 */
import { float16FromBits } from '../fp16';
import { member, scalarText, valueOf, type DecodedStruct } from './structs';
import { allOps, type DecodedLoadable, type EmuOp, type OpSlot } from './tasks';

export type HistogramElement = 'int8' | 'uint8' | 'int16' | 'uint16' | 'fp16';

export interface Histogram {
  kind: 'histogram';
  element: HistogramElement;
  /** why these bytes are read as `element` */
  reason: string;
  count: number;
  /** finite values only */
  min: number;
  max: number;
  mean: number;
  std: number;
  zeros: number;
  /** NaN and infinities (fp16) */
  nonFinite: number;
  bins: { x0: number; x1: number; count: number }[];
}

const PRECISION_ELEMENT: Record<string, HistogramElement> = { INT8: 'int8', INT16: 'int16', FP16: 'fp16' };
const EMU_ELEMENT: Record<string, HistogramElement> = { INT8: 'int8', INT8_8: 'int8', INT16: 'int16', FF16: 'fp16', UINT8: 'uint8', UINT16: 'uint16' };

const en = (s: DecodedStruct | null, path: string): string => {
  const f = s ? member(s, path) : undefined;
  if (!f || f.missing) return '?';
  return f.enumName ?? scalarText(f);
};

/** How the descriptors that read a blob say its elements are stored, and who says so. */
export function blobElement(d: DecodedLoadable, blob: string): { element: HistogramElement; reason: string } | { element: null; reason: string } {
  for (const op of allOps(d)) {
    for (const u of op.surfaces) {
      if (u.role !== 'read' || u.location?.blob !== blob) continue;
      const who = `task ${op.task} ${op.engine === 'EMU' ? 'op' : 'slot'} ${op.slot} ${op.engine} reads it as ${u.name}`;
      if (op.engine === 'EMU') {
        const fmt = en((op as EmuOp).buffers, `${u.name}.format`);
        const el = EMU_ELEMENT[fmt];
        if (el) return { element: el, reason: `${who}, format ${fmt}` };
        continue;
      }
      const s = op as OpSlot;
      const o = s.op;
      let field: string | null = null;
      if (s.opType === 1) {
        if (u.name === 'wmb_data' || u.name === 'wgs_data') return { element: 'uint8', reason: `${who} (a sparse-weight mask: bytes)` };
        if (u.name === 'weight_data' && o && valueOf(o, 'weight_format') === 1) return { element: null, reason: `${who}, weight_format COMPRESSED: the values are not decoded` };
        field = 'in_precision';
      } else if (s.opType === 2) field = u.name === 'x1_data' ? 'x1_op.precision' : u.name === 'x2_data' ? 'x2_op.precision' : u.name === 'y_data' ? 'y_op.precision' : 'src_precision';
      else if (s.opType === 3 || s.opType === 5) field = 'precision';
      else if (s.opType === 4) field = 'in_precision';
      else if (s.opType === 0) return { element: 'uint8', reason: `${who} (BDMA copies bytes)` };
      if (field) {
        const p = en(o, field);
        const el = PRECISION_ELEMENT[p];
        if (el) return { element: el, reason: `${who}, ${field} ${p}` };
      }
    }
  }
  return { element: null, reason: 'no op slot reads this blob' };
}

/** binary16 bits -> number, 65,536 entries made once */
let F16: Float64Array | null = null;
function f16Table(): Float64Array {
  if (!F16) {
    F16 = new Float64Array(65536);
    for (let i = 0; i < 65536; i++) F16[i] = float16FromBits(i);
  }
  return F16;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Counts of every 16-bit little-endian pattern of `bytes` (a trailing odd byte is not an element). */
function count16(bytes: Uint8Array): Float64Array {
  const counts = new Float64Array(65536);
  const n = bytes.length >> 1;
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    const u16 = new Uint16Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++) counts[u16[i]!]!++;
  } else {
    for (let i = 0; i < n; i++) counts[bytes[2 * i]! | (bytes[2 * i + 1]! << 8)]!++;
  }
  return counts;
}

/** Histogram of `bytes` read as `element` (little-endian); integer types of at most 256 values get a bin each. */
export function histogram(bytes: Uint8Array, element: HistogramElement, reason: string, maxBins = 64): Histogram {
  // value of each bit pattern, and how often it occurs
  let counts: Float64Array;
  let valueOf: (pattern: number) => number;
  if (element === 'int8' || element === 'uint8') {
    counts = new Float64Array(256);
    for (let i = 0; i < bytes.length; i++) counts[bytes[i]!]!++;
    valueOf = element === 'int8' ? (p) => (p << 24) >> 24 : (p) => p;
  } else {
    counts = count16(bytes);
    const table = element === 'fp16' ? f16Table() : null;
    valueOf = table ? (p) => table[p]! : element === 'int16' ? (p) => (p << 16) >> 16 : (p) => p;
  }
  const n = element === 'int8' || element === 'uint8' ? bytes.length : bytes.length >> 1;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sq = 0;
  let zeros = 0;
  let nonFinite = 0;
  for (let p = 0; p < counts.length; p++) {
    const c = counts[p]!;
    if (c === 0) continue;
    const v = valueOf(p);
    if (!Number.isFinite(v)) {
      nonFinite += c;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    sum += c * v;
    sq += c * v * v;
    if (v === 0) zeros += c;
  }
  const count = n - nonFinite;
  if (count === 0) return { kind: 'histogram', element, reason, count: n, min: 0, max: 0, mean: 0, std: 0, zeros, nonFinite, bins: [] };
  const mean = sum / count;
  const std = Math.sqrt(Math.max(0, sq / count - mean * mean));
  const perValue = element !== 'fp16' && max - min + 1 <= 256;
  const nb = perValue ? max - min + 1 : min === max ? 1 : maxBins;
  const width = perValue ? 1 : (max - min) / nb || 1;
  const bins = new Float64Array(nb);
  for (let p = 0; p < counts.length; p++) {
    const c = counts[p]!;
    if (c === 0) continue;
    const v = valueOf(p);
    if (!Number.isFinite(v)) continue;
    bins[perValue ? v - min : Math.min(nb - 1, Math.floor((v - min) / width))]! += c;
  }
  return {
    kind: 'histogram',
    element,
    reason,
    count: n,
    min,
    max,
    mean,
    std,
    zeros,
    nonFinite,
    bins: Array.from(bins, (c, b) => (perValue ? { x0: min + b - 0.5, x1: min + b + 0.5, count: c } : { x0: min + b * width, x1: b === nb - 1 ? max : min + (b + 1) * width, count: c })),
  };
}

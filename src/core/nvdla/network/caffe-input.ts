/**
 * The input of the NVDLA network builder: a Caffe `NetParameter` as plain objects (field names
 * as in caffe.proto, enums as value names or numbers, repeated fields as arrays), which is what
 * core/textproto produces for a .prototxt and what the Caffe reader produces for a .caffemodel.
 * Blob payloads may be number arrays, typed arrays, or any object with `toFloat32()` (the Caffe
 * reader's zero-copy views).
 *
 * Only plain reads here: `field`, `num`, `has` and friends know nothing about NVDLA.
 */
export type CaffeValue = unknown;
export interface CaffeMessage {
  [field: string]: CaffeValue;
}

/** Where a layer was written (prototxt line:column). */
export interface LayerSource {
  line?: number;
  column?: number;
}

export interface CaffeDeploy {
  file: string;
  net: CaffeMessage;
  /** aligned with `net.layer` when known */
  layerSources?: LayerSource[];
}

export interface CaffeWeights {
  file: string;
  net: CaffeMessage;
}

export function isMessage(v: unknown): v is CaffeMessage {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** A sub-message (absent or not a message: undefined). */
export function sub(msg: CaffeMessage | undefined, field: string): CaffeMessage | undefined {
  const v = msg?.[field];
  return isMessage(v) ? v : undefined;
}

/** A repeated message field. */
export function subs(msg: CaffeMessage | undefined, field: string): CaffeMessage[] {
  const v = msg?.[field];
  if (Array.isArray(v)) return v.filter(isMessage);
  return isMessage(v) ? [v] : [];
}

export function has(msg: CaffeMessage | undefined, field: string): boolean {
  const v = msg?.[field];
  return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'object' && v !== null && 'toNumber' in v && typeof (v as { toNumber: unknown }).toNumber === 'function') {
    return (v as { toNumber(): number }).toNumber(); // protobufjs Long
  }
  return undefined;
}

/** A scalar number field, or `fallback` when absent. */
export function num(msg: CaffeMessage | undefined, field: string, fallback: number): number {
  const v = msg?.[field];
  const n = Array.isArray(v) ? toNumber(v[0]) : toNumber(v);
  return n === undefined ? fallback : n;
}

/** A repeated number field. */
export function nums(msg: CaffeMessage | undefined, field: string): number[] {
  const v = msg?.[field];
  if (v === undefined || v === null) return [];
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const src = v as ArrayLike<unknown>;
    const out: number[] = [];
    for (let i = 0; i < src.length; i++) {
      const n = toNumber(src[i]);
      if (n !== undefined) out.push(n);
    }
    return out;
  }
  const n = toNumber(v);
  return n === undefined ? [] : [n];
}

export function bool(msg: CaffeMessage | undefined, field: string, fallback: boolean): boolean {
  const v = msg?.[field];
  if (typeof v === 'boolean') return v;
  const n = toNumber(v);
  return n === undefined ? fallback : n !== 0;
}

export function str(msg: CaffeMessage | undefined, field: string, fallback = ''): string {
  const v = msg?.[field];
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return fallback;
}

export function strs(msg: CaffeMessage | undefined, field: string): string[] {
  const v = msg?.[field];
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : x instanceof Uint8Array ? new TextDecoder().decode(x) : String(x)));
  if (typeof v === 'string') return [v];
  return [];
}

/** An enum field as its value name, given the enum's names by number; `fallback` when absent. */
export function enumName(msg: CaffeMessage | undefined, field: string, names: readonly string[], fallback: string): string {
  const v = msg?.[field];
  if (typeof v === 'string') return v;
  const n = toNumber(v);
  if (n === undefined) return fallback;
  return names[n] ?? String(n);
}

/** The float values of a blob field (`data`), whatever form they come in. */
export function floats(v: unknown): Float32Array | null {
  if (v === undefined || v === null) return null;
  if (v instanceof Float32Array) return v;
  if (typeof v === 'object' && 'toFloat32' in v && typeof (v as { toFloat32: unknown }).toFloat32 === 'function') {
    return (v as { toFloat32(): Float32Array }).toFloat32();
  }
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const src = v as ArrayLike<unknown>;
    const out = new Float32Array(src.length);
    for (let i = 0; i < src.length; i++) out[i] = toNumber(src[i]) ?? NaN;
    return out;
  }
  const n = toNumber(v);
  return n === undefined ? null : Float32Array.of(n);
}

/** Number of values in a blob field without decoding it. */
export function countOf(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return (v as ArrayLike<unknown>).length;
  if (typeof v === 'object' && 'count' in v && typeof (v as { count: unknown }).count === 'number') return (v as { count: number }).count;
  return toNumber(v) === undefined ? 0 : 1;
}

/**
 * Tensor values as text, laid out along the shape the way NumPy prints arrays: nested brackets,
 * one innermost row per line (wrapped between numbers, never inside one), blank lines between
 * higher-rank blocks, and past `threshold` elements only the first and last `edge` entries of
 * each axis with `...` between them. Numbers are right-aligned to a common width.
 *
 * Float32 values print the shortest decimal that reads back as the same float32 (`0.001`, not
 * `0.0010000000474974513`). Written by hand: NumPy's printer is the specification, and no npm
 * library prints a strided, elided view over a reader function.
 */

/**
 * Characters per line in the side panel's values box when the panel does not say its width: what
 * the default panel (28% of a 1280-pixel window) holds at the box's 11 px monospace.
 */
export const PANEL_WIDTH = 46;
/** the narrowest and widest lines the panel may ask for */
const PANEL_WIDTH_MIN = 24;
const PANEL_WIDTH_MAX = 200;

/** A width the panel asked for, held to PANEL_WIDTH_MIN..MAX (anything else: PANEL_WIDTH). */
export function panelWidth(chars: number | undefined): number {
  if (chars === undefined || !Number.isFinite(chars)) return PANEL_WIDTH;
  return Math.min(PANEL_WIDTH_MAX, Math.max(PANEL_WIDTH_MIN, Math.floor(chars)));
}

export type ValueKind = 'float32' | 'float64' | 'integer' | 'bool';

/** The shortest decimal text that reads back (as a float32) as the same float32 value. */
export function float32Text(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const f = Math.fround(x);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return numberText(Number(s));
  }
  return numberText(f); // 9 significant digits always round-trip; not reached
}

/** A float64 the way JavaScript prints it (already the shortest round-trip text). */
export function float64Text(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return numberText(x);
}

/** JavaScript's spelling: plain from 1e-7 to 1e21, an exponent outside (`1e-8`, `1e+21`). */
function numberText(x: number): string {
  return String(x);
}

export function valueText(v: number | boolean, kind: ValueKind): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  switch (kind) {
    case 'bool':
      return v !== 0 ? 'true' : 'false';
    case 'integer':
      return String(v);
    case 'float64':
      return float64Text(v);
    default:
      return float32Text(v);
  }
}

export interface TensorTextOptions {
  /** entries kept at each end of an axis when eliding (NumPy: 3) */
  edge?: number;
  /** elide when the tensor has more elements than this (NumPy: 1000) */
  threshold?: number;
  /** wrap innermost rows at this many characters, between numbers (NumPy: 75) */
  width?: number;
}

const ELLIPSIS = -1;

/** The indices printed along an axis of `n` entries: all, or the first and last `edge` with an ellipsis marker between. */
function axisIndices(n: number, summarise: boolean, edge: number): number[] {
  if (!summarise || n <= 2 * edge) return Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  for (let i = 0; i < edge; i++) out.push(i);
  out.push(ELLIPSIS);
  for (let i = n - edge; i < n; i++) out.push(i);
  return out;
}

/**
 * `get(i)` reads element `i` in row-major order; only the elements printed are read, so a big
 * tensor costs O(printed). When `count` disagrees with the shape (a short buffer), the values
 * print as one row of `count`.
 */
export function tensorText(shape: readonly number[], count: number, get: (index: number) => number | boolean, kind: ValueKind, options: TensorTextOptions = {}): string {
  const edge = Math.max(1, options.edge ?? 3);
  const threshold = options.threshold ?? 1000;
  const width = options.width ?? 75;
  const expected = shape.reduce((a, d) => a * Math.max(d, 0), 1);
  const dims = expected === count && shape.every((d) => d >= 0) ? shape : [count];
  if (dims.length === 0) return count > 0 ? valueText(get(0), kind) : '[]';
  const summarise = count > threshold;
  const strides: number[] = new Array<number>(dims.length);
  let s = 1;
  for (let d = dims.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d]!;
  }
  const perAxis = dims.map((n) => axisIndices(n, summarise, edge));

  // first pass: the printed elements' texts and their common width
  const texts = new Map<number, string>();
  let cell = 0;
  const visit = (d: number, base: number) => {
    for (const i of perAxis[d]!) {
      if (i === ELLIPSIS) continue;
      const at = base + i * strides[d]!;
      if (d === dims.length - 1) {
        const t = valueText(get(at), kind);
        texts.set(at, t);
        if (t.length > cell) cell = t.length;
      } else visit(d + 1, at);
    }
  };
  visit(0, 0);

  const render = (d: number, base: number, indent: number): string => {
    const idx = perAxis[d]!;
    if (d === dims.length - 1) {
      // the innermost row, wrapped between numbers
      const lines: string[] = [];
      let line = '[';
      let startColumn = indent; // the first line starts after the outer brackets; later ones carry their indent
      idx.forEach((i, k) => {
        const item = (i === ELLIPSIS ? '...' : texts.get(base + i * strides[d]!)!.padStart(cell)) + (k < idx.length - 1 ? ',' : ']');
        const sep = k === 0 ? '' : ' ';
        const closing = k === idx.length - 1 ? d : 0; // the outer axes' brackets close on the last line
        if (k > 0 && startColumn + line.length + sep.length + item.length + closing > width) {
          lines.push(line);
          line = ' '.repeat(indent + 1) + item;
          startColumn = 0;
        } else line += sep + item;
      });
      if (idx.length === 0) line += ']';
      lines.push(line);
      return lines.join('\n');
    }
    // an outer axis: its blocks, separated by one line per remaining axis (NumPy)
    const gap = ',' + '\n'.repeat(dims.length - d - 1);
    const pad = ' '.repeat(indent + 1);
    const blocks = idx.map((i) => (i === ELLIPSIS ? '...' : render(d + 1, base + i * strides[d]!, indent + 1)));
    if (blocks.length === 0) return '[]';
    return '[' + blocks.map((b, k) => (k === 0 ? b : pad + b)).join(gap) + ']';
  };
  return render(0, 0, 0);
}

/** Elements read and printed by `tensorText` for a shape (what a caller must be able to `get`). */
export function printedCount(shape: readonly number[], count: number, options: TensorTextOptions = {}): number {
  const edge = Math.max(1, options.edge ?? 3);
  const summarise = count > (options.threshold ?? 1000);
  const expected = shape.reduce((a, d) => a * Math.max(d, 0), 1);
  const dims = expected === count && shape.every((d) => d >= 0) ? shape : [count];
  return dims.reduce((a, n) => a * axisIndices(n, summarise, edge).filter((i) => i !== ELLIPSIS).length, 1);
}

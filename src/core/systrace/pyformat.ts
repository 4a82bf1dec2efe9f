/**
 * Python-compatible number and JSON formatting, so that output matches parse_systrace.py byte
 * for byte: `repr(float)`, `'{:.2f}'.format(x)` (round half to even on exact ties) and
 * `json.dumps(obj, indent=2, sort_keys=True)` (ensure_ascii).
 */

/** `repr(x)` of a Python float. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // shortest round-trip digits, as Python's repr
  const exp = Math.abs(x).toExponential();
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp);
  if (!m) return String(x);
  const digits = m[1]! + (m[2] ?? '');
  const e = Number(m[3]);
  const decpt = e + 1; // value = 0.DIGITS x 10^decpt
  if (decpt <= -4 || decpt > 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ee = e < 0 ? `-${String(-e).padStart(2, '0')}` : `+${String(e).padStart(2, '0')}`;
    return `${sign}${mant}e${ee}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** `'{:.2f}'.format(x)`: correctly rounded, exact ties to even (JS toFixed rounds them up). */
export function pyFixed2(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s: string;
  if (a >= 1e21) {
    s = `${BigInt(a).toString()}.00`;
  } else if (Number.isInteger(a * 8) && !Number.isInteger(a * 4) && a < 2 ** 48) {
    // exact tie at the third decimal (a = odd/8): round half to even
    const scaled = a * 100; // exact: odd * 12.5
    const lo = Math.floor(scaled);
    const n = lo % 2 === 0 ? lo : lo + 1;
    const intPart = Math.floor(n / 100);
    const frac = n - intPart * 100;
    s = `${intPart}.${String(frac).padStart(2, '0')}`;
  } else {
    s = a.toFixed(2);
  }
  return neg ? `-${s}` : s;
}

/** A JSON value whose numbers know whether they are Python ints or floats. */
export type PyJson = null | boolean | string | PyInt | number | PyJson[] | { [key: string]: PyJson };

/** Marks a number to be written as a Python int. */
export class PyInt {
  constructor(readonly value: number) {}
}

function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function codepointCompare(a: string, b: string): number {
  // Python sorts str keys by code point; JS default sort is by UTF-16 unit (same for BMP)
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `json.dumps(value, indent=2, sort_keys=True)`; NaN must already be null. */
export function pyJsonDumps(value: PyJson, indent = 2, level = 0): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (value instanceof PyInt) return String(Math.trunc(value.value));
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (value === Infinity) return 'Infinity';
    if (value === -Infinity) return '-Infinity';
    return pyFloatRepr(value);
  }
  const pad = ' '.repeat(indent * (level + 1));
  const close = ' '.repeat(indent * level);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + pyJsonDumps(v, indent, level + 1)).join(',\n')}\n${close}]`;
  }
  const keys = Object.keys(value).sort(codepointCompare);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${pad}${pyJsonString(k)}: ${pyJsonDumps(value[k]!, indent, level + 1)}`).join(',\n')}\n${close}}`;
}

/**
 * Protobuf text-format printer for Caffe messages (the inverse of the text reader), used to
 * write upgraded nets (downloads) and by the round-trip property tests.
 *
 * Output follows protobuf's TextFormat::Printer: fields in field-number order, two-space
 * indentation, `name {` for messages, one `name: value` line per repeated scalar, strings in
 * double quotes with C escapes (octal for other control bytes; UTF-8 text kept as is), floats in
 * the shortest form that reads back to the same float32 (doubles: the same double), `inf`,
 * `-inf` and `nan` for the special values.
 */
import type protobuf from 'protobufjs/light.js';
import { BlobValues, isMessage, type ProtoMessage, type ProtoScalar, type ProtoValue } from './proto';
import { caffeType, enumOf, messageTypeOf } from './schema';

export interface PrintOptions {
  /** print BlobProto values (`data: ...` lines); default true. Large weight files want false. */
  blobValues?: boolean;
}

const sortedFields = new WeakMap<protobuf.Type, protobuf.Field[]>();
function fieldsOf(type: protobuf.Type): protobuf.Field[] {
  let f = sortedFields.get(type);
  if (!f) {
    f = [...type.fieldsArray].sort((a, b) => a.id - b.id);
    sortedFields.set(type, f);
  }
  return f;
}

/** Shortest decimal that reads back as the same float32 value. */
export function formatFloat32(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return cleanNumber(s);
  }
  return cleanNumber(String(f));
}

export function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** `1.50e+3` -> `1.5e+3`, `2.000` -> `2` (toPrecision pads with zeros). */
function cleanNumber(s: string): string {
  const e = s.search(/e/i);
  let mant = e < 0 ? s : s.slice(0, e);
  const exp = e < 0 ? '' : s.slice(e);
  if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
  return mant + exp;
}

const utf8 = new TextEncoder();

export function quoteString(s: string | Uint8Array): string {
  const bytes = typeof s === 'string' ? utf8.encode(s) : s;
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    switch (b) {
      case 10: out += '\\n'; break;
      case 13: out += '\\r'; break;
      case 9: out += '\\t'; break;
      case 34: out += '\\"'; break;
      case 39: out += "\\'"; break;
      case 92: out += '\\\\'; break;
      default:
        if (b < 32 || b === 127 || (typeof s !== 'string' && b >= 128)) out += '\\' + b.toString(8).padStart(3, '0');
        else if (b < 128) out += String.fromCharCode(b);
        else {
          // a UTF-8 sequence of a string: copy the whole character
          let n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
          n = Math.min(n, bytes.length - i);
          out += new TextDecoder().decode(bytes.subarray(i, i + n));
          i += n - 1;
        }
    }
  }
  return out + '"';
}

function scalarText(field: protobuf.Field, v: ProtoScalar): string {
  if (enumOf(field)) return typeof v === 'number' ? String(v) : String(v);
  switch (field.type) {
    case 'string':
    case 'bytes':
      return quoteString(v instanceof Uint8Array ? v : String(v));
    case 'bool':
      return v ? 'true' : 'false';
    case 'float':
      return formatFloat32(Number(v));
    case 'double':
      return formatDouble(Number(v));
    default:
      return String(v);
  }
}

function printMessage(msg: ProtoMessage, type: protobuf.Type, indent: string, out: string[], opts: Required<PrintOptions>): void {
  for (const field of fieldsOf(type)) {
    const v: ProtoValue | undefined = msg[field.name];
    if (v === undefined) continue;
    const sub = messageTypeOf(field);
    if (sub) {
      const list = Array.isArray(v) ? (v as ProtoMessage[]) : isMessage(v) ? [v] : [];
      for (const m of list) {
        out.push(`${indent}${field.name} {`);
        printMessage(m, sub, indent + '  ', out, opts);
        out.push(`${indent}}`);
      }
      continue;
    }
    if (v instanceof BlobValues) {
      if (!opts.blobValues) continue;
      const vals = v.toFloat32();
      const dbl = field.type === 'double';
      for (let i = 0; i < vals.length; i++) out.push(`${indent}${field.name}: ${dbl ? formatDouble(vals[i]!) : formatFloat32(vals[i]!)}`);
      continue;
    }
    if (Array.isArray(v)) {
      for (const x of v as ProtoScalar[]) out.push(`${indent}${field.name}: ${scalarText(field, x)}`);
    } else if (!isMessage(v)) {
      out.push(`${indent}${field.name}: ${scalarText(field, v as ProtoScalar)}`);
    }
  }
}

/** Prints `msg` (a caffe message of type `typeName`) as protobuf text. */
export function printTextProto(msg: ProtoMessage, typeName = 'NetParameter', options: PrintOptions = {}): string {
  const out: string[] = [];
  printMessage(msg, caffeType(typeName), '', out, { blobValues: options.blobValues ?? true });
  return out.length ? out.join('\n') + '\n' : '';
}

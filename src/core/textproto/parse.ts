/**
 * Protocol Buffers TEXT format parser (the `.prototxt` / `.recipe` syntax), driven by protobufjs
 * reflection: the message type says which fields exist and how to read each value.
 *
 * Why hand-written: protobufjs's core has no text-format parser. protobufjs 8 does ship an
 * optional `ext/textformat` extension, but it reports errors as plain `Error`s with a line number
 * only (no column, no error kind, semantic errors without a location) and it materialises
 * `Message` instances with camelCase names. We need typed `FormatError`s with line:column, plain
 * objects keyed by the .proto field names, non-fatal diagnostics, and a guaranteed linear run time
 * on hostile input; so this file implements the grammar once, for every text-format reader in core
 * (ONE recipes with tflchef.proto, Caffe prototxt with caffe.proto).
 *
 * Grammar accepted (as protobuf's C++ TextFormat::Parser):
 *   message := ( field ( ';' | ',' )? )*
 *   field   := NAME ':' scalar | NAME ':' '[' ( scalar ( ',' scalar )* )? ']'
 *            | NAME ':'? ( '{' message '}' | '<' message '>' ) | NAME ':'? '[' ( msg ( ',' msg )* )? ']'
 *   scalar  := '-'? NUMBER | '-'? IDENT (enum name, bool, inf, nan) | STRING+ (adjacent strings concatenate)
 * Comments run from `#` to the end of the line. A leading BOM is skipped; CRLF line ends are fine.
 *
 * Output: plain objects keyed by the field names as written in the .proto; repeated fields are
 * arrays; enums are their value names; 64-bit integers are numbers when exactly representable and
 * decimal strings otherwise; bytes fields are Uint8Array. Only fields present in the text appear
 * (defaults are not filled in: see `fieldValue`).
 */
import type * as protobuf from 'protobufjs';
import { FormatError, type Diagnostic, type ErrorKind } from '../errors';

export type TextScalar = number | string | boolean | Uint8Array;
export type TextValue = TextScalar | TextMessage | TextScalar[] | TextMessage[];
export interface TextMessage {
  [field: string]: TextValue;
}

export interface TextPosition {
  /** 1-based */
  line: number;
  /** 1-based, in UTF-16 code units */
  column: number;
}

/** Where a message and each occurrence of its fields were written (for error messages downstream). */
export interface MessagePositions extends TextPosition {
  /** per field: the position of each value; for repeated fields aligned with the array indices */
  fields: Record<string, TextPosition[]>;
}

export interface TextProtoResult {
  message: TextMessage;
  diagnostics: Diagnostic[];
  /** source positions of every message object in `message`, when asked for (not serialisable) */
  positions: Map<object, MessagePositions>;
}

export interface TextProtoOptions {
  /** deepest message nesting accepted (hostile input guard); default 100 */
  maxDepth?: number;
  /**
   * record `positions` (where each message and field value was written); default false, since
   * it roughly doubles the objects allocated for a large file
   */
  positions?: boolean;
}

const enum Tok {
  Eof,
  Ident,
  Number,
  String,
  Punct,
}

interface Token {
  kind: Tok;
  /** identifier / number text, punctuation character, or decoded string value */
  text: string;
  /** raw bytes of a string token when it held escapes (for bytes fields) */
  bytes: Uint8Array | null;
  line: number;
  column: number;
}

const utf8Decoder = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

class Lexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private peeked: Token | null = null;

  constructor(
    private readonly src: string,
    private readonly file: string,
  ) {
    if (src.charCodeAt(0) === 0xfeff) {
      this.pos = 1;
      this.lineStart = 1;
    }
  }

  fail(kind: ErrorKind, message: string, at: TextPosition): never {
    throw new FormatError({ kind, file: this.file, message, line: at.line, column: at.column });
  }

  peek(): Token {
    if (!this.peeked) this.peeked = this.scan();
    return this.peeked;
  }

  next(): Token {
    const t = this.peek();
    this.peeked = null;
    return t;
  }

  private skipSpaceAndComments(): void {
    const s = this.src;
    const n = s.length;
    while (this.pos < n) {
      const c = s.charCodeAt(this.pos);
      if (c === 10) {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) {
        this.pos++;
      } else if (c === 35 /* # */) {
        const nl = s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? n : nl;
      } else {
        return;
      }
    }
  }

  private scan(): Token {
    this.skipSpaceAndComments();
    const s = this.src;
    const line = this.line;
    const column = this.pos - this.lineStart + 1;
    if (this.pos >= s.length) return { kind: Tok.Eof, text: '', bytes: null, line, column };
    const start = this.pos;
    const c = s.charCodeAt(start);
    if (isIdentStart(c)) {
      let p = start + 1;
      while (p < s.length && isIdentPart(s.charCodeAt(p))) p++;
      this.pos = p;
      return { kind: Tok.Ident, text: s.slice(start, p), bytes: null, line, column };
    }
    if (isDigit(c) || (c === 46 /* . */ && isDigit(s.charCodeAt(start + 1)))) {
      let p = start + 1;
      const hex = c === 48 && (s.charCodeAt(p) === 120 || s.charCodeAt(p) === 88);
      while (p < s.length) {
        const d = s.charCodeAt(p);
        if (isIdentPart(d) || d === 46) {
          p++;
        } else if (!hex && (d === 43 || d === 45) && (s.charCodeAt(p - 1) === 101 || s.charCodeAt(p - 1) === 69)) {
          p++; // exponent sign: 1e-5, 2E+3
        } else {
          break;
        }
      }
      this.pos = p;
      return { kind: Tok.Number, text: s.slice(start, p), bytes: null, line, column };
    }
    if (c === 34 /* " */ || c === 39 /* ' */) return this.scanString(c, line, column);
    switch (c) {
      case 123: // {
      case 125: // }
      case 60: // <
      case 62: // >
      case 58: // :
      case 91: // [
      case 93: // ]
      case 44: // ,
      case 59: // ;
      case 45: // -
      case 47: // /
      case 46: // .
        this.pos++;
        return { kind: Tok.Punct, text: s[start]!, bytes: null, line, column };
      default: {
        const cp = s.codePointAt(start)!;
        const shown = cp < 32 || cp === 127 ? `\\x${cp.toString(16).padStart(2, '0')}` : String.fromCodePoint(cp);
        this.fail('syntax', `unexpected character '${shown}'`, { line, column });
      }
    }
  }

  private scanString(quote: number, line: number, column: number): Token {
    const s = this.src;
    let p = this.pos + 1;
    // fast path: no escapes
    const contentStart = p;
    while (p < s.length) {
      const c = s.charCodeAt(p);
      if (c === quote) {
        this.pos = p + 1;
        return { kind: Tok.String, text: s.slice(contentStart, p), bytes: null, line, column };
      }
      if (c === 92 /* \ */) break;
      if (c === 10) this.fail('syntax', 'string is not terminated before the end of the line', { line, column });
      p++;
    }
    if (p >= s.length) this.fail('syntax', 'string is not terminated before the end of the file', { line, column });
    // slow path: collect bytes (escapes may spell UTF-8 byte sequences, e.g. "\303\251")
    const bytes: number[] = [];
    const pushText = (text: string) => {
      for (const b of utf8Encoder.encode(text)) bytes.push(b);
    };
    pushText(s.slice(contentStart, p));
    let runStart = p;
    while (p < s.length) {
      const c = s.charCodeAt(p);
      if (c === quote) {
        pushText(s.slice(runStart, p));
        this.pos = p + 1;
        const arr = Uint8Array.from(bytes);
        return { kind: Tok.String, text: utf8Decoder.decode(arr), bytes: arr, line, column };
      }
      if (c === 10) this.fail('syntax', 'string is not terminated before the end of the line', { line, column });
      if (c !== 92) {
        p++;
        continue;
      }
      pushText(s.slice(runStart, p));
      const escAt: TextPosition = { line: this.line, column: p - this.lineStart + 1 };
      const e = s.charCodeAt(p + 1);
      p += 2;
      switch (e) {
        case 110: bytes.push(10); break; // \n
        case 116: bytes.push(9); break; // \t
        case 114: bytes.push(13); break; // \r
        case 97: bytes.push(7); break; // \a
        case 98: bytes.push(8); break; // \b
        case 102: bytes.push(12); break; // \f
        case 118: bytes.push(11); break; // \v
        case 92: bytes.push(92); break; // \\
        case 39: bytes.push(39); break; // \'
        case 34: bytes.push(34); break; // \"
        case 63: bytes.push(63); break; // \?
        case 120: // \xH or \xHH
        case 88: {
          let v = hexValue(s.charCodeAt(p));
          if (v < 0) this.fail('syntax', "'\\x' escape needs a hexadecimal digit", escAt);
          p++;
          const d = hexValue(s.charCodeAt(p));
          if (d >= 0) {
            v = v * 16 + d;
            p++;
          }
          bytes.push(v);
          break;
        }
        case 117: // \uXXXX
        case 85: {
          // \UXXXXXXXX
          const len = e === 117 ? 4 : 8;
          let v = 0;
          for (let i = 0; i < len; i++) {
            const d = hexValue(s.charCodeAt(p + i));
            if (d < 0) this.fail('syntax', `'\\${String.fromCharCode(e)}' escape needs ${len} hexadecimal digits`, escAt);
            v = v * 16 + d;
          }
          p += len;
          if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) this.fail('syntax', 'unicode escape is not a valid code point', escAt);
          pushText(String.fromCodePoint(v));
          break;
        }
        default:
          if (e >= 48 && e <= 55) {
            // octal: up to three digits
            let v = e - 48;
            for (let i = 0; i < 2; i++) {
              const d = s.charCodeAt(p);
              if (d >= 48 && d <= 55) {
                v = v * 8 + (d - 48);
                p++;
              } else break;
            }
            if (v > 255) this.fail('syntax', 'octal escape is larger than one byte', escAt);
            bytes.push(v);
          } else if (Number.isNaN(e) || e === 10) {
            this.fail('syntax', 'string is not terminated', { line, column });
          } else {
            this.fail('syntax', `invalid escape '\\${String.fromCharCode(e)}' in string`, escAt);
          }
      }
      runStart = p;
    }
    this.fail('syntax', 'string is not terminated before the end of the file', { line, column });
  }
}

/** Names for messages ("tflchef.Operation", without protobufjs's leading dot). */
const typeNames = new WeakMap<object, string>();
function typeName(t: protobuf.Type | protobuf.Enum): string {
  // memoised: protobufjs computes fullName by walking the parent chain on every access
  let name = typeNames.get(t);
  if (name === undefined) {
    name = t.fullName.startsWith('.') ? t.fullName.slice(1) : t.fullName;
    typeNames.set(t, name);
  }
  return name;
}

const resolvedRoots = new WeakSet<object>();

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const UINT32_MAX = 2n ** 32n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** "field 'x' in pkg.Msg", for error messages (built only when failing). */
function fieldDesc(type: protobuf.Type, field: protobuf.Field): string {
  return `field '${field.name}' in ${typeName(type)}`;
}

const INT_RE = /^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT_RE = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?$/;

/** Value of a literal matching INT_RE (decimal, 0x hex, or 0-prefixed octal as in C). */
function intLiteral(text: string): bigint {
  if (text.length > 1 && text[0] === '0' && text[1] !== 'x' && text[1] !== 'X') return BigInt('0o' + text.slice(1));
  return BigInt(text);
}

function describe(t: Token): string {
  switch (t.kind) {
    case Tok.Eof:
      return 'end of file';
    case Tok.String:
      return 'a string';
    default:
      return `'${t.text.length > 40 ? t.text.slice(0, 40) + '...' : t.text}'`;
  }
}

class Parser {
  readonly diagnostics: Diagnostic[] = [];
  readonly positions = new Map<object, MessagePositions>();
  private depth = 0;

  constructor(
    private readonly lex: Lexer,
    private readonly file: string,
    private readonly maxDepth: number,
    private readonly track: boolean,
  ) {}

  private fail(kind: ErrorKind, message: string, at: TextPosition): never {
    return this.lex.fail(kind, message, at);
  }

  private expectPunct(ch: string, context: string): Token {
    const t = this.lex.next();
    if (t.kind !== Tok.Punct || t.text !== ch) this.fail('syntax', `expected '${ch}' ${context}, found ${describe(t)}`, t);
    return t;
  }

  private isPunct(t: Token, ch: string): boolean {
    return t.kind === Tok.Punct && t.text === ch;
  }

  /** Parses fields until `close` ('}' / '>') or end of file (close === null). */
  parseMessage(type: protobuf.Type, close: string | null, at: TextPosition): TextMessage {
    if (++this.depth > this.maxDepth) this.fail('limit', `messages nested deeper than ${this.maxDepth} levels`, at);
    const msg: TextMessage = {};
    const pos: MessagePositions = { line: at.line, column: at.column, fields: {} };
    if (this.track) this.positions.set(msg, pos);
    for (;;) {
      const t = this.lex.next();
      if (t.kind === Tok.Eof) {
        if (close !== null) this.fail('syntax', `expected '${close}' to close the message opened at line ${at.line}:${at.column}, found end of file`, t);
        break;
      }
      if (close !== null && this.isPunct(t, close)) break;
      if (t.kind === Tok.Punct && t.text === '[') {
        this.fail('semantic', `extension and Any fields ('[...]') are not supported in ${typeName(type)}`, t);
      }
      if (t.kind !== Tok.Ident) {
        const what = close !== null && (this.isPunct(t, '}') || this.isPunct(t, '>')) ? `a field name or '${close}'` : 'a field name';
        this.fail('syntax', `expected ${what}, found ${describe(t)}`, t);
      }
      const field = Object.prototype.hasOwnProperty.call(type.fields, t.text) ? type.fields[t.text] : undefined;
      if (!field) this.fail('semantic', `unknown field '${t.text}' in ${typeName(type)}`, t);
      this.parseField(msg, pos, type, field, t);
      const sep = this.lex.peek();
      if (this.isPunct(sep, ';') || this.isPunct(sep, ',')) this.lex.next();
    }
    this.depth--;
    return msg;
  }

  private parseField(msg: TextMessage, pos: MessagePositions, type: protobuf.Type, field: protobuf.Field, nameTok: Token): void {
    if (field.map) this.fail('semantic', `map field '${field.name}' in ${typeName(type)} is not supported`, nameTok);
    const resolved = field.resolvedType;
    const isMessage = resolved !== null && 'fields' in resolved;
    let t = this.lex.peek();
    let colon = false;
    if (this.isPunct(t, ':')) {
      this.lex.next();
      colon = true;
      t = this.lex.peek();
    }
    if (this.isPunct(t, '[')) {
      this.lex.next();
      if (!field.repeated) this.fail('semantic', `field '${field.name}' in ${typeName(type)} is not repeated, so it cannot take a list`, t);
      if (!isMessage && !colon) this.fail('syntax', `expected ':' after field '${field.name}'`, t);
      this.repeatedSlot(msg, pos, field.name);
      if (this.isPunct(this.lex.peek(), ']')) {
        this.lex.next();
      } else {
        for (;;) {
          const v = this.lex.peek();
          this.store(msg, pos, type, field, this.parseValue(type, field, isMessage, v), v, nameTok);
          const sep = this.lex.next();
          if (this.isPunct(sep, ']')) break;
          if (!this.isPunct(sep, ',')) this.fail('syntax', `expected ',' or ']' in the list of '${field.name}', found ${describe(sep)}`, sep);
        }
      }
    } else {
      if (!isMessage && !colon) this.fail('syntax', `expected ':' after field '${field.name}', found ${describe(t)}`, t);
      this.store(msg, pos, type, field, this.parseValue(type, field, isMessage, t), t, nameTok);
    }
  }

  /** Makes sure a repeated field exists (so `f: []` yields an empty array). */
  private repeatedSlot(msg: TextMessage, pos: MessagePositions, name: string): void {
    if (msg[name] === undefined) {
      msg[name] = [];
      if (this.track) pos.fields[name] = [];
    }
  }

  private store(msg: TextMessage, pos: MessagePositions, type: protobuf.Type, field: protobuf.Field, value: TextScalar | TextMessage, at: Token, nameTok: Token): void {
    const name = field.name;
    if (field.repeated) {
      const arr = msg[name] as (TextScalar | TextMessage)[] | undefined;
      if (arr === undefined) {
        msg[name] = [value] as TextScalar[] | TextMessage[];
        if (this.track) pos.fields[name] = [{ line: at.line, column: at.column }];
      } else {
        arr.push(value);
        if (this.track) pos.fields[name]!.push({ line: at.line, column: at.column });
      }
      return;
    }
    if (msg[name] !== undefined) {
      this.diagnostics.push({
        severity: 'warning',
        file: this.file,
        line: nameTok.line,
        column: nameTok.column,
        message: `field '${name}' in ${typeName(type)} is not repeated but is given again; the last value wins`,
      });
    }
    msg[name] = value;
    if (this.track) pos.fields[name] = [{ line: at.line, column: at.column }];
  }

  private parseValue(type: protobuf.Type, field: protobuf.Field, isMessage: boolean, t: Token): TextScalar | TextMessage {
    if (isMessage) {
      this.lex.next();
      if (!this.isPunct(t, '{') && !this.isPunct(t, '<')) {
        this.fail('syntax', `expected '{' or '<' to open message field '${field.name}', found ${describe(t)}`, t);
      }
      return this.parseMessage(field.resolvedType as protobuf.Type, t.text === '{' ? '}' : '>', t);
    }
    return this.parseScalar(type, field);
  }

  private parseScalar(type: protobuf.Type, field: protobuf.Field): TextScalar {
    let t = this.lex.next();
    if (t.kind === Tok.String) {
      if (field.type !== 'string' && field.type !== 'bytes') this.fail('semantic', `${fieldDesc(type, field)} takes a ${field.type}, not a string`, t);
      if (field.type === 'bytes') {
        const parts: Uint8Array[] = [t.bytes ?? utf8Encoder.encode(t.text)];
        while (this.lex.peek().kind === Tok.String) {
          const n = this.lex.next();
          parts.push(n.bytes ?? utf8Encoder.encode(n.text));
        }
        if (parts.length === 1) return parts[0]!;
        const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
        let o = 0;
        for (const p of parts) {
          out.set(p, o);
          o += p.length;
        }
        return out;
      }
      let s = t.text;
      while (this.lex.peek().kind === Tok.String) s += this.lex.next().text;
      return s;
    }
    if (field.type === 'string' || field.type === 'bytes') this.fail('semantic', `${fieldDesc(type, field)} takes a string, found ${describe(t)}`, t);
    const start = t;
    let negative = false;
    if (this.isPunct(t, '-')) {
      negative = true;
      t = this.lex.next();
    }
    const resolved = field.resolvedType;
    if (resolved !== null) {
      // enum (messages were handled by the caller)
      const en = resolved as protobuf.Enum;
      if (t.kind === Tok.Ident && !negative) {
        if (!Object.prototype.hasOwnProperty.call(en.values, t.text)) {
          this.fail('semantic', `unknown value '${t.text}' for enum ${typeName(en)} of ${fieldDesc(type, field)}`, t);
        }
        return t.text;
      }
      if (t.kind === Tok.Number && INT_RE.test(t.text)) {
        const n = Number(intLiteral(t.text)) * (negative ? -1 : 1);
        const name = en.valuesById[n];
        if (name === undefined) this.fail('semantic', `${n} is not a value of enum ${typeName(en)} of ${fieldDesc(type, field)}`, start);
        return name;
      }
      this.fail('semantic', `${fieldDesc(type, field)} takes an enum ${typeName(en)} value, found ${describe(t)}`, start);
    }
    switch (field.type) {
      case 'bool': {
        if (negative) this.fail('semantic', `${fieldDesc(type, field)} takes true or false, found '-'`, start);
        const v = t.text;
        if (t.kind === Tok.Ident && (v === 'true' || v === 't' || v === 'True')) return true;
        if (t.kind === Tok.Ident && (v === 'false' || v === 'f' || v === 'False')) return false;
        if (t.kind === Tok.Number && v === '1') return true;
        if (t.kind === Tok.Number && v === '0') return false;
        this.fail('semantic', `${fieldDesc(type, field)} takes true or false, found ${describe(t)}`, t);
        break;
      }
      case 'float':
      case 'double': {
        if (t.kind === Tok.Ident) {
          const v = t.text.toLowerCase();
          if (v === 'inf' || v === 'infinity') return negative ? -Infinity : Infinity;
          if (v === 'nan') return NaN;
          this.fail('semantic', `${fieldDesc(type, field)} takes a number, found ${describe(t)}`, t);
        }
        if (t.kind !== Tok.Number) this.fail(t.kind === Tok.Eof ? 'syntax' : 'semantic', `${fieldDesc(type, field)} takes a number, found ${describe(t)}`, t);
        let v: number;
        if (FLOAT_RE.test(t.text)) {
          const body = t.text.endsWith('f') || t.text.endsWith('F') ? t.text.slice(0, -1) : t.text;
          v = Number(body);
        } else if (INT_RE.test(t.text)) {
          v = Number(intLiteral(t.text));
        } else {
          this.fail('syntax', `invalid number '${t.text}'`, t);
        }
        if (field.type === 'float') v = Math.fround(v);
        return negative ? -v : v;
      }
      default: {
        const info = INT_TYPES[field.type];
        if (!info) this.fail('unsupported', `${fieldDesc(type, field)} has a type (${field.type}) this reader does not know`, t);
        if (t.kind !== Tok.Number) this.fail(t.kind === Tok.Eof ? 'syntax' : 'semantic', `${fieldDesc(type, field)} takes an integer, found ${describe(t)}`, start);
        if (!INT_RE.test(t.text)) {
          if (FLOAT_RE.test(t.text)) this.fail('semantic', `${fieldDesc(type, field)} takes an integer, found '${t.text}'`, t);
          this.fail('syntax', `invalid number '${t.text}'`, t);
        }
        let big = intLiteral(t.text);
        if (negative) big = -big;
        if (big < info.min || big > info.max) this.fail('semantic', `${negative ? '-' : ''}${t.text} is out of range for ${fieldDesc(type, field)} (${field.type})`, start);
        const n = Number(big);
        return Number.isSafeInteger(n) ? n : big.toString();
      }
    }
  }
}

const INT_TYPES: Record<string, { min: bigint; max: bigint } | undefined> = {
  int32: { min: INT32_MIN, max: INT32_MAX },
  sint32: { min: INT32_MIN, max: INT32_MAX },
  sfixed32: { min: INT32_MIN, max: INT32_MAX },
  uint32: { min: 0n, max: UINT32_MAX },
  fixed32: { min: 0n, max: UINT32_MAX },
  int64: { min: INT64_MIN, max: INT64_MAX },
  sint64: { min: INT64_MIN, max: INT64_MAX },
  sfixed64: { min: INT64_MIN, max: INT64_MAX },
  uint64: { min: 0n, max: UINT64_MAX },
  fixed64: { min: 0n, max: UINT64_MAX },
};

/**
 * Parses protobuf text `text` as a message of `type`. Throws `FormatError` (kind 'syntax',
 * 'semantic' or 'limit', with line:column) on the first error; non-fatal findings are returned
 * as diagnostics.
 */
export function parseTextProto(text: string, type: protobuf.Type, file: string, options: TextProtoOptions = {}): TextProtoResult {
  const root = type.root;
  if (!resolvedRoots.has(root)) {
    root.resolveAll();
    resolvedRoots.add(root);
  }
  const lex = new Lexer(text, file);
  const parser = new Parser(lex, file, options.maxDepth ?? 100, options.positions ?? false);
  const message = parser.parseMessage(type, null, { line: 1, column: 1 });
  return { message, diagnostics: parser.diagnostics, positions: parser.positions };
}

/**
 * The value of a singular field as present, or its declared default (enums by name), for readers
 * that need proto2 defaults (e.g. `Conv2DOptions.padding` defaults to VALID).
 */
export function fieldValue(msg: TextMessage | undefined, type: protobuf.Type, name: string): TextValue | undefined {
  const present = msg?.[name];
  if (present !== undefined) return present;
  const field = type.fields[name];
  if (!field || field.repeated) return undefined;
  field.resolve();
  const resolved = field.resolvedType;
  if (resolved !== null && 'fields' in resolved) return undefined;
  const def: unknown = field.defaultValue;
  if (resolved !== null) {
    const en = resolved as protobuf.Enum;
    if (typeof def === 'number') return en.valuesById[def];
    if (typeof def === 'string') return def;
    // proto2: the first declared value
    return Object.keys(en.values)[0];
  }
  if (typeof def === 'number' || typeof def === 'boolean' || typeof def === 'string') return def;
  if (def && typeof def === 'object' && 'low' in def && 'high' in def) {
    const l = def as { low: number; high: number; unsigned: boolean };
    const big = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
    const v = !l.unsigned && l.high < 0 ? big - 2n ** 64n : big;
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  return undefined;
}

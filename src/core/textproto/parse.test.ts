import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import protobuf from 'protobufjs/light.js';
import { parseTextProto, fieldValue, type TextMessage } from './index';
import { FormatError, type ErrorInfo } from '../errors';
import { recipeType } from '../chef/schema';
import caffeDescriptor from '../caffe/generated/caffe.json';

const root = protobuf.Root.fromJSON({
  nested: {
    t: {
      nested: {
        Color: { values: { RED: 0, GREEN: 1, BLUE: 2, NEG: -1 } },
        Inner: { fields: { name: { type: 'string', id: 1 }, n: { type: 'int32', id: 2 }, inner: { type: 'Inner', id: 3 } } },
        All: {
          fields: {
            i32: { type: 'int32', id: 1 },
            u32: { type: 'uint32', id: 2 },
            i64: { type: 'int64', id: 3 },
            u64: { type: 'uint64', id: 4 },
            s32: { type: 'sint32', id: 5 },
            f: { type: 'float', id: 6 },
            d: { type: 'double', id: 7 },
            b: { type: 'bool', id: 8 },
            s: { type: 'string', id: 9 },
            by: { type: 'bytes', id: 10 },
            color: { type: 'Color', id: 11 },
            inner: { type: 'Inner', id: 12 },
            rs: { rule: 'repeated', type: 'string', id: 13 },
            ri: { rule: 'repeated', type: 'int32', id: 14 },
            rinner: { rule: 'repeated', type: 'Inner', id: 15 },
            rcolor: { rule: 'repeated', type: 'Color', id: 16 },
            rf: { rule: 'repeated', type: 'float', id: 17 },
            dflt: { type: 'int32', id: 18, options: { default: 7 } },
            dcolor: { type: 'Color', id: 19, options: { default: 'BLUE' } },
          },
        },
      },
    },
  },
});
const All = root.lookupType('t.All');

const parse = (text: string) => parseTextProto(text, All, 'x.txt').message;

function errorOf(text: string, type: protobuf.Type = All): ErrorInfo {
  try {
    parseTextProto(text, type, 'x.txt');
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as FormatError).info;
  }
  throw new Error(`expected an error for ${JSON.stringify(text)}`);
}

describe('parseTextProto: syntax', () => {
  it('reads scalars, nested messages and comments', () => {
    const m = parse('# comment\ni32: 5 # trailing\ns: "hi" inner { name: "a" n: 2 } b: true');
    expect(m).toEqual({ i32: 5, s: 'hi', inner: { name: 'a', n: 2 }, b: true });
  });

  it('accepts { }, < >, and ": {" for messages', () => {
    expect(parse('inner < n: 1 >')).toEqual({ inner: { n: 1 } });
    expect(parse('inner: { n: 1 }')).toEqual({ inner: { n: 1 } });
    expect(parse('inner: < inner { n: 3 } >')).toEqual({ inner: { inner: { n: 3 } } });
    expect(parse('inner {}')).toEqual({ inner: {} });
  });

  it('collects repeated fields from occurrences and [a, b] lists', () => {
    expect(parse('ri: 1 ri: 2 ri: [3, 4] ri: []')).toEqual({ ri: [1, 2, 3, 4] });
    expect(parse('rinner { n: 1 } rinner: [{ n: 2 }, < n: 3 >]')).toEqual({ rinner: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    expect(parse('rs: ["a", \'b\']')).toEqual({ rs: ['a', 'b'] });
  });

  it('accepts ; and , separators', () => {
    expect(parse('i32: 1; u32: 2, inner { n: 1; name: "z", }')).toEqual({ i32: 1, u32: 2, inner: { n: 1, name: 'z' } });
  });

  it('reads integers: decimal, hex, octal, negative, 64-bit', () => {
    expect(parse('i32: -0x10 u32: 0xFFFFFFFF s32: 017')).toEqual({ i32: -16, u32: 4294967295, s32: 15 });
    expect(parse('i64: -9007199254740991 u64: 18446744073709551615')).toEqual({ i64: -9007199254740991, u64: '18446744073709551615' });
    expect(parse('i32: - 3')).toEqual({ i32: -3 });
  });

  it('reads floats: exponents, suffix f, inf, nan, integers', () => {
    const m = parse('d: 1e-5 rf: [1.0f, .5, -2.5E+2, inf, -inf, nan, -Infinity, 3, 0x10, 1f]');
    expect(m.d).toBe(1e-5);
    const rf = m.rf as number[];
    expect(rf.slice(0, 5)).toEqual([1, 0.5, -250, Infinity, -Infinity]);
    expect(Number.isNaN(rf[5])).toBe(true);
    expect(rf.slice(6)).toEqual([-Infinity, 3, 16, 1]);
    expect(parse('f: 0.1').f).toBe(Math.fround(0.1));
  });

  it('reads bools in every spelling', () => {
    const words = ['true', 'false', 't', 'f', 'True', 'False', '1', '0'];
    expect(words.map((w) => parse(`b: ${w}`).b)).toEqual([true, false, true, false, true, false, true, false]);
  });

  it('reads strings: both quotes, escapes, octal/hex/unicode, concatenation', () => {
    expect(parse(`s: 'it\\'s' "\\"q\\""`).s).toBe(`it's"q"`);
    expect(parse('s: "a\\n\\t\\\\\\x41\\101\\u00e9"').s).toBe('a\n\t\\AAé');
    expect(parse('s: "\\303\\251t\\303\\251"').s).toBe('été');
    expect(parse('s: "a" \'b\' "c"').s).toBe('abc');
    expect(parse('s: "h\\U0001F600"').s).toBe('h\u{1F600}');
    expect(parse('by: "\\377\\000a"').by).toEqual(new Uint8Array([255, 0, 97]));
    expect(parse('by: "ab" "c"').by).toEqual(new Uint8Array([97, 98, 99]));
  });

  it('reads enums by name or number, returning names', () => {
    expect(parse('color: GREEN rcolor: [RED, 2, -1]')).toEqual({ color: 'GREEN', rcolor: ['RED', 'BLUE', 'NEG'] });
  });

  it('handles BOM and CRLF', () => {
    const m = parseTextProto('\uFEFFi32: 1\r\ninner {\r\n  n: 2\r\n}\r\n', All, 'x.txt');
    expect(m.message).toEqual({ i32: 1, inner: { n: 2 } });
    // columns after a BOM start at 1; CR does not count as a line
    const e = errorOf('\uFEFFi32: 1\r\n  bogus: 2\r\n');
    expect([e.line, e.column]).toEqual([2, 3]);
  });

  it('warns when a singular field is repeated, last value wins', () => {
    const r = parseTextProto('i32: 1\ni32: 2', All, 'x.txt');
    expect(r.message.i32).toBe(2);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ severity: 'warning', line: 2, column: 1 });
  });

  it('records positions of messages and field values', () => {
    const r = parseTextProto('rinner {\n  n: 1\n}\nrinner { n: 2 }\n', All, 'x.txt', { positions: true });
    const top = r.positions.get(r.message)!;
    expect(top.fields.rinner).toEqual([{ line: 1, column: 8 }, { line: 4, column: 8 }]);
    const second = (r.message.rinner as TextMessage[])[1]!;
    expect(r.positions.get(second)!.fields.n).toEqual([{ line: 4, column: 13 }]);
  });

  it('fieldValue gives present values or proto2 defaults', () => {
    const m = parse('i32: 3');
    expect(fieldValue(m, All, 'i32')).toBe(3);
    expect(fieldValue(m, All, 'dflt')).toBe(7);
    expect(fieldValue(m, All, 'dcolor')).toBe('BLUE');
    expect(fieldValue(m, All, 'color')).toBe('RED');
    expect(fieldValue(m, All, 'b')).toBe(false);
    expect(fieldValue(m, All, 's')).toBe('');
  });
});

describe('parseTextProto: errors with line:column', () => {
  const cases: [string, string, Partial<ErrorInfo>, RegExp][] = [
    ['unknown field', 'i32: 1\n  foo: 2', { kind: 'semantic', line: 2, column: 3 }, /unknown field 'foo' in t\.All/],
    ['unknown nested field', 'inner {\n n: 1\n zz: 2 }', { kind: 'semantic', line: 3, column: 2 }, /unknown field 'zz' in t\.Inner/],
    ['missing colon before scalar', 'i32 5', { kind: 'syntax', line: 1, column: 5 }, /expected ':'/],
    ['unclosed message', 'inner {\n n: 1\n', { kind: 'syntax', line: 3, column: 1 }, /expected '}' to close the message opened at line 1:7/],
    ['mismatched close', 'inner < n: 1 }', { kind: 'syntax', line: 1, column: 14 }, /expected a field name or '>'/],
    ['stray close', 'i32: 1 }', { kind: 'syntax', line: 1, column: 8 }, /expected a field name/],
    ['unterminated string', 's: "abc\n', { kind: 'syntax', line: 1, column: 4 }, /not terminated/],
    ['bad escape', 's: "a\\qb"', { kind: 'syntax', line: 1, column: 6 }, /invalid escape/],
    ['bad character', 'i32: 1 @', { kind: 'syntax', line: 1, column: 8 }, /unexpected character '@'/],
    ['int out of range', 'i32: 2147483648', { kind: 'semantic', line: 1, column: 6 }, /out of range/],
    ['negative unsigned', 'u32: -1', { kind: 'semantic', line: 1, column: 6 }, /out of range/],
    ['float for int', 'i32: 1.5', { kind: 'semantic', line: 1, column: 6 }, /takes an integer/],
    ['bad number', 'i32: 12abc', { kind: 'syntax', line: 1, column: 6 }, /invalid number '12abc'/],
    ['string for int', 'i32: "1"', { kind: 'semantic', line: 1, column: 6 }, /takes a int32, not a string/],
    ['number for string', 's: 1', { kind: 'semantic', line: 1, column: 4 }, /takes a string/],
    ['bad bool', 'b: yes', { kind: 'semantic', line: 1, column: 4 }, /takes true or false/],
    ['unknown enum name', 'color: PINK', { kind: 'semantic', line: 1, column: 8 }, /unknown value 'PINK' for enum t\.Color/],
    ['unknown enum number', 'color: 9', { kind: 'semantic', line: 1, column: 8 }, /9 is not a value of enum t\.Color/],
    ['list on singular', 'i32: [1]', { kind: 'semantic', line: 1, column: 6 }, /not repeated/],
    ['bad list separator', 'ri: [1 2]', { kind: 'syntax', line: 1, column: 8 }, /expected ',' or ']'/],
    ['scalar for message', 'inner: 5', { kind: 'syntax', line: 1, column: 8 }, /expected '\{' or '<'/],
    ['extension syntax', '[ext.x]: 1', { kind: 'semantic', line: 1, column: 1 }, /extension/],
    ['value missing at end', 'i32:', { kind: 'syntax', line: 1, column: 5 }, /takes an integer, found end of file/],
  ];
  for (const [title, text, info, message] of cases) {
    it(title, () => {
      const e = errorOf(text);
      expect(e).toMatchObject({ file: 'x.txt', ...info });
      expect(e.message).toMatch(message);
    });
  }

  it('limits nesting depth', () => {
    const deep = 'inner { '.repeat(200) + '}'.repeat(200);
    expect(errorOf(deep).kind).toBe('limit');
    expect(parseTextProto(deep, All, 'x', { maxDepth: 300 }).message.inner).toBeDefined();
  });

  it('names the tflchef message in unknown-field errors', () => {
    const e = errorOf('operation {\n  type: "Add"\n  foo: 1\n}', recipeType());
    expect(e).toMatchObject({ kind: 'semantic', line: 3, column: 3, message: "unknown field 'foo' in tflchef.Operation" });
  });
});

const fixtures = join(__dirname, '../../../test/fixtures');
function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

const caffeRoot = protobuf.Root.fromJSON(caffeDescriptor as protobuf.INamespace);
const NetParameter = caffeRoot.lookupType('caffe.NetParameter');
const caffeFiles = filesUnder(join(fixtures, 'caffe'), '.prototxt');
const recipeFiles = filesUnder(join(fixtures, 'one/recipes'), '.recipe');

describe('parseTextProto: fixtures', () => {
  it('finds the fixtures', () => {
    expect(caffeFiles.length).toBeGreaterThanOrEqual(21);
    expect(recipeFiles.length).toBe(25);
  });
  for (const f of caffeFiles) {
    it(`parses caffe ${f.slice(fixtures.length + 1)}`, () => {
      const r = parseTextProto(readFileSync(f, 'utf8'), NetParameter, f);
      const layers = (r.message.layer ?? r.message.layers) as TextMessage[];
      expect(layers.length).toBeGreaterThan(0);
      expect(r.diagnostics).toEqual([]);
    });
  }
  it('reads lenet.prototxt values', () => {
    const m = parseTextProto(readFileSync(join(fixtures, 'caffe/lenet/lenet.prototxt'), 'utf8'), NetParameter, 'lenet').message;
    const layers = m.layer as TextMessage[];
    expect(layers.map((l) => l.type)).toEqual(['Input', 'Convolution', 'Pooling', 'Convolution', 'Pooling', 'InnerProduct', 'ReLU', 'InnerProduct', 'Softmax']);
    expect(((layers[0]!.input_param as TextMessage).shape as TextMessage[])[0]).toEqual({ dim: [64, 1, 28, 28] });
    expect((layers[2]!.pooling_param as TextMessage).pool).toBe('MAX');
  });
  for (const f of recipeFiles) {
    it(`parses recipe ${f.split('/').slice(-2, -1)[0]}`, () => {
      const r = parseTextProto(readFileSync(f, 'utf8'), recipeType(), f);
      expect(r.message.operation ?? r.message.graph).toBeDefined();
      expect(r.diagnostics).toEqual([]);
    });
  }

  it('parses a 1 MB prototxt', () => {
    const one = readFileSync(join(fixtures, 'caffe/resnet-50/ResNet-50-deploy.prototxt'), 'utf8');
    const layers = one.slice(one.indexOf('layer'));
    let big = one;
    while (big.length < 1_000_000) big += layers;
    // the time is not asserted (no timing thresholds in tests); a hang fails through the test timeout
    const r = parseTextProto(big, NetParameter, 'big');
    expect((r.message.layer as TextMessage[]).length).toBeGreaterThan(1000);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('parseTextProto: properties', () => {
  const onlyFormatErrors = (text: string, type: protobuf.Type) => {
    try {
      parseTextProto(text, type, 'p');
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      const info = e.info;
      if (info.line === undefined || info.column === undefined || info.line < 1 || info.column < 1) throw new Error(`no location: ${info.message}`);
    }
  };

  it('random strings give a result or a located FormatError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => onlyFormatErrors(s, All)),
      { numRuns: 2000 },
    );
    const alphabet = fc.constantFrom(...'{}<>[]:;,-."\'\\#\n 0123456789abefxtinu_ '.split(''), 'i32', 'inner', 'rinner', 'rs', 'color', 'RED', 'f', 'by', 'inf');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }), (parts) => onlyFormatErrors(parts.join(''), All)),
      { numRuns: 3000 },
    );
  });

  it('hostile inputs end in a result or a located error (a hang fails through the test timeout)', () => {
    const huge = 1_000_000;
    for (const text of ['{'.repeat(huge), 'inner {'.repeat(huge), '"'.padEnd(huge, 'a'), '-'.repeat(huge), 'rs: ' + '"a" '.repeat(huge / 4), 'ri: [' + '1,'.repeat(huge / 2)]) {
      onlyFormatErrors(text, All);
    }
  });

  it('mutated recipes and prototxt give a result or a located FormatError', () => {
    const texts = [...recipeFiles.slice(0, 8), caffeFiles[0]!].map((f) => ({ text: readFileSync(f, 'utf8'), caffe: f.endsWith('.prototxt') }));
    const mutation = fc.record({
      which: fc.nat(texts.length - 1),
      at: fc.nat(),
      del: fc.nat(6),
      ins: fc.string({ maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (muts) => {
        const base = texts[muts[0]!.which]!;
        let s = base.text;
        for (const m of muts) {
          const at = m.at % (s.length + 1);
          s = s.slice(0, at) + m.ins + s.slice(at + m.del);
        }
        onlyFormatErrors(s, base.caffe ? NetParameter : recipeType());
      }),
      { numRuns: 1000 },
    );
  });
});

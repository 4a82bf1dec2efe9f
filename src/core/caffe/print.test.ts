import fc from 'fast-check';
import type protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { parseTextProto } from '../textproto';
import { formatFloat32, printTextProto, quoteString } from './print';
import type { ProtoMessage, ProtoScalar } from './proto';
import { caffeType, enumOf, messageTypeOf } from './schema';

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

function int64Arb(min: bigint, max: bigint): fc.Arbitrary<number | string> {
  return fc.bigInt({ min, max }).map((b) => (Number.isSafeInteger(Number(b)) ? Number(b) : b.toString()));
}

function scalarArb(field: protobuf.Field): fc.Arbitrary<ProtoScalar> {
  const en = enumOf(field);
  if (en) return fc.constantFrom(...Object.keys(en.values));
  switch (field.type) {
    case 'float':
      return fc.float();
    case 'double':
      return fc.double();
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return fc.integer(INT32);
    case 'uint32':
    case 'fixed32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return int64Arb(-(2n ** 63n), 2n ** 63n - 1n);
    case 'uint64':
    case 'fixed64':
      return int64Arb(0n, 2n ** 64n - 1n);
    case 'bool':
      return fc.boolean();
    case 'bytes':
      return fc.uint8Array({ maxLength: 8 });
    default:
      return fc.string({ unit: fc.oneof(fc.constantFrom('"', "'", '\\', '\n', '\t', '\u0001', '#', '{', 'é', '字', '😀'), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })), maxLength: 10 });
  }
}

const cache = new Map<string, fc.Arbitrary<ProtoMessage>>();

/** Random messages of a caffe type: up to 4 fields each, messages nested up to `depth` levels. */
function messageArb(type: protobuf.Type, depth: number): fc.Arbitrary<ProtoMessage> {
  const key = `${type.name}:${depth}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const fields = type.fieldsArray.filter((f) => depth > 0 || !messageTypeOf(f));
  const arb = fc.shuffledSubarray(fields, { maxLength: Math.min(4, fields.length) }).chain((chosen) => {
    const parts: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of chosen) {
      const sub = messageTypeOf(f);
      const one: fc.Arbitrary<unknown> = sub ? messageArb(sub, depth - 1) : scalarArb(f);
      parts[f.name] = f.repeated ? fc.array(one, { minLength: 1, maxLength: 3 }) : one;
    }
    return fc.record(parts) as fc.Arbitrary<ProtoMessage>;
  });
  cache.set(key, arb);
  return arb;
}

describe('text printer', () => {
  it('random NetParameter messages print to text that parses back identical', () => {
    const net = caffeType('NetParameter');
    fc.assert(
      fc.property(messageArb(net, 3), (msg) => {
        const text = printTextProto(msg);
        const back = parseTextProto(text, net, 'round.prototxt').message;
        expect(back).toEqual(msg);
      }),
      { numRuns: 400 },
    );
  });

  it('random LayerParameter messages round-trip too (every *_param type reachable)', () => {
    const layer = caffeType('LayerParameter');
    fc.assert(
      fc.property(messageArb(layer, 2), (msg) => {
        expect(parseTextProto(printTextProto(msg, 'LayerParameter'), layer, 'l').message).toEqual(msg);
      }),
      { numRuns: 400 },
    );
  });

  it('prints floats in the shortest form that reads back to the same float32', () => {
    expect(formatFloat32(Math.fround(0.1))).toBe('0.1');
    expect(formatFloat32(0.0001)).toBe('0.0001');
    expect(formatFloat32(Math.fround(1e-5))).toBe('0.00001');
    expect(formatFloat32(0.75)).toBe('0.75');
    expect(formatFloat32(-0)).toBe('-0');
    expect(formatFloat32(NaN)).toBe('nan');
    expect(formatFloat32(-Infinity)).toBe('-inf');
    expect(formatFloat32(3.4028234663852886e38)).toBe('3.4028235e+38');
    expect(quoteString('a"b\\c\n\u0001é')).toBe('"a\\"b\\\\c\\n\\001é"');
  });

  it('reads the legal-but-rare syntax of caffe.md 2.2 the same as the plain form', () => {
    const plain = `name: "n"
layer { name: "a" type: "Python" bottom: "x" top: "y" convolution_param { kernel_size: 3 kernel_size: 3 pad: 1 } param { lr_mult: 1 } param { lr_mult: 2 } }
layer { name: "p" type: "Pooling" pooling_param { pool: AVE } }
input_dim: 31 input_dim: 15 input_dim: 1`;
    const rare = `name: 'n';   # trailing comment\r
layer: < name: "" "a" , type: 'Py' "thon"; bottom: "x" top: "\\x79"
  convolution_param: { kernel_size: [3, 0x3] pad: 01 }
  param: [{ lr_mult: 1.0f }, < lr_mult: 2E0 >] >
layer { name: "p" type: "Pooling" pooling_param { pool: 1 } }
input_dim: 0x1F input_dim: 017 input_dim: 1`;
    const t = caffeType('NetParameter');
    expect(parseTextProto(rare, t, 'rare').message).toEqual(parseTextProto(plain, t, 'plain').message);
    const specials = parseTextProto('layer { loss_weight: -inf loss_weight: NaN loss_weight: Infinity loss_weight: .5 loss_weight: -2 } force_backward: t', t, 's').message;
    expect((specials.layer as ProtoMessage[])[0]!.loss_weight).toEqual([-Infinity, NaN, Infinity, 0.5, -2]);
    expect(specials.force_backward).toBe(true);
  });
});

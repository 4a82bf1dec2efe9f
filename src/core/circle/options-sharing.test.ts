/**
 * The reader's shortcut for operator options (read.ts `readOptions`): a table of scalars only
 * whose vtable and inline bytes equal those of one read before is given that one's value without
 * being decoded again. These tests hold it to the general path (`CheckedBuffer.fieldUnion`, which
 * decodes every table) on random option values, and check that a table it would share is still
 * located and checked (a broken one fails as before, with its path).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FormatError } from '../errors';
import { CheckedBuffer, defaultsOf, slotOf } from './checked';
import { CIRCLE_SCHEMA } from './schema-table';
import { read } from './read';
import { write } from './write';
import { opcode, operator, tensor } from './testing';
import type { CircleModel, OptionTable, UnionValue } from './model';

/** An options value as the reader gives it: every field of the table, the ones not given at their defaults. */
function options(type: number, name: string, fields: OptionTable): UnionValue {
  return { type, name, fields: { ...defaultsOf(CIRCLE_SCHEMA.tables[name]!), ...fields } };
}

const ADD = 0, CONV_2D = 3, LEAKY_RELU = 98;

/** A chain of operators, each with the options given (one tensor in, one out). */
function chain(opts: (UnionValue | null)[]): CircleModel {
  const tensors = [tensor('x0', [1, 4])];
  const operators = opts.map((o, i) => {
    tensors.push(tensor(`x${i + 1}`, [1, 4]));
    const code = o?.name === 'Conv2DOptions' ? 1 : o?.name === 'LeakyReluOptions' ? 2 : 0;
    return operator(code, [i], [i + 1], { builtinOptions: o });
  });
  return {
    identifier: 'CIR0',
    version: 3,
    description: '',
    operatorCodes: [opcode(ADD), opcode(CONV_2D), opcode(LEAKY_RELU)],
    subgraphs: [{ name: 'main', tensors, inputs: [0], outputs: [opts.length], operators, deprecatedDataFormat: 0 }],
    buffers: [{ data: null, offset: 0, size: 0 }],
    metadataBuffer: [],
    metadata: [],
    signatureDefs: [],
  };
}

/** Every operator's builtin_options decoded by the general path, table by table. */
function optionsByGeneralPath(bytes: Uint8Array): (UnionValue | null)[] {
  const c = new CheckedBuffer(bytes, 'x.circle');
  const root = c.table(c.deref(0, ''), '');
  const sg = c.fieldTableVector(root, slotOf('Model', 'subgraphs'), '')![0]!;
  const ops = c.fieldTableVector(sg, slotOf('SubGraph', 'operators'), '') ?? [];
  return ops.map((t) => c.fieldUnion(t, slotOf('Operator', 'builtin_options'), 'BuiltinOptions', ''));
}

/** Byte position of operator i's builtin_options table. */
function optionsTablePos(bytes: Uint8Array, i: number): number {
  const c = new CheckedBuffer(bytes, 'x.circle');
  const root = c.table(c.deref(0, ''), '');
  const sg = c.fieldTableVector(root, slotOf('Model', 'subgraphs'), '')![0]!;
  const op = c.fieldTableVector(sg, slotOf('SubGraph', 'operators'), '')![i]!;
  return c.deref(c.field(op, slotOf('Operator', 'builtin_options'), 4, ''), '');
}

const small = (values: number[]) => fc.constantFrom(...values);
const conv = fc.record({
  padding: small([0, 1]),
  stride_w: small([1, 2]),
  stride_h: small([1, 2]),
  fused_activation_function: small([0, 1, 3]),
  dilation_w_factor: small([1, 2]),
  dilation_h_factor: small([1, 2]),
}).map((fields) => options(1, 'Conv2DOptions', fields));
const add = fc.record({ fused_activation_function: small([0, 1]), pot_scale_int16: fc.boolean() }).map((fields) => options(11, 'AddOptions', fields));
// a float field (the writer stores -0 as the default 0, absent, so -0 is not among them)
const leaky = small([0, 0.5, 0.25, 1e-3]).map((alpha) => options(75, 'LeakyReluOptions', { alpha: Math.fround(alpha) }));

describe('operator options shared by their bytes', () => {
  it('every operator gets the options the general path decodes (random values, many repeats)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(conv, add, leaky, fc.constant(null)), { minLength: 1, maxLength: 40 }), (opts) => {
        const bytes = write(chain(opts));
        const general = optionsByGeneralPath(bytes);
        const model = read(bytes, 'x.circle');
        const got = model.subgraphs[0]!.operators.map((op) => op.builtinOptions);
        const bad = got.map((u, i) => ({ i, got: u, want: general[i] })).filter((x) => !sameValue(x.got, x.want));
        expect(bad).toEqual([]);
        // and they are the options written (what the writer stores reads back)
        expect(got).toEqual(opts);
      }),
      { numRuns: 150 },
    );
  });

  it('equal options are one shared, frozen value; different ones are not mixed up', () => {
    const a = options(1, 'Conv2DOptions', { padding: 1, stride_w: 2, stride_h: 2, fused_activation_function: 0, dilation_w_factor: 1, dilation_h_factor: 1 });
    const b = options(1, 'Conv2DOptions', { padding: 1, stride_w: 2, stride_h: 1, fused_activation_function: 0, dilation_w_factor: 1, dilation_h_factor: 1 });
    const ops = read(write(chain([a, b, a, b, a])), 'x.circle').subgraphs[0]!.operators.map((op) => op.builtinOptions!);
    expect(ops).toEqual([a, b, a, b, a]);
    expect(ops[2]).toBe(ops[0]);
    expect(ops[4]).toBe(ops[0]);
    expect(ops[3]).toBe(ops[1]);
    expect(ops[1]).not.toBe(ops[0]);
    expect(Object.isFrozen(ops[0]) && Object.isFrozen(ops[0]!.fields)).toBe(true);
  });

  it('a table equal to one read before is still located and checked: a broken one fails with its path', () => {
    const same = options(11, 'AddOptions', { fused_activation_function: 1, pot_scale_int16: true });
    const bytes = write(chain([same, same, same]));
    const at = optionsTablePos(bytes, 1);
    const broken = bytes.slice();
    // the table's vtable offset now points before the start of the file
    new DataView(broken.buffer).setInt32(at, at + 1000, true);
    let error: unknown;
    try {
      read(broken, 'x.circle');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).info).toMatchObject({ kind: 'corrupt', offset: at, path: 'subgraphs[0].operators[1].builtin_options' });
  });

  it('a table with the vtable of one read before but other inline bytes gets its own value', () => {
    const one = options(11, 'AddOptions', { fused_activation_function: 1, pot_scale_int16: true });
    const bytes = write(chain([one, one]));
    const at = optionsTablePos(bytes, 1);
    const c = new CheckedBuffer(bytes, 'x.circle');
    const t = c.table(at, '');
    const changed = bytes.slice();
    // fused_activation_function of the second table: RELU (1) -> RELU6 (3), the vtable unchanged
    changed[c.field(t, slotOf('AddOptions', 'fused_activation_function'), 1, '')] = 3;
    const ops = read(changed, 'x.circle').subgraphs[0]!.operators;
    expect(ops[0]!.builtinOptions).toEqual(one);
    expect(ops[1]!.builtinOptions).toEqual(options(11, 'AddOptions', { fused_activation_function: 3, pot_scale_int16: true }));
  });
});

/** deep equality with Object.is on numbers (0 and -0 apart) */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

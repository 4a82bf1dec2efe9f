import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { randomInputs, run } from '../interp';
import { originUnion } from '../origin/rules';
import { buildFromRecipe } from '../chef';
import { read } from '../circle/read';
import { write } from '../circle/write';
import { attachOrigins, originsOf } from '../origin/origins';
import { Op } from './editor';
import { optimize, UnknownPassError } from './optimize';
import { PASS_NAMES } from './pipeline';
import { ModelBuilder, actOptions, checkOptimize, conv2dOptions, opTypes, randomGraph } from './testing';

describe('optimize', () => {
  it('lists every pass once in the pipeline', () => {
    expect(PASS_NAMES).toEqual([
      'fold_constants',
      'remove_redundant_reshape',
      'remove_unnecessary_reshape',
      'fuse_instance_norm',
      'fuse_batchnorm_with_conv',
      'fuse_mul_with_conv',
      'fuse_add_with_conv',
      'fuse_activation',
    ]);
  });

  it('rejects unknown passes, naming the known ones', () => {
    expect(() => optimize(new ModelBuilder().build(), ['fuse_activation', 'nope'])).toThrow(UnknownPassError);
    expect(() => optimize(new ModelBuilder().build(), ['nope'])).toThrow(/unknown pass nope; known passes: fold_constants, /);
  });

  it('runs each pass to a fixed point in the given order and cleans dead tensors, buffers and op codes', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 2, 2, 1]);
    let t = x;
    for (let i = 0; i < 3; i++) {
      const c = b.op(Op.CONV_2D, [t, b.constF32(`f${i}`, [1, 1, 1, 1], [0.5 + i]), b.constF32(`b${i}`, [1], [i - 1])], `conv${i}`, [1, 2, 2, 1], conv2dOptions());
      const m = b.op(Op.MUL, [c, b.constF32(`s${i}`, [1], [2])], `mul${i}`, [1, 2, 2, 1], actOptions());
      t = b.op(Op.RELU, [m], `relu${i}`, [1, 2, 2, 1]);
    }
    b.output(t);
    const model = b.build();
    const r = checkOptimize(model, ['fuse_mul_with_conv', 'fuse_activation']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(r.result.log.map((l) => [l.pass, l.changed])).toEqual([
      ['fuse_mul_with_conv', 3],
      ['fuse_activation', 3],
    ]);
    expect(opTypes(r.written)).toEqual([Op.CONV_2D, Op.CONV_2D, Op.CONV_2D]);
    expect(r.result.origins.ops).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ]);
    expect(r.written.operatorCodes.map((c) => c.code)).toEqual([Op.CONV_2D]);
    expect(r.written.subgraphs[0]!.tensors).toHaveLength(1 + 3 * 3); // x + (filter, bias, output) per conv
    expect(r.result.removed.opcodes).toBe(2);
    // tensor buffers + buffers[0] + the two origin tables
    expect(r.written.buffers).toHaveLength(1 + 6 + 2);
  });

  it('a model with origin tables: the source table is copied through, the op table re-keyed', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 4]);
    const a = b.op(Op.ADD, [x, b.constF32('k', [4], [1, -2, 3, -4])], 'add', [1, 4], actOptions());
    b.output(b.op(Op.RELU, [a], 'relu', [1, 4]));
    const plain = b.build();
    const sources = new Map([
      [10, 'tf/add'],
      [11, 'tf/relu'],
      [12, 'tf/unused'],
    ]);
    const withTables = read(write(attachOrigins(plain, { kind: 'file', subgraph: 0, sources, ops: [[10], [11]], diagnostics: [] })), 'in.circle');
    const r = checkOptimize(withTables, ['fuse_activation']);
    const back = originsOf(r.written);
    expect(back.kind).toBe('file');
    expect(back.sources).toEqual(sources);
    expect(back.ops).toEqual([[10, 11]]);
    expect(r.written.metadata.map((m) => m.name)).toEqual(['ONE_source_table', 'ONE_op_table']);
  });

  it('noOrigins writes no tables', () => {
    const m = buildFromRecipe(readFileSync('test/fixtures/one/recipes/Net_InstanceNorm_003/test.recipe', 'utf8'), 'r');
    expect(optimize(m, ['fuse_instance_norm'], { noOrigins: true }).model.metadata).toEqual([]);
  });

  it('property: all passes together compute the same and keep the union of origins', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, PASS_NAMES, 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
        // a second run finds nothing left to do
        const again = optimize(r.written, PASS_NAMES);
        expect(again.log.filter((l) => l.changed !== 0)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  describe('every fixture recipe, all passes: same numbers on the interpreter, no origin lost', () => {
    const dir = 'test/fixtures/one/recipes';
    for (const name of readdirSync(dir).sort()) {
      it(name, () => {
        const model = buildFromRecipe(readFileSync(`${dir}/${name}/test.recipe`, 'utf8'), `${name}.recipe`);
        let runnable = true;
        try {
          run(model, randomInputs(model, 1));
        } catch {
          runnable = false; // an operator the interpreter does not compute: origins only
        }
        if (runnable) {
          const r = checkOptimize(model, PASS_NAMES, 2);
          expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
          expect(r.unionAfter).toEqual(r.unionBefore);
        } else {
          const r = optimize(model, PASS_NAMES);
          expect(originUnion(r.origins.ops)).toEqual(originUnion(r.originsBefore.ops));
        }
      });
    }
  });
});

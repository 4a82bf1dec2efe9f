import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildFromRecipe } from '../../chef';
import { Op } from '../editor';
import { checkOptimize, opTypes } from '../testing';

const recipe = () => buildFromRecipe(readFileSync('test/fixtures/one/recipes/Net_InstanceNorm_003/test.recipe', 'utf8'), 'Net_InstanceNorm_003.recipe');

describe('fuse_instance_norm', () => {
  it('Net_InstanceNorm_003: nine operators become one INSTANCE_NORM (code -2) with epsilon and RELU; numerics unchanged', () => {
    const r = checkOptimize(recipe(), ['fuse_instance_norm'], 4);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.INSTANCE_NORM]);
    const sg = r.written.subgraphs[0]!;
    const op = sg.operators[0]!;
    expect(r.written.operatorCodes[op.opcodeIndex]).toMatchObject({ code: -2, deprecatedBuiltinCode: -2, builtinCode: -2 });
    expect(op.builtinOptions).toEqual({ type: 254, name: 'InstanceNormOptions', fields: { epsilon: Math.fround(0.001), fused_activation_function: 1 } });
    expect(op.inputs.map((t) => sg.tensors[t]!.name)).toEqual(['Input', 'Gamma', 'Beta']);
    expect(sg.tensors[op.outputs[0]!]!.name).toBe('Add_as_terminal');
    // fuse: the union of the nine matched operators' origins
    expect(r.result.origins.ops).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8]]);
    expect(r.unionAfter).toEqual(r.unionBefore);
    // the origin tables carry the synthesised source table through
    expect(r.result.origins.sources.get(8)).toBe('Add_as_terminal');
  });

  it('does not fuse when an inner tensor has another reader', () => {
    const m = recipe();
    const sg = m.subgraphs[0]!;
    const div = sg.tensors.findIndex((t) => t.name === 'Div');
    sg.outputs.push(div);
    const r = checkOptimize(m, ['fuse_instance_norm']);
    expect(r.result.log[0]!.changed).toBe(0);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
  });
});

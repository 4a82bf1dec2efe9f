import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildFromRecipe } from '../chef';
import { read } from '../circle/read';
import { write } from '../circle/write';
import { operatorType } from '../circle/names';
import { compareOutputs, randomInputs, run, SUPPORTED_OPERATORS, InterpreterError } from './index';

const recipesDir = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'one', 'recipes');
const recipes = existsSync(recipesDir) ? readdirSync(recipesDir).filter((n) => existsSync(join(recipesDir, n, 'test.recipe'))).sort() : [];

function build(name: string) {
  return buildFromRecipe(readFileSync(join(recipesDir, name, 'test.recipe'), 'utf8'), `${name}/test.recipe`);
}

describe('every ONE fixture recipe runs', () => {
  it('finds the fixture recipes', () => {
    expect(recipes.length).toBeGreaterThanOrEqual(25);
  });

  it.each(recipes)('%s', (name) => {
    const model = build(name);
    const ops = new Set(model.subgraphs.flatMap((sg) => sg.operators.map((op) => operatorType(model, op.opcodeIndex))));
    const missing = [...ops].filter((op) => !SUPPORTED_OPERATORS.includes(op));
    const inputs = randomInputs(model, 1234);
    if (missing.length > 0) {
      // an operator outside the list: a clear error that names it, never a result
      expect(() => run(model, inputs)).toThrow(InterpreterError);
      expect(() => run(model, inputs)).toThrow(missing[0]!);
      return;
    }
    const outputs = run(model, inputs);
    expect(outputs).toHaveLength(model.subgraphs[0]!.outputs.length);
    outputs.forEach((o, i) => {
      const t = model.subgraphs[0]!.tensors[model.subgraphs[0]!.outputs[i]!]!;
      expect(o.shape).toEqual(t.shape);
      if (o.dtype === 'float32') for (const v of o.data as Float32Array) expect(Number.isFinite(v)).toBe(true);
    });
    // deterministic, and the same after a write/read round trip of the model
    expect(compareOutputs(outputs, run(model, randomInputs(model, 1234))).ok).toBe(true);
    const reread = read(write(model), `${name}.circle`);
    const again = run(reread, randomInputs(reread, 1234));
    const report = compareOutputs(outputs, again, { floatTolerance: 0 });
    expect(report.ok).toBe(true);
    expect(report.maxAbsDiff).toBe(0);
  });
});

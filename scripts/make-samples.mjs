#!/usr/bin/env node
// Builds the bundled samples into public/samples/ (not committed: generated from the recipes in
// test/fixtures/one/recipes with our chef, plus synthetic models), and public/samples/index.json
// for the Samples menu. Runs before `npm start` and the browser tests.
import { register } from 'tsx/esm/api';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

register();
const { buildFromRecipe } = await import('../src/core/chef/index.ts');
const { write } = await import('../src/core/circle/write.ts');
const { resnetLikeCircle } = await import('../test/support/circle-synthetic.ts');

const out = 'public/samples';
mkdirSync(out, { recursive: true });
const index = [];

const recipes = 'test/fixtures/one/recipes';
for (const name of readdirSync(recipes).sort()) {
  const file = join(recipes, name, 'test.recipe');
  if (!existsSync(file)) continue;
  const model = buildFromRecipe(readFileSync(file, 'utf8'), file);
  writeFileSync(join(out, `${name}.circle`), write(model));
  index.push({ file: `${name}.circle`, title: name, operators: model.subgraphs.reduce((n, s) => n + s.operators.length, 0) });
}
for (const n of [1000]) {
  const model = resnetLikeCircle({ operators: n, name: `resnet_like_${n}` });
  writeFileSync(join(out, `resnet_like_${n}.circle`), write(model));
  index.unshift({ file: `resnet_like_${n}.circle`, title: `ResNet-like chain (${n} ops)`, operators: n });
}
writeFileSync(join(out, 'index.json'), JSON.stringify(index, null, 1));
console.log(`samples: ${index.length} models in ${out}`);

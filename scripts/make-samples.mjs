#!/usr/bin/env node
// Builds the bundled samples into public/samples/ (not committed: generated from the recipes in
// test/fixtures/one/recipes with our chef, plus synthetic models), and public/samples/index.json
// for the Samples menu. Runs before `npm start` and the browser tests.
//
// index.json entries: { file, title, group, operators?, files?, model? } (operators: op slots for a loadable). `file` names the tab; `files`,
// when present, lists every file opened together (a model and its .part, say). Groups:
// "models", "partition" (a model with a .part from ONE's test list), "origins" (a model that
// carries ONE origin tables), "profiles" (systrace captures), "loadables" (NVDLA loadables: goldens
// of the upstream compiler, KMD regression flatbufs, and a deliberately damaged copy).
import { register } from 'tsx/esm/api';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

register();
const { buildFromRecipe } = await import('../src/core/chef/index.ts');
const { write } = await import('../src/core/circle/write.ts');
const { optimize } = await import('../src/core/optimize/index.ts');
const { resnetLikeCircle } = await import('../test/support/circle-synthetic.ts');
const { damagedLoadable } = await import('../test/support/nvdla-damaged.ts');
const { read: readLoadable } = await import('../src/core/loadable/read.ts');
const { decodeTasks, allOps } = await import('../src/core/loadable/tasks.ts');

const out = 'public/samples';
mkdirSync(out, { recursive: true });
const index = [];
const operatorsOf = (model) => model.subgraphs.reduce((n, s) => n + s.operators.length, 0);

for (const n of [1000]) {
  const model = resnetLikeCircle({ operators: n, name: `resnet_like_${n}` });
  writeFileSync(join(out, `resnet_like_${n}.circle`), write(model));
  index.push({ group: 'models', file: `resnet_like_${n}.circle`, title: `resnet_like_${n} (synthetic)`, operators: n });
}

const recipes = 'test/fixtures/one/recipes';
const models = new Map();
for (const name of readdirSync(recipes).sort()) {
  const file = join(recipes, name, 'test.recipe');
  if (!existsSync(file)) continue;
  const model = buildFromRecipe(readFileSync(file, 'utf8'), file);
  models.set(name, model);
  writeFileSync(join(out, `${name}.circle`), write(model));
  index.push({ group: 'models', file: `${name}.circle`, title: name, operators: operatorsOf(model) });
}

// A model with its .part, for every entry of ONE's test list whose recipe and .part we hold.
const parts = 'test/fixtures/one/parts';
const seen = new Set();
for (const m of readFileSync(join(parts, 'test.lst'), 'utf8').matchAll(/^add\((\S+)\s+(\S+)\s+(\d+)\)/gm)) {
  const [, recipe, part] = m;
  const partFile = `${part}.part`;
  if (!models.has(recipe) || !existsSync(join(parts, partFile)) || seen.has(partFile)) continue;
  seen.add(partFile);
  copyFileSync(join(parts, partFile), join(out, partFile));
  index.push({
    group: 'partition',
    file: `${recipe}.circle`,
    files: [`${recipe}.circle`, partFile],
    title: partFile,
    model: recipe,
    operators: operatorsOf(models.get(recipe)),
  });
}

// A model carrying ONE_source_table / ONE_op_table: Net_InstanceNorm_003 after fuse_instance_norm.
if (models.has('Net_InstanceNorm_003')) {
  const r = optimize(models.get('Net_InstanceNorm_003'), ['fuse_instance_norm'], { file: 'Net_InstanceNorm_003.circle' });
  const file = 'Net_InstanceNorm_003.opt.circle';
  writeFileSync(join(out, file), write(r.model));
  index.push({ group: 'origins', file, title: `${file} (fuse_instance_norm)`, operators: operatorsOf(r.model) });
}

// NNAPI systrace captures from AOSP's parser tests.
const traces = 'test/fixtures/systrace/upstream/inputs';
for (const name of ['omr1.trace.txt', 'omr1_incomplete.trace.txt']) {
  if (!existsSync(join(traces, name))) continue;
  copyFileSync(join(traces, name), join(out, name));
  index.push({ group: 'profiles', file: name, title: name });
}

// NVDLA loadables: goldens of the upstream compiler (LeNet int8 with and without a calibration
// table, to compare; LeNet fp16; LeNet batch 64, 704 op slots), KMD regression flatbufs (firmware
// 0.10 / 0.11: a CDP with its LUT, the old LeNet with EMU POWER and SOFTMAX), and LeNet int8 with
// five faults (test/support/nvdla-damaged.ts) to show the damage marks.
const nvdla = 'test/fixtures/nvdla';
const loadables = [
  ['golden', 'lenet-b1-nv_full-int8-fast-math.nvdla', 'LeNet int8 fast-math'],
  ['golden', 'lenet-b1-nv_full-int8-fast-math-calib.nvdla', 'LeNet int8 fast-math, calibrated'],
  ['golden', 'lenet-b1-nv_full-fp16-fast-math.nvdla', 'LeNet fp16 fast-math'],
  ['golden', 'lenet-b64-nv_full-fp16-fast-math.nvdla', 'LeNet batch 64 fp16'],
  ['flatbufs', 'CDP_L0_0_fbuf', 'CDP_L0_0_fbuf (KMD, fw 0.10, LUT)'],
  ['flatbufs', 'NN_L0_0_fbuf', 'NN_L0_0_fbuf (KMD, fw 0.11, EMU)'],
];
const slotsOf = (bytes, name) => allOps(decodeTasks(readLoadable(bytes, name))).length;
for (const [dir, name, title] of loadables) {
  if (!existsSync(join(nvdla, dir, name))) continue;
  copyFileSync(join(nvdla, dir, name), join(out, name));
  index.push({ group: 'loadables', file: name, title, operators: slotsOf(new Uint8Array(readFileSync(join(out, name))), name) });
}
if (existsSync(join(nvdla, 'golden', 'lenet-b1-nv_full-int8-fast-math.nvdla'))) {
  const file = 'lenet-int8-damaged.nvdla';
  const bytes = damagedLoadable(new Uint8Array(readFileSync(join(nvdla, 'golden', 'lenet-b1-nv_full-int8-fast-math.nvdla'))), file);
  writeFileSync(join(out, file), bytes);
  index.push({ group: 'loadables', file, title: 'LeNet int8, damaged (5 faults)', operators: slotsOf(bytes, file) });
}

writeFileSync(join(out, 'index.json'), JSON.stringify(index, null, 1));
console.log(`samples: ${index.length} entries in ${out}`);

#!/usr/bin/env node
// Builds the bundled samples into public/samples/ (not committed: generated from the recipes in
// test/fixtures/one/recipes with our chef, plus synthetic models), and public/samples/index.json
// for the Samples menu. Runs before `npm start` and the browser tests.
//
// index.json entries: { file, title, group, operators?, files?, model? } (operators: op slots for a loadable). `file` names the tab; `files`,
// when present, lists every file opened together (a model and its .part, say). Groups:
// "models", "partition" (a model with a .part from ONE's test list), "origins" (a model that
// carries ONE origin tables), "profiles" (systrace captures), "caffe" (Caffe nets, with their
// weights when the fixtures have them, and an MNIST digit to run LeNet on), "loadables" (NVDLA
// loadables: goldens of the upstream compiler, KMD regression flatbufs, and a deliberately damaged copy).
import { register } from 'tsx/esm/api';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
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

// Caffe nets from test/fixtures/caffe, copied under names that do not collide (several are deploy.prototxt).
const caffe = 'test/fixtures/caffe';
const caffeFile = (from, to = from.split('/').pop()) => {
  copyFileSync(join(caffe, from), join(out, to));
  return to;
};
if (existsSync(caffe)) {
  const lenet = [caffeFile('lenet/lenet.prototxt'), caffeFile('lenet/lenet_iter_10000.caffemodel'), caffeFile('lenet/lenet_train_test.prototxt')];
  index.push({ group: 'caffe', file: lenet[0], files: lenet.slice(0, 2), title: 'LeNet with its trained weights' });
  // an MNIST digit as a PNG (the mnist package, a dev dependency): dropped with the net it runs at once
  const require = createRequire(import.meta.url);
  let digit = null;
  try {
    const { PNG } = require('pngjs');
    const raw = JSON.parse(readFileSync(require.resolve('mnist/src/digits/7.json'), 'utf8')).data;
    const png = new PNG({ width: 28, height: 28 });
    for (let i = 0; i < 784; i++) {
      const v = Math.round(raw[i] * 255);
      png.data.set([v, v, v, 255], i * 4);
    }
    digit = 'mnist_7.png';
    writeFileSync(join(out, digit), PNG.sync.write(png));
  } catch (e) {
    console.warn(`samples: no MNIST digit (${e.message})`);
  }
  if (digit) index.push({ group: 'caffe', file: lenet[0], files: [...lenet, digit], title: 'LeNet + train_test + an MNIST 7 (runs)' });
  const cifar = [caffeFile('cifar10-quick/cifar10_quick.v1.prototxt'), caffeFile('cifar10-quick/cifar10_quick_iter_5000.caffemodel')];
  index.push({ group: 'caffe', file: cifar[0], files: cifar, title: 'CIFAR-10 quick, V1 net and V1 weights (upgraded)' });
  index.push({ group: 'caffe', file: caffeFile('legacy/caffenet_deploy.v0.prototxt'), title: 'CaffeNet in the V0 format (upgraded)' });
  index.push({ group: 'caffe', file: caffeFile('googlenet/deploy.prototxt', 'googlenet_deploy.prototxt'), title: 'GoogLeNet (structure)' });
  index.push({ group: 'caffe', file: caffeFile('resnet-50/ResNet-50-deploy.prototxt'), title: 'ResNet-50 (structure)' });
  const det1 = [caffeFile('mtcnn/det1.prototxt'), caffeFile('mtcnn/det1.caffemodel')];
  index.push({ group: 'caffe', file: det1[0], files: det1, title: 'MTCNN det1 (PReLU) with weights' });
  index.push({ group: 'caffe', file: lenet[2], title: 'LeNet train_test (TRAIN / TEST phases)' });
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

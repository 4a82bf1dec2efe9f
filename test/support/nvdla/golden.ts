/**
 * Test helpers for the golden loadables of nvdla_compiler (test/fixtures/nvdla/golden): which
 * inputs and options made each one, and the op slots of its `.summary.txt`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCalibrationTable } from '../../../src/core/nvdla/calibrate/table';
import type { CaffeDeploy, CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';
import type { NvdlaCompileOptions } from '../../../src/core/nvdla/options';
import { FIXTURES, fixtureDeploy, fixtureWeights } from './fixtures';

export const LENET_GOLDENS = [
  'lenet-b1-nv_full-fp16-basic',
  'lenet-b1-nv_full-fp16-fast-math',
  'lenet-b1-nv_full-int8-basic',
  'lenet-b1-nv_full-int8-default',
  'lenet-b1-nv_full-int8-fast-math',
  'lenet-b1-nv_full-int8-fast-math-calib',
  'lenet-b1-nv_large-fp16-fast-math',
  'lenet-b1-nv_large-int8-fast-math',
  'lenet-b1-nv_small-fp16-fast-math',
  'lenet-b1-nv_small-int8-basic',
  'lenet-b1-nv_small-int8-default',
  'lenet-b1-nv_small-int8-fast-math',
  'lenet-b64-nv_full-fp16-fast-math',
  'lenet-b64-nv_full-int8-fast-math',
  'lenet-b64-nv_small-int8-fast-math',
] as const;

export const CIFAR_GOLDENS = ['cifar10quick-b1-nv_full-fp16-fast-math', 'cifar10quick-b1-nv_full-int8-fast-math'] as const;

export interface GoldenCase {
  name: string;
  deploy: CaffeDeploy;
  weights: CaffeWeights;
  options: Partial<NvdlaCompileOptions>;
}

const cache = new Map<string, GoldenCase>();

/** the deploy, weights and nvdla_compiler options a golden was made with (nvdla.md section 14) */
export function goldenCase(name: string): GoldenCase {
  const hit = cache.get(name);
  if (hit) return hit;
  const m = /^(lenet|cifar10quick)-b(\d+)-(nv_full|nv_large|nv_small)-(int8|fp16)-(basic|default|fast-math)(-calib)?$/.exec(name);
  if (!m) throw new RangeError(`not a golden: ${name}`);
  const [, net, batch, target, precision, profile, calib] = m;
  const deploy =
    net === 'cifar10quick' ? fixtureDeploy('caffe/cifar10-quick/cifar10_quick.prototxt') : batch === '1' ? fixtureDeploy('nvdla/golden/lenet_n1.prototxt') : fixtureDeploy('nvdla/lenet/lenet.prototxt');
  const weights = net === 'cifar10quick' ? fixtureWeights('caffe/cifar10-quick/cifar10_quick_iter_5000.caffemodel') : fixtureWeights('nvdla/lenet/lenet_iter_10000.caffemodel');
  // nvdla_compiler wrote them: its post-extended image weight layout (NPU Studio's default is the one the hardware reads)
  const options: Partial<NvdlaCompileOptions> = { configtarget: target!, cprecision: precision!, profile: profile!, postExtWeights: 'nvdla_compiler' };
  if (calib) options.calibtable = parseCalibrationTable(readFileSync(join(FIXTURES, 'nvdla/golden/lenet_calib_example.json'), 'utf8'), 'lenet_calib_example.json');
  const c = { name, deploy, weights, options };
  cache.set(name, c);
  return c;
}

export interface GoldenSlot {
  slot: number;
  type: string;
  deps: number;
  consumers: [string, number, number][];
  fused: number;
}

/** the DLA op slots of a golden's `.summary.txt` (task 0) */
export function goldenSlots(name: string): GoldenSlot[] {
  return summarySlots(readFileSync(join(FIXTURES, `nvdla/golden/${name}.summary.txt`), 'utf8'));
}

/** the op slots listed in a `.summary.txt` */
export function summarySlots(text: string): GoldenSlot[] {
  const out: GoldenSlot[] = [];
  for (const m of text.matchAll(/^ {6}(\d+):(\w+)\(idx=\d+,deps=(\d+),cons=\[(.*?)\],fused=(-?\d+)\)$/gm)) {
    const consumers = [...m[4]!.matchAll(/\('(\w+)', (-?\d+), (\d+)\)/g)].map((c) => [c[1]!, Number(c[2]), Number(c[3])] as [string, number, number]);
    out.push({ slot: Number(m[1]), type: m[2]!, deps: Number(m[3]), consumers, fused: Number(m[5]) });
  }
  return out;
}

export function goldenBytes(name: string): Uint8Array {
  return readFileSync(join(FIXTURES, `nvdla/golden/${name}.nvdla`));
}

/**
 * The real-size Caffe nets the NVDLA compiler is checked on (test/fixtures/caffe deploy
 * prototxts with seeded random weights, as ../shared/tools/gen_caffemodel.py makes them), and the
 * nvdla_compiler results recorded for them in test/fixtures/nvdla/oracle/loadables.json (written
 * by ./regen-oracle.ts, which runs the reference compiler; the default tests only read it).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { read } from '../../../src/core/loadable/read';
import { readDeploy } from '../../../src/core/nvdla/network/caffe-files';
import type { CaffeDeploy, CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';
import type { NvdlaCompileOptions } from '../../../src/core/nvdla/options';
import { FIXTURES, synthetic } from './fixtures';

/** net name -> deploy prototxt under test/fixtures/caffe */
export const NET_PROTOTXTS: Record<string, string> = {
  'cifar10-quick': 'caffe/cifar10-quick/cifar10_quick.prototxt',
  'squeezenet-v1.1': 'caffe/squeezenet-v1.1/deploy.prototxt',
  'mobilenet-v1': 'caffe/mobilenet-v1/mobilenet_deploy.prototxt',
  googlenet: 'caffe/googlenet/deploy.prototxt',
  'resnet-50': 'caffe/resnet-50/ResNet-50-deploy.prototxt',
  caffenet: 'caffe/caffenet/deploy.prototxt',
  alexnet: 'caffe/alexnet/deploy.prototxt',
  vgg16: 'caffe/vgg16/deploy.prototxt',
};

/** the option sets each net is compiled with: `<config>-<precision>-<profile>` */
export const NET_OPTION_SETS = ['nv_full-fp16-basic', 'nv_full-fp16-fast-math', 'nv_full-int8-fast-math', 'nv_small-int8-fast-math'] as const;

/**
 * The prototxt text with the first dim of every input shape set to 1 (`gen_caffemodel.py
 * --batch1`: the reference nets were compiled from such a copy; only that number changes).
 */
export function batch1Text(text: string): string {
  const first = (s: string) => s.replace(/(\bdim\s*:\s*)\d+/, '$11');
  let out = text.replace(/\binput_param\s*:?\s*\{(?:[^{}]|\{[^{}]*\})*\}/g, (m) => m.replace(/\bshape\s*:?\s*\{[^{}]*\}/g, first));
  out = out.replace(/\binput_shape\s*:?\s*\{[^{}]*\}/g, first);
  let done = false;
  out = out.replace(/(\binput_dim\s*:\s*)(\d+)/g, (m, a: string) => (done ? m : ((done = true), `${a}1`)));
  return out;
}

export interface NetCase {
  tag: string;
  net: string;
  prototxtText: string;
  deploy: CaffeDeploy;
  weights: CaffeWeights;
  options: Partial<NvdlaCompileOptions>;
  /** nvdla_compiler's argv for the same compile (without --prototxt / --caffemodel) */
  args: string[];
}

/** per net: its batch-1 text and deploy, and its seeded weights once a case has asked for them */
const deployCache = new Map<string, { text: string; deploy: CaffeDeploy; weights?: CaffeWeights }>();

/** `<net>-b1-<config>-<precision>-<profile>` -> inputs and options */
export function netCase(tag: string): NetCase {
  const m = /^(.+)-b1-(nv_full|nv_large|nv_small)-(fp16|int8)-(basic|default|performance|fast-math)$/.exec(tag);
  if (!m || !NET_PROTOTXTS[m[1]!]) throw new RangeError(`not a net case: ${tag}`);
  const [, net, configtarget, cprecision, profile] = m as unknown as [string, string, string, string, string];
  let d = deployCache.get(net);
  if (!d) {
    const path = NET_PROTOTXTS[net]!;
    const text = batch1Text(readFileSync(join(FIXTURES, path), 'utf8'));
    const deploy = readDeploy(text, `${net}.prototxt`);
    d = { text, deploy };
    deployCache.set(net, d);
  }
  const entry = d;
  return {
    tag,
    net,
    prototxtText: d.text,
    deploy: d.deploy,
    // made when first read: the bench makes its own caffemodel and never reads these (ResNet-50's
    // would stay in its heap, about 100 MB, for the whole run)
    get weights() {
      return (entry.weights ??= synthetic(entry.deploy));
    },
    options: { configtarget, cprecision, profile },
    args: ['--configtarget', configtarget, '--cprecision', cprecision, '--profile', profile],
  };
}

/** one recorded nvdla_compiler result */
export interface OracleRecord {
  /** the loadable it wrote: size and sha256 of the whole file; null when it wrote none */
  bytes: number | null;
  sha256: string | null;
  /**
   * sha256 of what the loadable means (`semanticDigest`): equal for two loadables that differ
   * only in the order of a memory entry's contents (upstream keeps those in a set of pointers)
   */
  semantic: string | null;
  /** exit status and, when it failed, the last error line it printed */
  status: number | 'timeout';
  error: string | null;
  /** whole-process wall time, ms (one run, for orientation only) */
  ms: number;
}

export const ORACLE_RECORDS = join(FIXTURES, 'nvdla/oracle/loadables.json');

export function oracleRecords(): Record<string, OracleRecord> {
  return JSON.parse(readFileSync(ORACLE_RECORDS, 'utf8')) as Record<string, OracleRecord>;
}

/**
 * A digest of a loadable's content with the one order nvdla_compiler does not control: a pool's
 * contents (and their offsets) are listed in heap-address order upstream, so here they are sorted
 * by name. Everything else (every list, every blob's bytes) is taken as it is.
 */
export function semanticDigest(bytes: Uint8Array): string {
  const l = read(bytes, 'loadable');
  if (l.damage.length) throw new Error(`damaged loadable: ${l.damage[0]!.message}`);
  const h = createHash('sha256');
  const memory = l.memory_list.map((m) => {
    const pairs = m.contents.map((c, i) => [c, String(m.offsets[i])] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { ...m, contents: pairs.map((p) => p[0]), offsets: pairs.map((p) => p[1]) };
  });
  const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? undefined : x));
  h.update(json([l.version, l.task_list, memory, l.address_list, l.event_list, l.tensor_desc_list, l.reloc_list, l.submit_list]));
  for (const b of l.blobs) {
    h.update(json({ ...b, data: undefined }));
    h.update(b.data);
  }
  return h.digest('hex');
}

// ------------------------------------------------------------------ small nets

/** hand-written prototxts with one feature each, whose nvdla_compiler loadables are kept whole */
export const SMALL_DIR = join(FIXTURES, 'nvdla/oracle/small');
export const SMALL_OPTION_SETS = ['nv_full-fp16-basic', 'nv_full-fp16-fast-math', 'nv_full-int8-basic', 'nv_full-int8-fast-math', 'nv_small-int8-fast-math', 'nv_large-fp16-fast-math'] as const;

export interface SmallCase {
  tag: string;
  net: string;
  deploy: CaffeDeploy;
  weights: CaffeWeights;
  options: Partial<NvdlaCompileOptions>;
  args: string[];
}

/** `<net>-<config>-<precision>-<profile>` of a small net */
export function smallCase(tag: string): SmallCase {
  const m = /^(.+)-(nv_full|nv_large|nv_small)-(fp16|int8)-(basic|default|performance|fast-math)$/.exec(tag);
  if (!m) throw new RangeError(`not a small-net case: ${tag}`);
  const [, net, configtarget, cprecision, profile] = m as unknown as [string, string, string, string, string];
  const deploy = readDeploy(readFileSync(join(SMALL_DIR, `${net}.prototxt`), 'utf8'), `${net}.prototxt`);
  return { tag, net, deploy, weights: synthetic(deploy), options: { configtarget, cprecision, profile }, args: ['--configtarget', configtarget, '--cprecision', cprecision, '--profile', profile] };
}

export const SMALL_RECORDS = join(SMALL_DIR, 'results.json');

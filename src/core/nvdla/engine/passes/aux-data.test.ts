/**
 * The aux-data passes together (quantizeAuxData, fuseOnTheFlyNodes, handleLowPrecisionConversions,
 * translateAuxData): every weight, bias and scale blob of LeNet must equal the `tb-N` blob of the
 * golden loadable byte for byte (sha256 from the golden's flatc dump), in every combination.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCalibrationTable } from '../../calibrate/table';
import { FIXTURES, lenet } from '../../../../../test/support/nvdla/fixtures';
import { blobBytes } from '../weights';
import { fuseOnTheFlyNodesPass } from './fuse-on-the-fly-nodes';
import { handleLowPrecisionConversionsPass } from './handle-low-precision-conversions';
import { mergeActivationOperationsPass } from './merge-activation-operations';
import { preProcessAuxDataPass } from './pre-process-aux-data';
import { quantizeAuxDataPass } from './quantize-aux-data';
import { registerBuffersPass } from './register-buffers';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';
import { translateAuxDataPass } from './translate-aux-data';
import { updateScalingFactorsPass } from './update-scaling-factors';

// blob name -> sha256 prefix of the golden's data (flatc dump data_sha256)
const GOLDEN: Record<string, Record<string, string>> = {
  'nv_full-int8-fast-math': { 'tb-0': '9c8654987d596f4e', 'tb-2': 'bba8d1eddaee491e', 'tb-3': 'e513d1efe51f4aba', 'tb-4': 'cd00e292c5970d3c', 'tb-5': 'dfc6d0d7d1c7e5b9', 'tb-6': '541b3e9daa09b20b', 'tb-8': 'd25fa39dfaf6d0f0', 'tb-9': 'de47c9b27eb8d300' },
  'nv_full-fp16-fast-math': { 'tb-0': 'b998f8c06be0b938', 'tb-2': '8713b8d2ed063d13', 'tb-3': '45fb27d4efaf8598', 'tb-4': 'd5ffbef02dca4ee4', 'tb-5': 'a4c5df05c44fd11e', 'tb-6': '598fba4337bfedcd', 'tb-7': '76b1c6c07f6609d2', 'tb-8': '230ce74bfa6dd6fe' },
  'nv_full-fp16-basic': { 'tb-0': 'b998f8c06be0b938', 'tb-2': '8713b8d2ed063d13', 'tb-3': '45fb27d4efaf8598', 'tb-4': 'd5ffbef02dca4ee4', 'tb-5': 'a4c5df05c44fd11e', 'tb-6': '598fba4337bfedcd', 'tb-7': '76b1c6c07f6609d2', 'tb-8': '230ce74bfa6dd6fe' },
  'nv_full-int8-basic': { 'tb-0': '9c8654987d596f4e', 'tb-2': 'bba8d1eddaee491e', 'tb-3': 'e513d1efe51f4aba', 'tb-4': 'cd00e292c5970d3c', 'tb-5': 'dfc6d0d7d1c7e5b9', 'tb-6': '541b3e9daa09b20b', 'tb-7': '31b732186bff86c9', 'tb-8': 'd25fa39dfaf6d0f0', 'tb-9': 'de47c9b27eb8d300' },
  'nv_small-int8-fast-math': { 'tb-0': '13f097f8bf49225c', 'tb-2': 'bba8d1eddaee491e', 'tb-3': 'f19a69473e39505c', 'tb-4': 'cd00e292c5970d3c', 'tb-5': '08792cca2ba593ff', 'tb-6': '541b3e9daa09b20b', 'tb-8': '2458ad9e4ee997e0', 'tb-9': 'de47c9b27eb8d300' },
  'nv_large-int8-fast-math': { 'tb-0': '9c8654987d596f4e', 'tb-2': 'bba8d1eddaee491e', 'tb-3': 'd187f5013f1752bd', 'tb-4': 'cd00e292c5970d3c', 'tb-5': 'dfc6d0d7d1c7e5b9', 'tb-6': '541b3e9daa09b20b', 'tb-8': 'fd532b13deea3c32', 'tb-9': 'de47c9b27eb8d300' },
  'nv_full-int8-fast-math-calib': { 'tb-0': '9c8654987d596f4e', 'tb-2': '0a2002e7405d71e7', 'tb-3': 'e513d1efe51f4aba', 'tb-4': '67442606bb1351ad', 'tb-5': 'dfc6d0d7d1c7e5b9', 'tb-6': 'd3ff03d75410d0a6', 'tb-8': 'd25fa39dfaf6d0f0', 'tb-9': '5bb7f174f855c43b' },
};

/** the blobs with nvdla_compiler's post-extended image weight layout (the goldens are its loadables) unless `options` says otherwise */
function blobsOf(options: Record<string, unknown>) {
  const { deploy, weights } = lenet();
  const { graph, ctx } = engineFor(deploy, weights, { batch: 1, postExtWeights: 'nvdla_compiler', ...options });
  const g = runPasses(graph, ctx, [registerBuffersPass, preProcessAuxDataPass, mergeActivationOperationsPass, updateScalingFactorsPass, quantizeAuxDataPass, fuseOnTheFlyNodesPass, handleLowPrecisionConversionsPass, translateAuxDataPass]).at(-1)!;
  const out: Record<string, string> = {};
  for (const n of g.nodes) {
    const p = n.params;
    const blob = p.kind === 'conv' ? p.conv.dlaWeights : p.kind === 'sdp-bias' ? p.dlaBiasData : p.kind === 'sdp-scale' ? p.dlaScaleData : null;
    if (!blob) continue;
    const tsd = g.surfaces.find((s) => s.edge === n.auxEdges[0])!;
    out[tsd.buffer!] = createHash('sha256').update(blobBytes(blob, tsd.size)).digest('hex').slice(0, 16);
  }
  return { out, g };
}

describe('aux-data passes on LeNet', () => {
  it('int8 fast-math nv_full: every tb-N blob equals the golden', () => {
    const { out, g } = blobsOf({});
    expect(out).toEqual(GOLDEN['nv_full-int8-fast-math']);
    // the first SDP requantises by 19669 x 2^-29 (nvdla.md 3.6)
    const bias0 = g.nodes.find((n) => n.name === 'bias-0')!;
    expect(bias0.params.kind === 'sdp-bias' && bias0.params.sdp.outCVT).toEqual({ enable: true, offset: 0, scale: 19669, truncate: 29 });
    expect(g.nodes.find((n) => n.name === 'dc-conv-0')!.fusedOutput).toBe(bias0.id);
  });

  it.each([
    ['fp16', 'fast-math', 'nv_full', false],
    ['fp16', 'basic', 'nv_full', false],
    ['int8', 'basic', 'nv_full', false],
    ['int8', 'fast-math', 'nv_small', false],
    ['int8', 'fast-math', 'nv_large', false],
    ['int8', 'fast-math', 'nv_full', true],
  ])('%s %s %s calib=%s: the blobs equal the golden', (cprecision, profile, configtarget, calib) => {
    const calibtable = calib ? parseCalibrationTable(readFileSync(join(FIXTURES, 'nvdla/golden/lenet_calib_example.json'), 'utf8'), 'calib.json') : null;
    const { out } = blobsOf({ cprecision, profile, configtarget, calibtable });
    expect(out).toEqual(GOLDEN[`${configtarget}-${cprecision}-${profile}${calib ? '-calib' : ''}`]);
  });

  it.each([
    ['fp16', 'nv_full', 'nv_full-fp16-fast-math'],
    ['int8', 'nv_full', 'nv_full-int8-fast-math'],
    ['int8', 'nv_large', 'nv_large-int8-fast-math'],
  ])('%s %s, the default (CSC) post-extended layout: conv1 (tb-0) alone differs from the golden', (cprecision, configtarget, golden) => {
    const { out } = blobsOf({ cprecision, configtarget, postExtWeights: 'csc' });
    const want = GOLDEN[golden]!;
    const differing = Object.keys(want).filter((k) => out[k] !== want[k]);
    expect(differing).toEqual(['tb-0']);
    expect(Object.keys(out)).toEqual(Object.keys(want));
  });

  it('int8 nv_small: no post-extension, so the default layout is the golden', () => {
    expect(blobsOf({ configtarget: 'nv_small', postExtWeights: 'csc' }).out).toEqual(GOLDEN['nv_small-int8-fast-math']);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, NvdlaOptionError, atoi, resolveOptions } from './options';
import { namedProfile } from './profiles';
import { targetConfig } from './targets';

describe('nvdla_compiler options', () => {
  it('defaults are the real ones (int8, fast-math, nv_full, batch from the network, nhwc), not the help text', () => {
    const r = resolveOptions();
    expect(r.options).toEqual(DEFAULT_OPTIONS);
    expect(r.profile.name).toBe('fast-math');
    expect(r.profile.computePrecision).toBe('INT8');
    expect(r.profile.quantizationMode).toBe('PER_KERNEL');
    expect(r.profile.tensorScalingMode).toBe('PER_TENSOR');
    expect(r.profile.multiBatchSize).toBe(0);
    expect(r.profile.networkInputDataFormat).toBe('NHWC');
    expect(r.profile.networkInputSurfaceFormat).toBe('NVDLA_IMG_A8B8G8R8');
    expect(r.profile.networkOutputDataFormat).toBe('NCxHWx');
    expect(r.profile.networkOutputSurfaceFormat).toBe('NVDLA_FEATURE_DATA_INT8');
    expect(r.target.name).toBe('nv_full');
    expect(r.warnings).toEqual([]);
  });

  it('fp16 NHWC input is A16B16G16R16_F, quantisation off', () => {
    const r = resolveOptions({ cprecision: 'FP16' });
    expect(r.profile.computePrecision).toBe('FP16');
    expect(r.profile.networkInputSurfaceFormat).toBe('NVDLA_IMG_A16B16G16R16_F');
    expect(r.profile.networkOutputSurfaceFormat).toBe('NVDLA_FEATURE_DATA_FP16');
    expect(r.profile.quantizationMode).toBe('NONE');
    expect(r.profile.tensorScalingMode).toBe('NONE');
  });

  it('profiles: basic has no pools, default/performance pool and bust NOPs, fast-math also merges and fuses', () => {
    const pick = (n: string) => {
      const p = namedProfile(n);
      return [p.useMemPool, p.useGreedyEviction, p.canSDPBustNOPs, p.canSDPMergeMathOps, p.canSDPFuseSubEngineOps];
    };
    expect(pick('basic')).toEqual([false, false, false, false, false]);
    expect(pick('default')).toEqual([true, true, true, false, false]);
    expect(pick('performance')).toEqual(pick('default'));
    expect(pick('fast-math')).toEqual([true, true, true, true, true]);
    // an unknown name keeps the constructor defaults, which equal basic
    expect(pick('turbo')).toEqual(pick('basic'));
    const r = resolveOptions({ profile: 'turbo' });
    expect(r.warnings.map((w) => w.option)).toEqual(['profile']);
  });

  it('opendla-* target names are invalid upstream: accepted with a warning, constructor defaults', () => {
    const r = resolveOptions({ configtarget: 'opendla-full' });
    expect(r.target.valid).toBe(false);
    expect(r.target.atomicCSize).toBe(64);
    expect(r.target.isRubikCapable).toBe(false);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.message).toContain('Invalid target config');
    expect(r.warnings[0]!.message).toContain('help lists it');
    // opendla-small also switches the app's I/O to FEATURE_X8 (only int8 has it)
    const small = resolveOptions({ configtarget: 'opendla-small', informat: 'nchw' });
    expect(small.profile.networkInputSurfaceFormat).toBe('NVDLA_FEATURE_DATA_INT8');
    expect(() => resolveOptions({ configtarget: 'opendla-small', cprecision: 'fp16' })).toThrow(/FEATURE_X8/);
  });

  it('target configurations as TargetConfig.cpp sets them', () => {
    const s = targetConfig('nv_small');
    expect([s.atomicCSize, s.atomicKSize, s.memoryAtomicSize, s.numConvBufBankAllotted, s.numConvBufEntriesPerBank, s.numConvBufEntryWidth, s.maxBatchSize]).toEqual([8, 8, 8, 32, 512, 8, 0]);
    expect(s.isSDPLutCapable).toBe(false);
    const l = targetConfig('nv_large');
    expect([l.numConvBufEntriesPerBank, l.numConvBufEntryWidth, l.isBatchModeCapable, l.isRubikCapable]).toEqual([512, 64, false, false]);
    expect(targetConfig('nv_full').isBatchModeCapable).toBe(true);
  });

  it('informat, quantizationMode and cprecision are matched case-insensitively; bad ones behave as upstream', () => {
    expect(resolveOptions({ informat: 'NCHW' }).profile.networkInputSurfaceFormat).toBe('NVDLA_FEATURE_DATA_INT8');
    expect(resolveOptions({ informat: 'NcxHwx' }).profile.networkInputDataFormat).toBe('NCxHWx');
    const bad = resolveOptions({ informat: 'hwc' });
    expect(bad.profile.networkInputDataFormat).toBe('UNKNOWN');
    expect(bad.profile.networkInputSurfaceFormat).toBe('NVDLA_FEATURE_DATA_INT8');
    expect(bad.warnings.map((w) => w.option)).toEqual(['informat']);
    expect(resolveOptions({ quantizationMode: 'PER-FILTER' }).profile.quantizationMode).toBe('PER_FILTER');
    expect(resolveOptions({ quantizationMode: 'per-layer' }).profile.quantizationMode).toBe('PER_KERNEL');
    expect(() => resolveOptions({ cprecision: 'int16' })).toThrow(NvdlaOptionError);
  });

  it('--batch: n > 0 overrides, 0 keeps the network N; atoi semantics', () => {
    expect(resolveOptions({ batch: 4 }).profile.multiBatchSize).toBe(4);
    expect(resolveOptions({ batch: -3 }).profile.multiBatchSize).toBe(0);
    expect([atoi('12'), atoi(' 7x'), atoi('abc'), atoi('-2'), atoi('')]).toEqual([12, 7, 0, -2, 0]);
  });

  it("--post-ext-weights (NPU Studio's own): csc by default, nvdla_compiler for its bytes, any case; anything else refused naming the option", () => {
    expect(DEFAULT_OPTIONS.postExtWeights).toBe('csc');
    expect(resolveOptions().profile.imgPostExtWeightLayout).toBe('CSC');
    expect(resolveOptions({ postExtWeights: 'NVDLA_Compiler' }).profile.imgPostExtWeightLayout).toBe('NVDLA_COMPILER');
    expect(resolveOptions({ postExtWeights: 'CSC' }).profile.imgPostExtWeightLayout).toBe('CSC');
    // a named profile does not choose it
    expect(namedProfile('basic').imgPostExtWeightLayout).toBe('CSC');
    let e: unknown;
    try {
      resolveOptions({ postExtWeights: 'rtl' });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(NvdlaOptionError);
    expect([(e as NvdlaOptionError).option, (e as NvdlaOptionError).message]).toEqual(['postExtWeights', "'rtl' is not csc (the layout the hardware reads, the default) or nvdla_compiler (its byte-identical layout)"]);
  });
});

/**
 * Compile profiles (nvdla.md section 7; `Profile.cpp`, constructor defaults in `Profile.h`).
 * `setName()` applies a named profile's settings: basic; default = basic + memory pools, pooled
 * reuse, greedy eviction, NOP busting; performance = default; fast-math = performance + SDP
 * math-op merging + sub-engine fusion. Any other name keeps the constructor defaults (= basic).
 */
import type { DataFormat, SurfacePrecision } from './surface';

export const PROFILE_NAMES = ['basic', 'default', 'performance', 'fast-math'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export type ImgPostExtWeightLayout = 'CSC' | 'NVDLA_COMPILER';
export type TensorScalingMode = 'NONE' | 'PER_TENSOR' | 'PER_CHANNEL';
export type QuantizationMode = 'NONE' | 'PER_KERNEL' | 'PER_FILTER';

export interface CompileProfile {
  name: string;
  /** true when `name` is one of the four named profiles */
  known: boolean;
  canCompressWeights: boolean;
  canWinograd: boolean;
  convWeightBanksAllotted: number;
  convDataBanksAllotted: number;
  canSDPPDPOnFly: boolean;
  canSDPMergeMathOps: boolean;
  canSDPFuseSubEngineOps: boolean;
  canSDPBustNOPs: boolean;
  canSDPFuseVerticalOps: boolean;
  useCVSRAMAllocate: boolean;
  useMemPool: boolean;
  useReusePooledMemory: boolean;
  useGreedyEviction: boolean;
  copyOutDebugSurfaces: boolean;
  globalDRAMSize: number;
  localDRAMSize: number;
  localCVSRAMSize: number;
  /** 0: take N from the network input */
  multiBatchSize: number;
  canIMGPostChnlExtend: boolean;
  /**
   * how post-extended image weights are laid out (not an upstream profile setting; `--post-ext-weights`):
   * 'CSC' as the convolution buffer reads them (`ext` consecutive kernel rows a stripe), 'NVDLA_COMPILER'
   * as nvdla_compiler writes them (`atomic C / channels` rows apart: byte-identical to it, wrong on the hardware
   * where that is not `ext`; engine/weights.ts `postChnlExtWtsForIMG`)
   */
  imgPostExtWeightLayout: ImgPostExtWeightLayout;
  computePrecision: SurfacePrecision;
  tensorScalingMode: TensorScalingMode;
  quantizationMode: QuantizationMode;
  networkInputDataFormat: DataFormat;
  networkOutputDataFormat: DataFormat;
  /** surface format names (surface.ts) */
  networkInputSurfaceFormat: string;
  networkOutputSurfaceFormat: string;
  networkInputPixelMapping: 'PITCH_LINEAR';
  networkInputPixelOffsetX: number;
  networkInputPixelOffsetY: number;
}

/** The `Profile` constructor: what an unknown profile name compiles with. */
export function constructorProfile(name: string): CompileProfile {
  return {
    name,
    known: false,
    canCompressWeights: false,
    canWinograd: false,
    convWeightBanksAllotted: 8,
    convDataBanksAllotted: 8,
    canSDPPDPOnFly: false,
    canSDPMergeMathOps: false,
    canSDPFuseSubEngineOps: false,
    canSDPBustNOPs: false,
    canSDPFuseVerticalOps: false,
    useCVSRAMAllocate: false,
    useMemPool: false,
    useReusePooledMemory: false,
    useGreedyEviction: false,
    copyOutDebugSurfaces: false,
    globalDRAMSize: 2 ** 29,
    localDRAMSize: 2 ** 30,
    localCVSRAMSize: 2 ** 20,
    multiBatchSize: 0,
    canIMGPostChnlExtend: true,
    imgPostExtWeightLayout: 'CSC',
    computePrecision: 'FP16',
    tensorScalingMode: 'NONE',
    quantizationMode: 'NONE',
    networkInputDataFormat: 'NCHW',
    networkOutputDataFormat: 'NCHW',
    networkInputSurfaceFormat: 'NVDLA_FEATURE_DATA_FP16',
    networkOutputSurfaceFormat: 'NVDLA_FEATURE_DATA_FP16',
    networkInputPixelMapping: 'PITCH_LINEAR',
    networkInputPixelOffsetX: 0,
    networkInputPixelOffsetY: 0,
  };
}

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

function applyBasic(p: CompileProfile): void {
  p.useCVSRAMAllocate = false;
  p.useMemPool = false;
  p.useReusePooledMemory = false;
  p.useGreedyEviction = false;
  p.canSDPBustNOPs = false;
  p.canSDPMergeMathOps = false;
  p.canSDPFuseSubEngineOps = false;
}

function applyDefault(p: CompileProfile): void {
  applyBasic(p);
  p.useMemPool = true;
  p.useReusePooledMemory = true;
  p.useGreedyEviction = true;
  p.canSDPBustNOPs = true;
}

function applyFastMath(p: CompileProfile): void {
  applyDefault(p); // performance = default (its CV-SRAM line is commented out upstream)
  p.canSDPMergeMathOps = true;
  p.canSDPFuseSubEngineOps = true;
}

/** A fresh profile named `name`, as `Profiler::getProfile(name)` makes it. */
export function namedProfile(name: string): CompileProfile {
  const p = constructorProfile(name);
  if (!isProfileName(name)) return p;
  p.known = true;
  if (name === 'basic') applyBasic(p);
  else if (name === 'default' || name === 'performance') applyDefault(p);
  else applyFastMath(p);
  return p;
}

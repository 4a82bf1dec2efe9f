/**
 * NVDLA hardware configurations (nvdla.md section 6; `TargetConfig.cpp` and the constructor
 * defaults in `TargetConfig.h` of nvdla/sw umd). A configuration is chosen by exact name; any
 * other name logs `Invalid target config` upstream and keeps the constructor defaults, which is
 * what `targetConfig()` returns for it (with `valid: false`).
 */
export const TARGET_NAMES = ['nv_full', 'nv_large', 'nv_small'] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export interface TargetConfig {
  /** the name as given (upstream keeps any name) */
  name: string;
  /** false for a name that is not one of nv_full / nv_large / nv_small */
  valid: boolean;
  atomicCSize: number;
  atomicKSize: number;
  memoryAtomicSize: number;
  numConvBufBankAllotted: number;
  numConvBufEntriesPerBank: number;
  /** bytes */
  numConvBufEntryWidth: number;
  maxBatchSize: number;
  isWinogradCapable: boolean;
  isCompressWeightsCapable: boolean;
  isBatchModeCapable: boolean;
  isPDPCapable: boolean;
  isCDPCapable: boolean;
  isSDPBiasCapable: boolean;
  isSDPBatchNormCapable: boolean;
  isSDPEltWiseCapable: boolean;
  isSDPLutCapable: boolean;
  isBDMACapable: boolean;
  isRubikCapable: boolean;
}

type Params = Omit<TargetConfig, 'name' | 'valid'>;

/** `TargetConfig` constructor defaults (what an invalid name gets). */
const CONSTRUCTOR_DEFAULTS: Params = {
  atomicCSize: 64,
  atomicKSize: 32,
  memoryAtomicSize: 32,
  numConvBufBankAllotted: 16,
  numConvBufEntriesPerBank: 256,
  numConvBufEntryWidth: 128,
  maxBatchSize: 32,
  isWinogradCapable: false,
  isCompressWeightsCapable: false,
  isBatchModeCapable: false,
  isPDPCapable: false,
  isCDPCapable: false,
  isSDPBiasCapable: false,
  isSDPBatchNormCapable: false,
  isSDPEltWiseCapable: false,
  isSDPLutCapable: false,
  isBDMACapable: false,
  isRubikCapable: false,
};

const CAPABLE = {
  isPDPCapable: true,
  isCDPCapable: true,
  isSDPBiasCapable: true,
  isSDPBatchNormCapable: true,
  isWinogradCapable: false,
  isCompressWeightsCapable: false,
};

const TARGETS: Record<TargetName, Params> = {
  nv_full: {
    ...CAPABLE,
    atomicCSize: 64,
    atomicKSize: 32,
    memoryAtomicSize: 32,
    numConvBufBankAllotted: 16,
    numConvBufEntriesPerBank: 256,
    numConvBufEntryWidth: 128,
    maxBatchSize: 32,
    isSDPEltWiseCapable: true,
    isSDPLutCapable: true,
    isBDMACapable: true,
    isRubikCapable: true,
    isBatchModeCapable: true,
  },
  nv_large: {
    ...CAPABLE,
    atomicCSize: 64,
    atomicKSize: 32,
    memoryAtomicSize: 32,
    numConvBufBankAllotted: 16,
    numConvBufEntriesPerBank: 512,
    numConvBufEntryWidth: 64,
    maxBatchSize: 32,
    isSDPEltWiseCapable: true,
    isSDPLutCapable: true,
    isBDMACapable: false,
    isRubikCapable: false,
    isBatchModeCapable: false,
  },
  nv_small: {
    ...CAPABLE,
    atomicCSize: 8,
    atomicKSize: 8,
    memoryAtomicSize: 8,
    numConvBufBankAllotted: 32,
    numConvBufEntriesPerBank: 512,
    numConvBufEntryWidth: 8,
    maxBatchSize: 0,
    isSDPEltWiseCapable: false,
    isSDPLutCapable: false,
    isBDMACapable: false,
    isRubikCapable: false,
    isBatchModeCapable: false,
  },
};

export function isTargetName(name: string): name is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(name);
}

/** The configuration upstream uses for `name` (constructor defaults for an unknown name). */
export function targetConfig(name: string): TargetConfig {
  if (isTargetName(name)) return { name, valid: true, ...TARGETS[name] };
  return { name, valid: false, ...CONSTRUCTOR_DEFAULTS };
}

/**
 * nvdla_compiler's command-line options with its real defaults and quirks (nvdla.md section 12;
 * `umd/apps/compiler/main.cpp`, `GenerateTest.cpp`): the same option names serve the CLI and the
 * compile form. `resolveOptions` turns them into the profile and target configuration the
 * compiler runs with, plus warnings where upstream silently does something surprising. One option
 * is NPU Studio's own: `--post-ext-weights` (`postExtWeights`) chooses between the post-extended
 * image weight layout the hardware reads (the default) and nvdla_compiler's (byte-identical to it).
 */
import type { CalibrationTable } from './calibrate/table';
import { namedProfile, type CompileProfile, type QuantizationMode } from './profiles';
import { surfaceFormatOfPixelFormat, type DataFormat, type PixelFormat, type SurfacePrecision } from './surface';
import { TARGET_NAMES, targetConfig, type TargetConfig } from './targets';

export interface NvdlaCompileOptions {
  /** --profile: basic | default | performance | fast-math (default fast-math) */
  profile: string;
  /** --cprecision: fp16 | int8 (default int8, although the help text says fp16) */
  cprecision: string;
  /** --configtarget: nv_full | nv_large | nv_small (default nv_full) */
  configtarget: string;
  /** --calibtable, already parsed (INT8 only) */
  calibtable: CalibrationTable | null;
  /** --quantizationMode: per-kernel | per-filter (default: none, which INT8 treats as per-kernel) */
  quantizationMode: string;
  /** --batch: 0 (the default) takes N from the network input */
  batch: number;
  /** --informat: ncxhwx | nchw | nhwc (default nhwc) */
  informat: string;
  /**
   * --post-ext-weights (not an nvdla_compiler option): csc | nvdla_compiler (default csc). How the weights of an
   * image-input convolution with channel post-extension (nv_full / nv_large) are laid out: `csc` as the
   * convolution buffer reads them, so the hardware computes the network's convolution; `nvdla_compiler` as
   * nvdla_compiler writes them (byte-identical loadables, but where atomic C / pre-extended channels is not the
   * extension factor, e.g. LeNet's conv1, the hardware multiplies input rows by the wrong kernel rows)
   */
  postExtWeights: string;
}

export const POST_EXT_WEIGHT_LAYOUTS = ['csc', 'nvdla_compiler'] as const;

/** `defaultTestAppArgs` of nvdla_compiler. */
export const DEFAULT_OPTIONS: NvdlaCompileOptions = {
  profile: 'fast-math',
  cprecision: 'int8',
  configtarget: 'nv_full',
  calibtable: null,
  quantizationMode: '',
  batch: 0,
  informat: 'nhwc',
  postExtWeights: 'csc',
};

export interface OptionMessage {
  option: keyof NvdlaCompileOptions;
  message: string;
}

export interface ResolvedOptions {
  options: NvdlaCompileOptions;
  profile: CompileProfile;
  target: TargetConfig;
  /** things upstream does silently that a person should know */
  warnings: OptionMessage[];
}

export class NvdlaOptionError extends Error {
  constructor(
    readonly option: keyof NvdlaCompileOptions,
    message: string,
  ) {
    super(message);
    this.name = 'NvdlaOptionError';
  }
}

function precisionOf(cprecision: string): SurfacePrecision | null {
  const p = cprecision.toLowerCase();
  return p === 'fp16' ? 'FP16' : p === 'int8' ? 'INT8' : null;
}

function dataFormatOf(informat: string): DataFormat {
  const f = informat.toLowerCase();
  return f === 'ncxhwx' ? 'NCxHWx' : f === 'nchw' ? 'NCHW' : f === 'nhwc' ? 'NHWC' : 'UNKNOWN';
}

function quantizationOf(mode: string): QuantizationMode {
  const m = mode.toLowerCase();
  return m === 'per-kernel' ? 'PER_KERNEL' : m === 'per-filter' ? 'PER_FILTER' : 'NONE';
}

/** The profile and target nvdla_compiler would compile with for these options. */
export function resolveOptions(partial: Partial<NvdlaCompileOptions> = {}): ResolvedOptions {
  const options: NvdlaCompileOptions = { ...DEFAULT_OPTIONS, ...partial };
  const warnings: OptionMessage[] = [];
  const profile = namedProfile(options.profile);
  if (!profile.known) {
    warnings.push({
      option: 'profile',
      message: `'${options.profile}' is not one of basic, default, performance, fast-math: nvdla_compiler compiles it with the profile constructor's settings, which equal basic`,
    });
  }

  const target = targetConfig(options.configtarget);
  if (!target.valid) {
    const opendla = /^opendla-/.test(options.configtarget);
    warnings.push({
      option: 'configtarget',
      message:
        `'${options.configtarget}' is not a target configuration nvdla_compiler knows (${TARGET_NAMES.join(', ')})` +
        (opendla ? ' although its help lists it' : '') +
        ': it logs "Invalid target config" and falls back to the default configuration, nv_full\'s sizes with every optional engine marked absent' +
        (options.configtarget === 'opendla-small' ? '; this name also makes the network input and output FEATURE_X8' : ''),
    });
  }

  const precision = precisionOf(options.cprecision);
  if (!precision) {
    // Profile::setComputePrecision(UNKNOWN)
    throw new NvdlaOptionError('cprecision', `unrecognized compute precision '${options.cprecision}' (fp16 or int8)`);
  }
  profile.computePrecision = precision;

  const inFormat = dataFormatOf(options.informat);
  if (inFormat === 'UNKNOWN') {
    warnings.push({ option: 'informat', message: `'${options.informat}' is not ncxhwx, nchw or nhwc: the input is compiled as feature data with an unknown data format, as nvdla_compiler does` });
  }
  profile.networkInputDataFormat = inFormat;
  const x8 = options.configtarget === 'opendla-small';
  let inPixel: PixelFormat;
  if (inFormat === 'NHWC') inPixel = precision === 'FP16' ? 'A16B16G16R16_F' : 'A8B8G8R8';
  else inPixel = x8 ? 'FEATURE_X8' : 'FEATURE';
  const inSurface = surfaceFormatOfPixelFormat(inPixel, precision);
  if (!inSurface) throw new NvdlaOptionError('configtarget', `cannot determine the input surface format ${inPixel} at compute precision ${precision}`);
  profile.networkInputSurfaceFormat = inSurface;

  const quantization = quantizationOf(options.quantizationMode);
  if (options.quantizationMode !== '' && quantization === 'NONE') {
    warnings.push({ option: 'quantizationMode', message: `'${options.quantizationMode}' is not per-kernel or per-filter: nvdla_compiler ignores it (per-kernel for INT8)` });
  }
  if (precision === 'INT8') {
    profile.tensorScalingMode = 'PER_TENSOR';
    profile.quantizationMode = quantization === 'PER_FILTER' ? 'PER_FILTER' : 'PER_KERNEL';
  } else {
    profile.tensorScalingMode = 'NONE';
    profile.quantizationMode = 'NONE';
    if (options.calibtable) warnings.push({ option: 'calibtable', message: 'a calibration table only matters for int8; fp16 ignores it' });
  }

  profile.networkOutputDataFormat = 'NCxHWx';
  const outSurface = surfaceFormatOfPixelFormat(x8 ? 'FEATURE_X8' : 'FEATURE', precision);
  if (!outSurface) throw new NvdlaOptionError('configtarget', `cannot determine the output surface format FEATURE_X8 at compute precision ${precision}`);
  profile.networkOutputSurfaceFormat = outSurface;

  const layout = options.postExtWeights.toLowerCase();
  if (layout !== 'csc' && layout !== 'nvdla_compiler') {
    throw new NvdlaOptionError('postExtWeights', `'${options.postExtWeights}' is not csc (the layout the hardware reads, the default) or nvdla_compiler (its byte-identical layout)`);
  }
  profile.imgPostExtWeightLayout = layout === 'csc' ? 'CSC' : 'NVDLA_COMPILER';

  if (!Number.isInteger(options.batch)) throw new NvdlaOptionError('batch', `--batch takes a whole number, not ${options.batch}`);
  if (options.batch > 0) profile.multiBatchSize = options.batch;
  return { options, profile, target, warnings };
}

/** `atoi` as nvdla_compiler reads `--batch`: leading white space, sign, digits; anything else 0. */
export function atoi(text: string): number {
  const m = /^\s*([+-]?\d+)/.exec(text);
  if (!m) return 0;
  const v = Number(m[1]);
  // int overflow is undefined upstream; clamp to int32
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, v));
}

/**
 * INT8 arithmetic of nvdla/sw (`LowPrecision.h`, `SDPBiasOpNode::scaleBiasToInt16`, the SDP
 * rescaling helpers), bit for bit: float32 where upstream computes in float (`Math.fround`),
 * doubles where it calls `pow`/`log`, C truncation where it converts to integers.
 */

const f32 = Math.fround;

export class LowPrecisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LowPrecisionError';
  }
}

export interface ScaleAndShift {
  scale: number;
  shift: number;
}

/**
 * `scaleAndShiftFromScalarImpl2<NvS16, NvU8>`: a float `s` as `scale * 2^-shift` with a 16-bit
 * scale: numBits = floor(log2|s|) + 1, shift = 15 - numBits (or the given common shift),
 * scale = trunc(2^shift * |s|).
 */
export function scaleAndShiftFromScalar(scalar: number, powerOfTwo = 0, scaleMax = 32767): ScaleAndShift {
  const abs = Math.abs(f32(scalar));
  const neg = scalar < 0;
  let scale = 0;
  let shift = powerOfTwo;
  if (abs === 0) {
    shift = shift !== 0 ? shift : 1;
  } else {
    const numBits = Math.floor(Math.log(abs) / Math.log(2)) + 1;
    if (powerOfTwo === 0 && numBits > 15) throw new LowPrecisionError(`Scale value for ${scalar} is beyond dynamic range of NvS16`);
    shift = powerOfTwo !== 0 ? powerOfTwo : 15 - numBits;
    if (shift >= 64) throw new LowPrecisionError(`Truncate value ${shift} is out of range [0,63]`);
    scale = Math.trunc(2 ** shift * abs);
    if (scale > scaleMax) throw new LowPrecisionError(`Scale value ${scale} for ${scalar} is beyond dynamic range of NvS16`);
  }
  // SH is NvU8: the shift is stored modulo 256
  return { scale: neg ? -scale : scale, shift: ((shift % 256) + 256) % 256 };
}

export function factorizeScalars(scalars: number[], commonShift: number): ScaleAndShift[] {
  return scalars.map((s) => scaleAndShiftFromScalar(s, commonShift));
}

const SDP_LEFT_SHIFT_MAX_PLACES = 16;

/**
 * `scaleBiasToInt16`: b / (Si * Sw[k]) rounded to int32, then one common left shift so the
 * largest fits 16 bits; returns the int16 biases and the shift.
 */
export function scaleBiasToInt16(bias: Float32Array, inScale: number, filterScales: number[] | null): { values: Int16Array; shift: number } {
  const rescaled: number[] = [];
  for (let b = 0; b < bias.length; b++) {
    const factor = filterScales ? f32(inScale * filterScales[b]!) : f32(inScale);
    const scaled = f32(bias[b]! / factor);
    rescaled.push(Math.floor(f32(scaled + 0.5)) | 0);
  }
  let maxBias = rescaled[0] ?? 0;
  for (const v of rescaled) if (Math.abs(maxBias) < Math.abs(v)) maxBias = v;
  // all-zero bias: upstream's ceil(log(0)) + 1 is -inf, which x86 converts to INT_MIN; INT_MIN - 16
  // wraps to a large positive int, so the shift becomes the maximum (16), harmless on zeros
  const shift = maxBias === 0 ? SDP_LEFT_SHIFT_MAX_PLACES : Math.min(SDP_LEFT_SHIFT_MAX_PLACES, Math.max(0, Math.ceil(Math.log(Math.abs(maxBias)) / Math.log(2)) + 1 - 16));
  const values = new Int16Array(rescaled.length);
  for (let i = 0; i < rescaled.length; i++) values[i] = rescaled[i]! >> shift;
  return { values, shift };
}

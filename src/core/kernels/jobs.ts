/**
 * Jobs: one kernel call split into chunks (a range of output rows, column panels, channels or
 * planes) that any thread can run, all threads sharing one WebAssembly memory. `runChunk` is what
 * every thread, the calling one included, executes for each chunk it claims from the job board.
 *
 * A job is a kind and up to 48 int32 arguments (pointers are byte addresses in the shared
 * memory; float arguments travel as their bit patterns). GEMM, packing and im2col run in the
 * WebAssembly module; col2im, pooling and LRN are TypeScript loops over views of the same memory.
 */
import { KC, NR, MR, scratchOf, type KernelExports } from './wasm-module';

export const enum JobKind {
  /** [pa, pb, c, ldc, M, N, K, bias, flags, mPanelsPerChunk, nPanelsPerChunk, mChunks] */
  Gemm = 1,
  /** [src, rs, cs, M, K, dst, panelsPerChunk, scale(f32)] */
  PackA = 2,
  /** [src, rs, cs, K, N, dst, panelsPerChunk] */
  PackB = 3,
  /** [src (padded planes), C, Hp, Wp, kh, kw, sh, sw, dh, dw, OW, N, dst, panelsPerChunk] */
  Im2col = 4,
  /** [col, y, channels, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, H, W, bias, relu, channelsPerChunk] */
  Col2im = 5,
  /** [padded src, y, planes, Hp, Wp, OH, OW, kh, kw, sh, sw, max(1)/ave(0), H, W, ph, pw, planesPerChunk] */
  Pool = 6,
  /** [x, y, batch, C, H, W, size, across(1)/within(0), positionsPerChunk, chunksPerImage, alpha(f32), beta(f32), k(f32)] */
  Lrn = 7,
  /** [padded x, w, bias, y, outPlanes, outC, coutPerGroup, inC, Hp, Wp, OH, OW, kh, kw, sh, sw, dh, dw, relu, planesPerChunk] */
  Depthwise = 8,
  /** [src, dst, H, W, ph, pw, channels, channelsPerChunk] */
  Pad = 9,
  /** [src, dst, H, W, top, left, Hp, Wp, fill(f32), planes, planesPerChunk] */
  PadFill = 10,
  /** [x, y, C, HW, size, alpha/size(f32), k(f32), betaMode, channelsPerChunk] (one image) */
  LrnAcross = 11,
  /** [x, y, spatial, channels, scale, shift, relu, slope(f32), planes, planesPerChunk] */
  Affine = 12,
  /** [a, b, y, op, ca(f32), cb(f32), relu, slope(f32), n, elementsPerChunk (a multiple of 4)] */
  Eltwise = 13,
}

/** A thread's handle on the module and the memory. */
export class KernelThread {
  private f32view: Float32Array;
  constructor(
    readonly exports: KernelExports,
    readonly memory: WebAssembly.Memory,
    readonly thread: number,
  ) {
    this.f32view = new Float32Array(memory.buffer);
  }

  /** A float view of the whole memory, renewed after the memory grew. */
  f32(): Float32Array {
    const buf = this.memory.buffer;
    if (this.f32view.buffer !== buf) this.f32view = new Float32Array(buf);
    return this.f32view;
  }

  get scratch(): number {
    return scratchOf(this.thread);
  }
}

const f32bits = new Float32Array(1);
const i32bits = new Int32Array(f32bits.buffer);
export function floatArg(v: number): number {
  f32bits[0] = v;
  return i32bits[0]!;
}
export function argFloat(bits: number): number {
  i32bits[0] = bits;
  return f32bits[0]!;
}

export function runChunk(t: KernelThread, kind: number, a: Int32Array, chunk: number): void {
  const ex = t.exports;
  switch (kind) {
    case JobKind.Gemm: {
      const [pa, pb, c, ldc, M, N, K, bias, flags, mcp, ncp, mChunks] = a as unknown as number[];
      const ci = chunk % mChunks!;
      const cj = (chunk - ci) / mChunks!;
      const mPanels = Math.ceil(M! / MR);
      const nPanels = Math.ceil(N! / NR);
      const i0 = ci * mcp!;
      const j0 = cj * ncp!;
      ex.gemm_chunk(pa!, pb!, c!, ldc!, M!, N!, K!, KC, i0, Math.min(mPanels, i0 + mcp!), j0, Math.min(nPanels, j0 + ncp!), bias!, flags!, t.scratch);
      return;
    }
    case JobKind.PackA: {
      const [src, rs, cs, M, K, dst, per, scale] = a as unknown as number[];
      const i0 = chunk * per!;
      ex.pack_a(src!, rs!, cs!, M!, K!, KC, dst!, i0, Math.min(Math.ceil(M! / MR), i0 + per!), argFloat(scale!));
      return;
    }
    case JobKind.PackB: {
      const [src, rs, cs, K, N, dst, per] = a as unknown as number[];
      const j0 = chunk * per!;
      ex.pack_b(src!, rs!, cs!, K!, N!, KC, dst!, j0, Math.min(Math.ceil(N! / NR), j0 + per!));
      return;
    }
    case JobKind.Im2col: {
      const [src, C, Hp, Wp, kh, kw, sh, sw, dh, dw, OW, N, dst, per] = a as unknown as number[];
      const j0 = chunk * per!;
      ex.im2col_pack(src!, C!, Hp!, Wp!, kh!, kw!, sh!, sw!, dh!, dw!, OW!, N!, KC, dst!, j0, Math.min(Math.ceil(N! / NR), j0 + per!), t.scratch + 256);
      return;
    }
    case JobKind.Pad: {
      const [src, dst, H, W, ph, pw, channels, per] = a as unknown as number[];
      const c0 = chunk * per!;
      ex.pad_planes(src!, dst!, H!, W!, ph!, pw!, c0, Math.min(channels!, c0 + per!));
      return;
    }
    case JobKind.Col2im:
      col2imChunk(t.f32(), a, chunk);
      return;
    case JobKind.Pool: {
      const [src, y, planes, Hp, Wp, OH, OW, kh, kw, sh, sw, isMax, H, W, ph, pw, per] = a as unknown as number[];
      const c0 = chunk * per!;
      ex.pool_planes(src!, y!, Hp!, Wp!, OH!, OW!, kh!, kw!, sh!, sw!, isMax!, H!, W!, ph!, pw!, c0, Math.min(planes!, c0 + per!));
      return;
    }
    case JobKind.PadFill: {
      const [src, dst, H, W, top, left, Hp, Wp, fill, planes, per] = a as unknown as number[];
      const c0 = chunk * per!;
      ex.pad_fill(src!, dst!, H!, W!, top!, left!, Hp!, Wp!, argFloat(fill!), c0, Math.min(planes!, c0 + per!));
      return;
    }
    case JobKind.Affine: {
      const [x, y, spatial, channels, scale, shift, relu, slope, planes, per] = a as unknown as number[];
      const p0 = chunk * per!;
      ex.affine(x!, y!, spatial!, channels!, scale!, shift!, relu!, argFloat(slope!), p0, Math.min(planes!, p0 + per!));
      return;
    }
    case JobKind.Eltwise: {
      const [x, b, y, op, ca, cb, relu, slope, n, per] = a as unknown as number[];
      const i0 = chunk * per!;
      ex.eltwise(x!, b!, y!, op!, argFloat(ca!), argFloat(cb!), relu!, argFloat(slope!), i0, Math.min(n!, i0 + per!));
      return;
    }
    case JobKind.LrnAcross: {
      const [x, y, C, HW, size, aos, k, betaMode, per] = a as unknown as number[];
      const c0 = chunk * per!;
      ex.lrn_across(x!, y!, C!, HW!, size!, argFloat(aos!), argFloat(k!), betaMode!, c0, Math.min(C!, c0 + per!));
      return;
    }
    case JobKind.Lrn:
      lrnChunk(t.f32(), a, chunk);
      return;
    case JobKind.Depthwise: {
      const [x, w, bias, y, outPlanes, outC, coutG, inC, Hp, Wp, OH, OW, kh, kw, sh, sw, dh, dw, relu, per] = a as unknown as number[];
      const p0 = chunk * per!;
      ex.depthwise(x!, w!, bias!, y!, Hp!, Wp!, OH!, OW!, kh!, kw!, sh!, sw!, dh!, dw!, relu!, outC!, coutG!, inC!, p0, Math.min(outPlanes!, p0 + per!));
      return;
    }
    default:
      throw new Error(`kernel job: unknown kind ${kind}`);
  }
}

/** Deconvolution's col2im for a range of output channels: y[oc] = bias[oc] + the sum of col rows scattered back. */
function col2imChunk(m: Float32Array, a: Int32Array, chunk: number): void {
  const [col, y, channels, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, H, W, bias, relu, per] = a as unknown as number[];
  const c0 = chunk * per!;
  const c1 = Math.min(channels!, c0 + per!);
  const plane = OH! * OW!;
  const colRow = H! * W!;
  for (let oc = c0; oc < c1; oc++) {
    const yb = (y! >> 2) + oc * plane;
    m.fill(bias ? m[(bias >> 2) + oc]! : 0, yb, yb + plane);
    for (let ky = 0; ky < kh!; ky++) {
      for (let kx = 0; kx < kw!; kx++) {
        const cb = (col! >> 2) + ((oc * kh! + ky) * kw! + kx) * colRow;
        for (let iy = 0; iy < H!; iy++) {
          const oy = iy * sh! - ph! + ky * dh!;
          if (oy < 0 || oy >= OH!) continue;
          const yrow = yb + oy * OW!;
          const crow = cb + iy * W!;
          // ox = ix * sw - pw + kx * dw must lie in [0, OW)
          const off = kx * dw! - pw!;
          const ix0 = off >= 0 ? 0 : Math.ceil(-off / sw!);
          const ix1 = Math.min(W!, Math.floor((OW! - 1 - off) / sw!) + 1);
          for (let ix = ix0, ox = ix0 * sw! + off; ix < ix1; ix++, ox += sw!) m[yrow + ox] += m[crow + ix]!;
        }
      }
    }
    if (relu) for (let i = yb; i < yb + plane; i++) if (m[i]! < 0) m[i] = 0;
  }
}

/** x^-beta for x > 0, with the common beta = 0.75 done with square roots (pow is slow in V8). */
function powNeg(x: number, beta: number): number {
  if (beta === 0.75) return 1 / Math.sqrt(x * Math.sqrt(x));
  if (beta === 0.5) return 1 / Math.sqrt(x);
  if (beta === 1) return 1 / x;
  return Math.exp(-beta * Math.log(x));
}

/**
 * LRN for a chunk: across channels, a range of pixel positions of one image (a running sum of
 * squares over the channel window); within channel, a range of planes (a box sum of squares
 * from a summed-area table).
 */
function lrnChunk(m: Float32Array, a: Int32Array, chunk: number): void {
  const [x, y, , C, H, W, size, across, per, chunksPerImage, alphaBits, betaBits, kBits] = a as unknown as number[];
  const alpha = argFloat(alphaBits!);
  const beta = argFloat(betaBits!);
  const k = argFloat(kBits!);
  const hw = H! * W!;
  const pre = (size! - 1) >> 1;
  if (across) {
    const n = Math.floor(chunk / chunksPerImage!);
    const q0 = (chunk % chunksPerImage!) * per!;
    const q1 = Math.min(hw, q0 + per!);
    const len = q1 - q0;
    const sums = new Float64Array(len);
    const base = (x! >> 2) + n * C! * hw + q0;
    const ybase = (y! >> 2) + n * C! * hw + q0;
    // window of channel c: [c - pre, c + pre]; start with channels [0, pre - 1] in the sum
    for (let c = 0; c < Math.min(pre, C!); c++) {
      const r = base + c * hw;
      for (let i = 0; i < len; i++) sums[i] += m[r + i]! * m[r + i]!;
    }
    const aos = alpha / size!;
    for (let c = 0; c < C!; c++) {
      const add = c + pre;
      if (add < C!) {
        const r = base + add * hw;
        for (let i = 0; i < len; i++) sums[i] += m[r + i]! * m[r + i]!;
      }
      const rm = c - pre - 1;
      if (rm >= 0) {
        const r = base + rm * hw;
        for (let i = 0; i < len; i++) sums[i] -= m[r + i]! * m[r + i]!;
      }
      const r = base + c * hw;
      const o = ybase + c * hw;
      for (let i = 0; i < len; i++) m[o + i] = m[r + i]! * powNeg(k + aos * Math.max(0, sums[i]!), beta);
    }
  } else {
    const planes = a[2]! * C!;
    const p0 = chunk * per!;
    const p1 = Math.min(planes, p0 + per!);
    const W1 = W! + 1;
    const sat = new Float64Array((H! + 1) * W1);
    const norm = alpha / (size! * size!);
    for (let pl = p0; pl < p1; pl++) {
      const xb = (x! >> 2) + pl * hw;
      const yb = (y! >> 2) + pl * hw;
      for (let iy = 0; iy < H!; iy++) {
        let row = 0;
        for (let ix = 0; ix < W!; ix++) {
          const v = m[xb + iy * W! + ix]!;
          row += v * v;
          sat[(iy + 1) * W1 + ix + 1] = sat[iy * W1 + ix + 1]! + row;
        }
      }
      for (let iy = 0; iy < H!; iy++) {
        const y0 = Math.max(0, iy - pre);
        const y1 = Math.min(H!, iy + pre + 1);
        for (let ix = 0; ix < W!; ix++) {
          const x0 = Math.max(0, ix - pre);
          const x1 = Math.min(W!, ix + pre + 1);
          const s = sat[y1 * W1 + x1]! - sat[y0 * W1 + x1]! - sat[y1 * W1 + x0]! + sat[y0 * W1 + x0]!;
          m[yb + iy * W! + ix] = m[xb + iy * W! + ix]! * powNeg(1 + norm * Math.max(0, s), beta);
        }
      }
    }
  }
}

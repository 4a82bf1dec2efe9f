/**
 * The WebAssembly SIMD kernels: convolution as im2col (or, for 1x1 stride-1 layers, the input
 * itself) packed into GEMM panels, deconvolution as GEMM + col2im, inner product as GEMM against
 * weights packed once, every job split into chunks over the compute threads (board.ts).
 */
import { ARG_WORDS, JobBoard, type ComputeThreadInit } from './board';
import { Heap } from './heap';
import { JobKind, KernelThread, floatArg } from './jobs';
import type { Kernels } from './kernels';
import {
  checkConv2d,
  checkLength,
  conv2dOutputShape,
  deconv2dOutputShape,
  type AffineParams,
  type Conv2dParams,
  type Deconv2dParams,
  type EltwiseParams,
  type GemmParams,
  type InnerProductParams,
  type LrnParams,
  type Pool2dParams,
} from './params';
import { GEMM_ACCUMULATE, GEMM_BIAS_COL, GEMM_BIAS_ROW, GEMM_RELU } from './wat/gemm';
import {
  HEAP_START,
  KC,
  MAX_THREADS,
  MR,
  NR,
  PAGE,
  createSharedMemory,
  instantiate,
  kernelModule,
} from './wasm-module';

export interface WasmKernelOptions {
  /** threads running the heavy layers, the caller included (default 1); more than 1 needs SharedArrayBuffer and `spawn` */
  threads?: number;
  /**
   * Starts one compute thread that calls `serveKernelJobs(init)` (called threads - 1 times; the
   * thread may start later, the jobs do not wait for it). Hosts: src/worker/kernels.ts (browser
   * workers), src/cli/kernels.ts (worker_threads).
   */
  spawn?: (init: ComputeThreadInit) => void;
}

interface Packed {
  /** byte address of the packed copy; -1 once released */
  ptr: number;
}

/** An argument array resolved to a byte address, with the copy to undo when it was not in our memory. */
interface Placed {
  ptr: number;
  copy: Float32Array | null;
}

const enum Prepack {
  ConvA = 'convA',
  DeconvA = 'deconvA',
  IpB = 'ipB',
}

function panels(n: number, size: number): number {
  return Math.ceil(n / size);
}

/**
 * WebAssembly SIMD kernels, or null where this engine has no WebAssembly SIMD (the caller then
 * uses `referenceKernels()`).
 */
export function createWasmKernels(options: WasmKernelOptions = {}): Kernels | null {
  const wanted = Math.max(1, Math.min(MAX_THREADS, Math.floor(options.threads ?? 1)));
  const memory = createSharedMemory(HEAP_START / PAGE + 16);
  const module = kernelModule(memory !== null);
  if (!module) return null;
  // without SharedArrayBuffer (a page that is not cross-origin isolated) or a way to start
  // threads: one thread on a plain memory
  const mem = memory ?? new WebAssembly.Memory({ initial: HEAP_START / PAGE + 16 });
  const threads = memory && options.spawn ? wanted : 1;
  return new WasmKernels(module, mem, memory !== null, threads, options.spawn);
}

class WasmKernels implements Kernels {
  readonly backend = 'wasm-simd' as const;
  private readonly thread: KernelThread;
  private readonly board: JobBoard;
  private readonly heap: Heap;
  /** buffers our views were made on (a shared memory gets a new SharedArrayBuffer object after growing) */
  private readonly ours = new WeakSet<ArrayBufferLike>();
  private readonly packed = new WeakMap<ArrayBufferLike, Map<string, Packed>>();
  private readonly finalizer: FinalizationRegistry<Packed>;
  private workspaces: { ptr: number; bytes: number }[] = [];
  private disposed = false;

  constructor(
    module: WebAssembly.Module,
    private readonly memory: WebAssembly.Memory,
    private readonly shared: boolean,
    readonly threads: number,
    spawn: WasmKernelOptions['spawn'],
  ) {
    this.thread = new KernelThread(instantiate(module, memory), memory, 0);
    this.board = new JobBoard(this.thread, threads);
    this.heap = new Heap(memory, HEAP_START);
    // the packed copy of weights that were garbage-collected goes back to the heap
    this.finalizer = new FinalizationRegistry((packed) => {
      if (!this.disposed) this.releasePacked(packed);
    });
    if (threads > 1 && spawn) for (let t = 1; t < threads; t++) spawn({ module, memory, thread: t });
  }

  private f32(): Float32Array {
    const v = this.thread.f32();
    this.ours.add(v.buffer);
    return v;
  }

  alloc(length: number): Float32Array {
    if (!this.shared) return new Float32Array(length);
    const ptr = this.heap.alloc(length * 4);
    const m = this.f32();
    m.fill(0, ptr >> 2, (ptr >> 2) + length);
    return new Float32Array(m.buffer, ptr, length);
  }

  free(array: Float32Array): void {
    if (this.shared && this.ours.has(array.buffer)) this.heap.release(array.byteOffset);
  }

  threadsStarted(): number {
    return this.board.helpersStarted();
  }

  helperChunks(): number {
    return this.board.helperChunks();
  }

  forget(weights: Float32Array): void {
    const byKey = this.packed.get(weights.buffer);
    if (!byKey) return;
    const prefix = `${weights.byteOffset}:${weights.length}:`;
    for (const [k, p] of byKey) {
      if (k.startsWith(prefix)) {
        this.finalizer.unregister(p);
        this.releasePacked(p);
        byKey.delete(k);
      }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.board.quit();
  }

  /** Bytes of WebAssembly memory in use (tensors from alloc, packed weights, workspaces). */
  get allocatedBytes(): number {
    return this.heap.allocatedBytes;
  }

  private releasePacked(p: Packed): void {
    if (p.ptr < 0) return;
    this.heap.release(p.ptr);
    p.ptr = -1;
  }

  // --- placing arguments -------------------------------------------------------------------

  private place(a: Float32Array, copyIn: boolean): Placed {
    if (this.ours.has(a.buffer)) return { ptr: a.byteOffset, copy: null };
    const ptr = this.heap.alloc(a.length * 4);
    if (copyIn) this.f32().set(a, ptr >> 2);
    return { ptr, copy: a };
  }

  /** Copies results back into arrays that were not in our memory and frees the temporaries. */
  private settle(out: Placed | null, ...temps: (Placed | null)[]): void {
    if (out?.copy) out.copy.set(this.f32().subarray(out.ptr >> 2, (out.ptr >> 2) + out.copy.length));
    for (const t of [out, ...temps]) if (t?.copy) this.heap.release(t.ptr);
  }

  /** Workspace `slot` of at least `bytes` (kept between calls, grown when needed). */
  private workspace(slot: number, bytes: number): number {
    const w = this.workspaces[slot];
    if (w && w.bytes >= bytes) return w.ptr;
    if (w) this.heap.release(w.ptr);
    const ptr = this.heap.alloc(bytes);
    this.workspaces[slot] = { ptr, bytes };
    return ptr;
  }

  private cached(w: Float32Array, sig: string, bytes: number, fill: (dst: number, src: number) => void): number {
    let byKey = this.packed.get(w.buffer);
    if (!byKey) {
      byKey = new Map();
      this.packed.set(w.buffer, byKey);
    }
    const key = `${w.byteOffset}:${w.length}:${sig}`;
    const hit = byKey.get(key);
    if (hit) return hit.ptr;
    const src = this.place(w, true);
    const ptr = this.heap.alloc(bytes);
    try {
      fill(ptr, src.ptr);
    } finally {
      this.settle(null, src);
    }
    const packed: Packed = { ptr };
    byKey.set(key, packed);
    this.finalizer.register(w.buffer, packed, packed);
    return ptr;
  }

  // --- jobs --------------------------------------------------------------------------------

  private run(kind: JobKind, args: number[], total: number): void {
    if (this.disposed) throw new Error('kernels: used after dispose()');
    if (args.length > ARG_WORDS) throw new Error('kernel job: too many arguments');
    this.board.run(kind, args, total);
  }

  /** Chunks for a pass over `count` units: a few per thread, each at least `min` units. */
  private split(count: number, min = 1): number {
    if (this.threads <= 1) return count;
    return Math.max(min, Math.ceil(count / (4 * this.threads)));
  }

  private packA(src: number, rs: number, cs: number, M: number, K: number, dst: number, scale = 1): void {
    const np = panels(M, MR);
    const per = this.split(np, 8);
    this.run(JobKind.PackA, [src, rs, cs, M, K, dst, per, floatArg(scale)], panels(np, per));
  }

  private packB(src: number, rs: number, cs: number, K: number, N: number, dst: number): void {
    const np = panels(N, NR);
    const per = this.split(np, 2);
    this.run(JobKind.PackB, [src, rs, cs, K, N, dst, per], panels(np, per));
  }

  /** C (M x N, row stride ldc) from packed A and B. */
  private gemm(pa: number, pb: number, c: number, ldc: number, M: number, N: number, K: number, bias: number, flags: number): void {
    const mPanels = panels(M, MR);
    const nPanels = panels(N, NR);
    // cache blocking: a chunk's A block (64 rows x KC) stays in L2, its B panels stream through L1
    let mcp = Math.min(mPanels, 32);
    let ncp = Math.min(nPanels, 16);
    const want = this.threads > 1 ? 4 * this.threads : 1;
    while (panels(mPanels, mcp) * panels(nPanels, ncp) < want && (ncp > 1 || mcp > 4)) {
      if (ncp > 1 && (ncp >= mcp / 4 || mcp <= 4)) ncp = Math.ceil(ncp / 2);
      else mcp = Math.ceil(mcp / 2);
    }
    const mChunks = panels(mPanels, mcp);
    this.run(JobKind.Gemm, [pa, pb, c, ldc, M, N, K, bias, flags, mcp, ncp, mChunks], mChunks * panels(nPanels, ncp));
  }

  // --- kernels -------------------------------------------------------------------------------

  sgemm(p: GemmParams, a: Float32Array, b: Float32Array, c: Float32Array): void {
    const { m, n, k } = p;
    const alpha = p.alpha ?? 1;
    const beta = p.beta ?? 0;
    const lda = p.lda ?? (p.transA ? m : k);
    const ldb = p.ldb ?? (p.transB ? k : n);
    const ldc = p.ldc ?? n;
    if (m === 0 || n === 0) return;
    checkLength('sgemm A', a, p.transA ? (k - 1) * lda + m : (m - 1) * lda + k);
    checkLength('sgemm B', b, p.transB ? (n - 1) * ldb + k : (k - 1) * ldb + n);
    checkLength('sgemm C', c, (m - 1) * ldc + n);
    const pa = this.place(a, true);
    const pb = this.place(b, true);
    const pc = this.place(c, true); // in too: C may have columns past n (ldc) that must stay as they are
    try {
      if (k === 0 || alpha === 0) {
        const v = this.f32();
        for (let i = 0; i < m; i++) {
          const row = (pc.ptr >> 2) + i * ldc;
          for (let j = 0; j < n; j++) v[row + j] = beta === 0 ? 0 : beta * v[row + j]!;
        }
        return;
      }
      if (beta !== 0 && beta !== 1) {
        const v = this.f32();
        for (let i = 0; i < m; i++) {
          const row = (pc.ptr >> 2) + i * ldc;
          for (let j = 0; j < n; j++) v[row + j] = beta * v[row + j]!;
        }
      }
      const wa = this.workspace(0, panels(m, MR) * MR * k * 4);
      const wb = this.workspace(1, panels(n, NR) * NR * k * 4);
      this.packA(pa.ptr, p.transA ? 1 : lda, p.transA ? lda : 1, m, k, wa, alpha);
      this.packB(pb.ptr, p.transB ? 1 : ldb, p.transB ? ldb : 1, k, n, wb);
      this.gemm(wa, wb, pc.ptr, ldc, m, n, k, 0, beta === 0 ? 0 : GEMM_ACCUMULATE);
    } finally {
      this.settle(pc, pa, pb);
    }
  }

  conv2d(p: Conv2dParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void {
    checkConv2d(p);
    const [, outC, OH, OW] = conv2dOutputShape(p);
    const { group: G, inHeight: H, inWidth: W, kernelH: kh, kernelW: kw } = p;
    const cinG = p.inChannels / G;
    const coutG = outC / G;
    const K = cinG * kh * kw;
    const N = OH * OW;
    checkLength('convolution input', input, p.batch * p.inChannels * H * W);
    checkLength('convolution weights', weights, outC * K);
    checkLength('convolution output', output, p.batch * outC * N);
    if (bias) checkLength('convolution bias', bias, outC);
    if (p.batch === 0 || outC === 0 || N <= 0) return;
    if (G > 1 && cinG === 1) {
      this.depthwise(p, OH, OW, input, weights, bias, output);
      return;
    }
    const groupA = panels(coutG, MR) * MR * K * 4;
    const pa = this.cached(weights, `${Prepack.ConvA}:${G}:${coutG}:${K}`, groupA * G, (dst, src) => {
      for (let g = 0; g < G; g++) this.packA(src + g * coutG * K * 4, K, 1, coutG, K, dst + g * groupA);
    });
    const px = this.place(input, true);
    const py = this.place(output, false);
    const pbias = bias ? this.place(bias, true) : null;
    try {
      const wb = this.workspace(1, panels(N, NR) * NR * K * 4);
      const pointwise = kh === 1 && kw === 1 && p.strideH === 1 && p.strideW === 1 && p.padH === 0 && p.padW === 0;
      const flags = (bias ? GEMM_BIAS_ROW : 0) | (p.relu ? GEMM_RELU : 0);
      const np = panels(N, NR);
      for (let n = 0; n < p.batch; n++) {
        for (let g = 0; g < G; g++) {
          const src = px.ptr + (n * p.inChannels + g * cinG) * H * W * 4;
          if (pointwise) {
            this.packB(src, N, 1, K, N, wb);
          } else {
            let planes = src;
            const Hp = H + 2 * p.padH;
            const Wp = W + 2 * p.padW;
            if (p.padH > 0 || p.padW > 0) {
              planes = this.workspace(3, cinG * Hp * Wp * 4);
              const per = this.split(cinG, 4);
              this.run(JobKind.Pad, [src, planes, H, W, p.padH, p.padW, cinG, per], panels(cinG, per));
            }
            const per = this.split(np, 1);
            this.run(JobKind.Im2col, [planes, cinG, Hp, Wp, kh, kw, p.strideH, p.strideW, p.dilationH, p.dilationW, OW, N, wb, per], panels(np, per));
          }
          const dst = py.ptr + (n * outC + g * coutG) * N * 4;
          this.gemm(pa + g * groupA, wb, dst, N, coutG, N, K, pbias ? pbias.ptr + g * coutG * 4 : 0, flags);
        }
      }
    } finally {
      this.settle(py, px, pbias);
    }
  }

  /**
   * One input channel per group (depthwise, any channel multiplier): a direct SIMD loop over
   * zero-padded planes, four outputs a vector (a GEMM with M = 1 per group would waste the tile).
   */
  private depthwise(p: Conv2dParams, OH: number, OW: number, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void {
    const px = this.place(input, true);
    const pw = this.place(weights, true);
    const py = this.place(output, false);
    const pbias = bias ? this.place(bias, true) : null;
    try {
      const inPlanes = p.batch * p.inChannels;
      // rows and columns every window (and the spare lanes of the last vector) may read
      const Hp = Math.max(p.inHeight + 2 * p.padH, (OH - 1) * p.strideH + (p.kernelH - 1) * p.dilationH + 1);
      const Wp = Math.max(p.inWidth + 2 * p.padW, (OW - 1) * p.strideW + (p.kernelW - 1) * p.dilationW + 1);
      const padded = this.workspace(3, inPlanes * Hp * Wp * 4 + 256);
      const perIn = this.split(inPlanes, 4);
      this.run(JobKind.PadFill, [px.ptr, padded, p.inHeight, p.inWidth, p.padH, p.padW, Hp, Wp, floatArg(0), inPlanes, perIn], panels(inPlanes, perIn));
      const planes = p.batch * p.outChannels;
      const per = this.split(planes, 1);
      this.run(JobKind.Depthwise, [
        padded, pw.ptr, pbias ? pbias.ptr : 0, py.ptr, planes, p.outChannels, p.outChannels / p.group, p.inChannels,
        Hp, Wp, OH, OW, p.kernelH, p.kernelW, p.strideH, p.strideW, p.dilationH, p.dilationW, p.relu ? 1 : 0, per,
      ], panels(planes, per));
    } finally {
      this.settle(py, px, pw, pbias);
    }
  }

  deconv2d(p: Deconv2dParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void {
    checkConv2d(p, 'deconvolution');
    const [, outC, OH, OW] = deconv2dOutputShape(p);
    const { group: G, inHeight: H, inWidth: W, kernelH: kh, kernelW: kw } = p;
    const cinG = p.inChannels / G;
    const coutG = outC / G;
    const Mc = coutG * kh * kw; // rows of the column buffer
    const HW = H * W;
    checkLength('deconvolution input', input, p.batch * p.inChannels * HW);
    checkLength('deconvolution weights', weights, p.inChannels * Mc);
    checkLength('deconvolution output', output, p.batch * outC * OH * OW);
    if (bias) checkLength('deconvolution bias', bias, outC);
    if (p.batch === 0 || outC === 0 || OH <= 0 || OW <= 0) return;
    const py = this.place(output, false);
    if (HW === 0 || cinG === 0) {
      // no input: the output is the bias
      const v = this.f32();
      for (let n = 0; n < p.batch; n++) {
        for (let c = 0; c < outC; c++) {
          const b = bias ? bias[c]! : 0;
          v.fill(p.relu && b < 0 ? 0 : b, (py.ptr >> 2) + (n * outC + c) * OH * OW, (py.ptr >> 2) + (n * outC + c + 1) * OH * OW);
        }
      }
      this.settle(py);
      return;
    }
    // col (Mc x HW) = W_g^T (Mc x cinG) * x_g (cinG x HW); W_g is cinG x Mc, so A[m][k] = W_g[k][m]
    const groupA = panels(Mc, MR) * MR * cinG * 4;
    const pa = this.cached(weights, `${Prepack.DeconvA}:${G}:${Mc}:${cinG}`, groupA * G, (dst, src) => {
      for (let g = 0; g < G; g++) this.packA(src + g * cinG * Mc * 4, 1, Mc, Mc, cinG, dst + g * groupA);
    });
    const px = this.place(input, true);
    const pbias = bias ? this.place(bias, true) : null;
    try {
      const wb = this.workspace(1, panels(HW, NR) * NR * cinG * 4);
      const col = this.workspace(2, Mc * HW * 4);
      for (let n = 0; n < p.batch; n++) {
        for (let g = 0; g < G; g++) {
          this.packB(px.ptr + (n * p.inChannels + g * cinG) * HW * 4, HW, 1, cinG, HW, wb);
          this.gemm(pa + g * groupA, wb, col, HW, Mc, HW, cinG, 0, 0);
          const per = this.split(coutG, 1);
          this.run(JobKind.Col2im, [
            col, py.ptr + (n * outC + g * coutG) * OH * OW * 4, coutG, OH, OW, kh, kw, p.strideH, p.strideW,
            p.padH, p.padW, p.dilationH, p.dilationW, H, W, pbias ? pbias.ptr + g * coutG * 4 : 0, p.relu ? 1 : 0, per,
          ], panels(coutG, per));
        }
      }
    } finally {
      this.settle(py, px, pbias);
    }
  }

  innerProduct(p: InnerProductParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void {
    const { batch, inputSize: K, outputSize: O } = p;
    checkLength('inner product input', input, batch * K);
    checkLength('inner product weights', weights, K * O);
    checkLength('inner product output', output, batch * O);
    if (bias) checkLength('inner product bias', bias, O);
    if (batch === 0 || O === 0) return;
    // y (batch x O) = x (batch x K) * W^T (K x O): W^T is packed once as the B operand
    const pb = this.cached(weights, `${Prepack.IpB}:${p.transpose ? 1 : 0}:${K}:${O}`, panels(O, NR) * NR * Math.max(K, 1) * 4, (dst, src) => {
      if (p.transpose) this.packB(src, O, 1, K, O, dst);
      else this.packB(src, 1, K, K, O, dst);
    });
    const px = this.place(input, true);
    const py = this.place(output, false);
    const pbias = bias ? this.place(bias, true) : null;
    try {
      if (K === 0) {
        const v = this.f32();
        for (let b = 0; b < batch; b++) {
          for (let o = 0; o < O; o++) {
            const s = bias ? bias[o]! : 0;
            v[(py.ptr >> 2) + b * O + o] = p.relu && s < 0 ? 0 : s;
          }
        }
        return;
      }
      const wa = this.workspace(0, panels(batch, MR) * MR * K * 4);
      this.packA(px.ptr, K, 1, batch, K, wa);
      this.gemm(wa, pb, py.ptr, O, batch, O, K, pbias ? pbias.ptr : 0, (bias ? GEMM_BIAS_COL : 0) | (p.relu ? GEMM_RELU : 0));
    } finally {
      this.settle(py, px, pbias);
    }
  }

  pool2d(p: Pool2dParams, input: Float32Array, output: Float32Array): void {
    const planes = p.batch * p.channels;
    const { inHeight: H, inWidth: W, outHeight: OH, outWidth: OW } = p;
    checkLength('pooling input', input, planes * H * W);
    checkLength('pooling output', output, planes * OH * OW);
    if (planes === 0 || OH <= 0 || OW <= 0) return;
    if (H <= 0 || W <= 0) throw new RangeError(`pooling: an empty ${H} x ${W} input has no windows`);
    const px = this.place(input, true);
    const py = this.place(output, false);
    try {
      // the padded planes hold every window: Caffe's padding plus whatever the ceil rounding adds
      const Hp = Math.max(H + 2 * p.padH, (OH - 1) * p.strideH + p.kernelH);
      const Wp = Math.max(W + 2 * p.padW, (OW - 1) * p.strideW + p.kernelW);
      const padded = this.workspace(3, planes * Hp * Wp * 4 + 256);
      const isMax = p.method === 'max';
      const per = this.split(planes, 1);
      this.run(JobKind.PadFill, [px.ptr, padded, H, W, p.padH, p.padW, Hp, Wp, floatArg(isMax ? -3.4028234663852886e38 : 0), planes, per], panels(planes, per));
      this.run(JobKind.Pool, [
        padded, py.ptr, planes, Hp, Wp, OH, OW, p.kernelH, p.kernelW, p.strideH, p.strideW, isMax ? 1 : 0, H, W, p.padH, p.padW, per,
      ], panels(planes, per));
    } finally {
      this.settle(py, px);
    }
  }

  lrn(p: LrnParams, input: Float32Array, output: Float32Array): void {
    const { batch, channels: C, height: H, width: W, size } = p;
    checkLength('LRN input', input, batch * C * H * W);
    checkLength('LRN output', output, batch * C * H * W);
    if (size < 1 || size % 2 !== 1) throw new RangeError(`LRN: local_size must be odd and positive (Caffe's rule), got ${size}`);
    if (batch * C * H * W === 0) return;
    const px = this.place(input, true);
    const py = this.place(output, false);
    try {
      const floats = [floatArg(p.alpha), floatArg(p.beta), floatArg(p.k)];
      const betaMode = p.beta === 0.75 ? 0 : p.beta === 0.5 ? 1 : p.beta === 1 ? 2 : -1;
      if (p.region === 'across' && betaMode >= 0) {
        const per = this.split(C, 1);
        for (let n = 0; n < batch; n++) {
          const off = n * C * H * W * 4;
          this.run(JobKind.LrnAcross, [px.ptr + off, py.ptr + off, C, H * W, size, floatArg(p.alpha / size), floatArg(p.k), betaMode, per], panels(C, per));
        }
      } else if (p.region === 'across') {
        const hw = H * W;
        const per = Math.max(64, this.split(hw * batch, 64));
        const chunksPerImage = panels(hw, Math.min(per, hw));
        const perPos = Math.min(per, hw);
        this.run(JobKind.Lrn, [px.ptr, py.ptr, batch, C, H, W, size, 1, perPos, chunksPerImage, ...floats], batch * chunksPerImage);
      } else {
        const planes = batch * C;
        const per = this.split(planes, 1);
        this.run(JobKind.Lrn, [px.ptr, py.ptr, batch, C, H, W, size, 0, per, 0, ...floats], panels(planes, per));
      }
    } finally {
      this.settle(py, px);
    }
  }

  channelAffine(p: AffineParams, input: Float32Array, scale: Float32Array | null, shift: Float32Array | null, output: Float32Array): void {
    const planes = p.batch * p.channels;
    const n = planes * p.spatial;
    checkLength('affine input', input, n);
    checkLength('affine output', output, n);
    if (scale) checkLength('affine scale', scale, p.channels);
    if (shift) checkLength('affine shift', shift, p.channels);
    if (n === 0) return;
    const px = this.place(input, true);
    const py = output === input ? px : this.place(output, false);
    const ps = scale ? this.place(scale, true) : null;
    const pt = shift ? this.place(shift, true) : null;
    try {
      const per = this.split(planes, Math.ceil(65536 / Math.max(1, p.spatial)));
      this.run(JobKind.Affine, [px.ptr, py.ptr, p.spatial, p.channels, ps ? ps.ptr : 0, pt ? pt.ptr : 0, p.relu ? 1 : 0, floatArg(p.negativeSlope ?? 0), planes, per], panels(planes, per));
    } finally {
      if (py === px) this.settle(px, ps, pt);
      else this.settle(py, px, ps, pt);
    }
  }

  eltwise(p: EltwiseParams, a: Float32Array, b: Float32Array, output: Float32Array): void {
    const n = output.length;
    checkLength('eltwise input A', a, n);
    checkLength('eltwise input B', b, n);
    if (n === 0) return;
    const pa = this.place(a, true);
    const pb = b === a ? pa : this.place(b, true);
    const py = output === a ? pa : output === b ? pb : this.place(output, false);
    try {
      const per = Math.ceil(this.split(n, 65536) / 4) * 4;
      const op = p.op === 'sum' ? 0 : p.op === 'prod' ? 1 : 2;
      this.run(JobKind.Eltwise, [pa.ptr, pb.ptr, py.ptr, op, floatArg(p.coeffA ?? 1), floatArg(p.coeffB ?? 1), p.relu ? 1 : 0, floatArg(p.negativeSlope ?? 0), n, per], panels(n, per));
    } finally {
      // the output first (copied back), then the inputs that are not the output
      this.settle(py, ...[pa, pb].filter((t, i, all) => t !== py && all.indexOf(t) === i));
    }
  }
}

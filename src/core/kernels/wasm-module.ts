/**
 * The compiled kernel module and the fixed places in its memory.
 *
 * Memory map (byte addresses; the heap above is managed by `heap.ts`):
 *   [0, 1024)             never used, so a null pointer reads nothing that matters
 *   [1024, 1280)          the job board (`board.ts`), Int32 words
 *   [2048, 2048 + 64 KiB) per-thread scratch, SCRATCH_BYTES each: the GEMM edge tile at +0,
 *                          the im2col lane table at +256
 *   [HEAP_START, ...)     tensors, packed weights, workspaces
 */
import { KERNELS_WASM_SHARED, KERNELS_WASM_UNSHARED } from './generated/kernels-wasm';
import { GEMM_TILE } from './wat/gemm';

export const BOARD_PTR = 1024;
export const SCRATCH_PTR = 2048;
export const SCRATCH_BYTES = 1024;
export const MAX_THREADS = 64;
export const HEAP_START = 131072;
export const PAGE = 65536;
/** the shared memory's maximum (4 GiB, wasm32's limit): reserved address space, not committed memory */
export const MAX_PAGES = 65536;

export const MR = GEMM_TILE.mr;
export const NR = GEMM_TILE.nr;
/** K block of the GEMM (rows of packed A and B panels a micro-kernel call walks) */
export const KC = 256;

export function scratchOf(thread: number): number {
  return SCRATCH_PTR + thread * SCRATCH_BYTES;
}

/** The functions the module exports (all pointers are byte addresses in its memory). */
export interface KernelExports {
  gemm_chunk(pa: number, pb: number, c: number, ldc: number, M: number, N: number, K: number, kc: number,
    i0: number, i1: number, j0: number, j1: number, bias: number, flags: number, scratch: number): void;
  pack_a(src: number, rs: number, cs: number, M: number, K: number, kc: number, dst: number, i0: number, i1: number, scale: number): void;
  pack_b(src: number, rs: number, cs: number, K: number, N: number, kc: number, dst: number, j0: number, j1: number): void;
  im2col_pack(src: number, C: number, Hp: number, Wp: number, kh: number, kw: number, sh: number, sw: number,
    dh: number, dw: number, OW: number, N: number, kc: number, dst: number, j0: number, j1: number, tbl: number): void;
  pad_planes(src: number, dst: number, H: number, W: number, ph: number, pw: number, c0: number, c1: number): void;
  pad_fill(src: number, dst: number, H: number, W: number, top: number, left: number, Hp: number, Wp: number, fill: number, c0: number, c1: number): void;
  pool_planes(src: number, dst: number, Hp: number, Wp: number, OH: number, OW: number, kh: number, kw: number, sh: number, sw: number,
    isMax: number, H: number, W: number, ph: number, pw: number, c0: number, c1: number): void;
  affine(x: number, y: number, spatial: number, channels: number, scale: number, shift: number, relu: number, slope: number, p0: number, p1: number): void;
  eltwise(a: number, b: number, y: number, op: number, ca: number, cb: number, relu: number, slope: number, i0: number, i1: number): void;
  depthwise(src: number, w: number, bias: number, dst: number, Hp: number, Wp: number, OH: number, OW: number, kh: number, kw: number,
    sh: number, sw: number, dh: number, dw: number, relu: number, outC: number, coutG: number, inC: number, p0: number, p1: number): void;
  lrn_across(x: number, y: number, C: number, HW: number, size: number, aos: number, k: number, betaMode: number, c0: number, c1: number): void;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 to bytes (core stays free of atob/Buffer, which are host APIs). */
export function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const clean = s.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = BASE64.indexOf(clean[i]!);
    if (v < 0) throw new Error(`kernel module: bad base64 character at ${i}`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

let sharedModule: WebAssembly.Module | null = null;
let unsharedModule: WebAssembly.Module | null = null;

export function kernelModuleBytes(shared: boolean): Uint8Array<ArrayBuffer> {
  return decodeBase64(shared ? KERNELS_WASM_SHARED : KERNELS_WASM_UNSHARED);
}

/**
 * The compiled module, or null where this engine lacks WebAssembly SIMD (or threads, for the
 * shared variant). Compiled synchronously: it is a few kilobytes, and kernels run in workers.
 */
export function kernelModule(shared: boolean): WebAssembly.Module | null {
  if (typeof WebAssembly === 'undefined') return null;
  const cached = shared ? sharedModule : unsharedModule;
  if (cached) return cached;
  const bytes = kernelModuleBytes(shared);
  if (!WebAssembly.validate(bytes)) return null;
  const m = new WebAssembly.Module(bytes);
  if (shared) sharedModule = m;
  else unsharedModule = m;
  return m;
}

/** A shared memory when this engine has SharedArrayBuffer (cross-origin isolated pages, Node), else null. */
export function createSharedMemory(initialPages: number): WebAssembly.Memory | null {
  if (typeof SharedArrayBuffer === 'undefined') return null;
  try {
    return new WebAssembly.Memory({ initial: initialPages, maximum: MAX_PAGES, shared: true });
  } catch {
    return null;
  }
}

export function instantiate(module: WebAssembly.Module, memory: WebAssembly.Memory): KernelExports {
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return instance.exports as unknown as KernelExports;
}

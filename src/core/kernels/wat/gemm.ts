/**
 * WebAssembly text of the GEMM part of the kernel module: the register-tiled micro-kernel, the
 * cache-blocked loop over a chunk of tiles, and the packing of A and B panels.
 *
 * This file builds text only; `scripts/gen-kernels.ts` assembles it with wabt and commits the
 * bytes (`../generated/kernels-wasm.ts`). It is never imported at run time.
 *
 * Packed layouts (all float32, byte addresses, zero padding so the micro-kernel never branches):
 *   packed A (M x K, rows padded to a multiple of MR):
 *     for each K block kb (kc rows of K, the last one shorter), for each MR-row panel i,
 *     for each k of the block, the MR values A[i*MR + r][k]:
 *     byte offset of panel (kb, i) = 4 * (k0 * Mpad + i * MR * kcLen)   with k0 = kb * kc
 *   packed B (K x N, columns padded to a multiple of NR): the same with NR-column panels:
 *     byte offset of panel (kb, j) = 4 * (k0 * Npad + j * NR * kcLen)
 * so a micro-kernel call reads kcLen * MR contiguous floats of A and kcLen * NR of B.
 */

export interface GemmShape {
  /** rows of the register tile (A values broadcast) */
  mr: number;
  /** columns of the register tile, a multiple of 4 (f32x4 vectors of B and C) */
  nr: number;
  /** k steps per trip of the micro-kernel's loop (the remainder runs one step a trip) */
  unroll?: number;
}

/**
 * The tile the generated module uses. V8's optimizing compiler (TurboFan) gives wasm code 15 xmm
 * registers on x64 and schedules every load of a loop body early, so tiles with 12 accumulators
 * (6x8, 4x12, 3x16) spill and run at half speed, and unrolling the k loop spills too. Measured
 * with CPU time on this machine (AMD EPYC, V8 12.4 in Node 20; best of 25, GFLOP/s for
 * M x N x K = 256x3136x576 / 512x784x1152 / 2048x49x512 / 64x12544x147 / 1024^3):
 *   2x16: 46 48 38 40 48     4x8: 39 38 33 34 41     2x12: 34 33 30 31 37     6x8: 20-24
 *   4x8 unrolled 2: 25-28    2x16 unrolled 2: 22-29  3x8: 20-23               3x16: 20-27
 * 2x16 keeps 8 accumulators, 4 B vectors and 2 broadcast A values in registers with no spill.
 */
export const GEMM_TILE: GemmShape = { mr: 2, nr: 16 };

/** Micro-kernel modes (the `mode` argument of gemm_chunk's tiles). */
export const MODE_ZERO = 0; // accumulators start at 0
export const MODE_LOAD = 1; // accumulators start from C (accumulate into C)
export const MODE_BIAS_ROW = 2; // accumulators start at bias[row] (conv: bias per output channel)
export const MODE_BIAS_COL = 3; // accumulators start at bias[col] (inner product computed as x W^T)
export const MODE_RELU = 4; // flag: max(0, .) on the way out

/** Flags of gemm_chunk (which mode the first K block uses, and ReLU on the last block). */
export const GEMM_BIAS_ROW = 1;
export const GEMM_BIAS_COL = 2;
export const GEMM_ACCUMULATE = 4;
export const GEMM_RELU = 8;

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/**
 * $micro(ap, bp, cp, ldcb, kc, mode, biasp): the MR x NR tile of C at cp (row stride ldcb bytes)
 * gets the product of an A panel and a B panel over kc steps, started as `mode` says.
 * With `vectors` < NR / 4 it is $micro_v<vectors>: the same over the first 4 * vectors columns of
 * the panel only (the last panel of a C whose width is not a multiple of NR).
 */
export function microKernel({ mr, nr, unroll = 1 }: GemmShape, vectors = nr / 4): string {
  const nv = vectors;
  const name = vectors === nr / 4 ? '$micro' : `$micro_v${vectors}`;
  const acc = (r: number, v: number) => `$c${r}_${v}`;
  const locals = [
    ...range(mr).flatMap((r) => range(nv).map((v) => `(local ${acc(r, v)} v128)`)),
    ...range(nv).map((v) => `(local $b${v} v128)`),
    '(local $a v128)',
    '(local $row i32)',
  ];
  const init: string[] = [];
  // mode & 3: 0 zero, 1 load C, 2 bias per row, 3 bias per column
  init.push(`(block $init_done
    (block $m3 (block $m2 (block $m1 (block $m0
      (br_table $m0 $m1 $m2 $m3 (i32.and (local.get $mode) (i32.const 3))))
      ;; zero`);
  for (const r of range(mr)) for (const v of range(nv)) init.push(`(local.set ${acc(r, v)} (v128.const i32x4 0 0 0 0))`);
  init.push('(br $init_done))');
  init.push(';; load C');
  init.push('(local.set $row (local.get $cp))');
  for (const r of range(mr)) {
    for (const v of range(nv)) init.push(`(local.set ${acc(r, v)} (v128.load offset=${v * 16} (local.get $row)))`);
    if (r + 1 < mr) init.push('(local.set $row (i32.add (local.get $row) (local.get $ldcb)))');
  }
  init.push('(br $init_done))');
  init.push(';; bias per row');
  for (const r of range(mr)) {
    init.push(`(local.set $a (v128.load32_splat offset=${r * 4} (local.get $biasp)))`);
    for (const v of range(nv)) init.push(`(local.set ${acc(r, v)} (local.get $a))`);
  }
  init.push('(br $init_done))');
  init.push(';; bias per column');
  for (const v of range(nv)) init.push(`(local.set ${acc(0, v)} (v128.load offset=${v * 16} (local.get $biasp)))`);
  for (const r of range(mr).slice(1)) for (const v of range(nv)) init.push(`(local.set ${acc(r, v)} (local.get ${acc(0, v)}))`);
  init.push(')');

  const steps = (u: number): string[] => {
    const step: string[] = [];
    for (const s of range(u)) {
      for (const v of range(nv)) step.push(`(local.set $b${v} (v128.load offset=${(s * nr + v * 4) * 4} (local.get $bp)))`);
      for (const r of range(mr)) {
        step.push(`(local.set $a (v128.load32_splat offset=${(s * mr + r) * 4} (local.get $ap)))`);
        for (const v of range(nv)) step.push(`(local.set ${acc(r, v)} (f32x4.add (local.get ${acc(r, v)}) (f32x4.mul (local.get $a) (local.get $b${v}))))`);
      }
    }
    step.push(`(local.set $ap (i32.add (local.get $ap) (i32.const ${u * mr * 4})))`);
    step.push(`(local.set $bp (i32.add (local.get $bp) (i32.const ${u * nr * 4})))`);
    return step;
  };

  const relu: string[] = ['(if (i32.and (local.get $mode) (i32.const 4)) (then', '(local.set $a (v128.const i32x4 0 0 0 0))'];
  for (const r of range(mr)) for (const v of range(nv)) relu.push(`(local.set ${acc(r, v)} (f32x4.pmax (local.get ${acc(r, v)}) (local.get $a)))`);
  relu.push('))');
  const store: string[] = ['(local.set $row (local.get $cp))'];
  for (const r of range(mr)) {
    for (const v of range(nv)) store.push(`(v128.store offset=${v * 16} (local.get $row) (local.get ${acc(r, v)}))`);
    if (r + 1 < mr) store.push('(local.set $row (i32.add (local.get $row) (local.get $ldcb)))');
  }

  return `
  (func ${name} (param $ap i32) (param $bp i32) (param $cp i32) (param $ldcb i32) (param $kc i32) (param $mode i32) (param $biasp i32)
    ${locals.join(' ')}
    ${init.join('\n    ')}
    ${unroll > 1 ? `(if (i32.ge_u (local.get $kc) (i32.const ${unroll})) (then
      (loop $ku
        ${steps(unroll).join('\n        ')}
        (br_if $ku (i32.ge_u (local.tee $kc (i32.sub (local.get $kc) (i32.const ${unroll}))) (i32.const ${unroll}))))))` : ''}
    (if (local.get $kc) (then
      (loop $k
        ${steps(1).join('\n        ')}
        (br_if $k (local.tee $kc (i32.sub (local.get $kc) (i32.const 1)))))))
    ${relu.join('\n    ')}
    ${store.join('\n    ')})`;
}

/**
 * gemm_chunk: C[i0*MR .. i1*MR) x [j0*NR .. j1*NR) (clipped to M x N) from packed A and B,
 * K blocked by kc. Tiles cut by the edge of C go through a scratch tile (MR*NR floats).
 */
export function gemmChunk({ mr, nr }: GemmShape): string {
  return `
  (func $gemm_chunk (export "gemm_chunk")
    (param $pa i32) (param $pb i32) (param $c i32) (param $ldc i32)
    (param $M i32) (param $N i32) (param $K i32) (param $kc i32)
    (param $i0 i32) (param $i1 i32) (param $j0 i32) (param $j1 i32)
    (param $bias i32) (param $flags i32) (param $scratch i32)
    (local $k0 i32) (local $kcl i32) (local $mode i32) (local $mpad i32) (local $npad i32)
    (local $ablock i32) (local $bblock i32) (local $i i32) (local $j i32) (local $bp i32) (local $ap i32)
    (local $cp i32) (local $ldcb i32) (local $biasp i32) (local $rows i32) (local $cols i32)
    (local.set $mpad (i32.mul (i32.div_u (i32.add (local.get $M) (i32.const ${mr - 1})) (i32.const ${mr})) (i32.const ${mr})))
    (local.set $npad (i32.mul (i32.div_u (i32.add (local.get $N) (i32.const ${nr - 1})) (i32.const ${nr})) (i32.const ${nr})))
    (local.set $ldcb (i32.shl (local.get $ldc) (i32.const 2)))
    (local.set $k0 (i32.const 0))
    (loop $kblocks
      (local.set $kcl (select (local.get $kc) (i32.sub (local.get $K) (local.get $k0))
        (i32.lt_u (local.get $kc) (i32.sub (local.get $K) (local.get $k0)))))
      ;; first block: zero, C or bias; later blocks accumulate into C
      (local.set $mode (i32.const ${MODE_LOAD}))
      (if (i32.eqz (local.get $k0)) (then
        (local.set $mode
          (select (i32.const ${MODE_LOAD})
            (select (i32.const ${MODE_BIAS_ROW})
              (select (i32.const ${MODE_BIAS_COL}) (i32.const ${MODE_ZERO}) (i32.and (local.get $flags) (i32.const ${GEMM_BIAS_COL})))
              (i32.and (local.get $flags) (i32.const ${GEMM_BIAS_ROW})))
            (i32.and (local.get $flags) (i32.const ${GEMM_ACCUMULATE}))))))
      (if (i32.and (i32.ge_u (i32.add (local.get $k0) (local.get $kcl)) (local.get $K))
                   (i32.ne (i32.and (local.get $flags) (i32.const ${GEMM_RELU})) (i32.const 0)))
        (then (local.set $mode (i32.or (local.get $mode) (i32.const ${MODE_RELU})))))
      (local.set $ablock (i32.add (local.get $pa) (i32.shl (i32.mul (local.get $k0) (local.get $mpad)) (i32.const 2))))
      (local.set $bblock (i32.add (local.get $pb) (i32.shl (i32.mul (local.get $k0) (local.get $npad)) (i32.const 2))))
      (local.set $j (local.get $j0))
      (block $jdone (loop $jloop
        (br_if $jdone (i32.ge_u (local.get $j) (local.get $j1)))
        (local.set $bp (i32.add (local.get $bblock) (i32.shl (i32.mul (i32.mul (local.get $j) (i32.const ${nr})) (local.get $kcl)) (i32.const 2))))
        (local.set $cols (i32.sub (local.get $N) (i32.mul (local.get $j) (i32.const ${nr}))))
        (local.set $i (local.get $i0))
        (block $idone (loop $iloop
          (br_if $idone (i32.ge_u (local.get $i) (local.get $i1)))
          (local.set $ap (i32.add (local.get $ablock) (i32.shl (i32.mul (i32.mul (local.get $i) (i32.const ${mr})) (local.get $kcl)) (i32.const 2))))
          (local.set $rows (i32.sub (local.get $M) (i32.mul (local.get $i) (i32.const ${mr}))))
          (local.set $cp (i32.add (local.get $c) (i32.shl (i32.add (i32.mul (i32.mul (local.get $i) (i32.const ${mr})) (local.get $ldc)) (i32.mul (local.get $j) (i32.const ${nr}))) (i32.const 2))))
          (local.set $biasp (select
            (i32.add (local.get $bias) (i32.shl (i32.mul (local.get $i) (i32.const ${mr})) (i32.const 2)))
            (i32.add (local.get $bias) (i32.shl (i32.mul (local.get $j) (i32.const ${nr})) (i32.const 2)))
            (i32.and (local.get $flags) (i32.const ${GEMM_BIAS_ROW}))))
          (if (i32.and (i32.ge_s (local.get $rows) (i32.const ${mr})) (i32.ge_s (local.get $cols) (i32.const ${nr})))
            (then (call $micro (local.get $ap) (local.get $bp) (local.get $cp) (local.get $ldcb) (local.get $kcl) (local.get $mode) (local.get $biasp)))
            (else (call $edge_tile (local.get $ap) (local.get $bp) (local.get $cp) (local.get $ldc) (local.get $kcl) (local.get $mode) (local.get $biasp)
              (select (local.get $rows) (i32.const ${mr}) (i32.lt_s (local.get $rows) (i32.const ${mr})))
              (select (local.get $cols) (i32.const ${nr}) (i32.lt_s (local.get $cols) (i32.const ${nr})))
              (local.get $scratch))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $iloop)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $jloop)))
      (local.set $k0 (i32.add (local.get $k0) (local.get $kcl)))
      (br_if $kblocks (i32.lt_u (local.get $k0) (local.get $K)))))

  ;; a tile cut by the edge of C: with all rows and a multiple of 4 columns, the narrower kernel
  ;; writes C itself; otherwise the tile is prepared in the scratch tile (row stride NR), run by the
  ;; narrowest kernel that covers the columns, and copied back
  (func $edge_tile (param $ap i32) (param $bp i32) (param $cp i32) (param $ldc i32) (param $kcl i32) (param $mode i32)
    (param $biasp i32) (param $rows i32) (param $cols i32) (param $s i32)
    (local $r i32) (local $t i32) (local $v f32) (local $m i32) (local $nv i32)
    (local.set $nv (i32.shr_u (i32.add (local.get $cols) (i32.const 3)) (i32.const 2)))
    (if (i32.and (i32.eq (local.get $rows) (i32.const ${mr})) (i32.eqz (i32.and (local.get $cols) (i32.const 3)))) (then
      ${range(nr / 4 - 1).map((v) => `(if (i32.eq (local.get $nv) (i32.const ${v + 1})) (then
        (call $micro_v${v + 1} (local.get $ap) (local.get $bp) (local.get $cp) (i32.shl (local.get $ldc) (i32.const 2)) (local.get $kcl) (local.get $mode) (local.get $biasp))
        (return)))`).join('\n      ')}))
    (local.set $m (i32.and (local.get $mode) (i32.const 3)))
    (local.set $r (i32.const 0))
    (loop $rl
      (local.set $t (i32.const 0))
      (loop $tl
        (local.set $v (f32.const 0))
        (if (i32.and (i32.lt_u (local.get $r) (local.get $rows)) (i32.lt_u (local.get $t) (local.get $cols))) (then
          (if (i32.eq (local.get $m) (i32.const ${MODE_LOAD})) (then
            (local.set $v (f32.load (i32.add (local.get $cp) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $ldc)) (local.get $t)) (i32.const 2)))))))
          (if (i32.eq (local.get $m) (i32.const ${MODE_BIAS_ROW})) (then
            (local.set $v (f32.load (i32.add (local.get $biasp) (i32.shl (local.get $r) (i32.const 2)))))))
          (if (i32.eq (local.get $m) (i32.const ${MODE_BIAS_COL})) (then
            (local.set $v (f32.load (i32.add (local.get $biasp) (i32.shl (local.get $t) (i32.const 2)))))))))
        (f32.store (i32.add (local.get $s) (i32.shl (i32.add (i32.mul (local.get $r) (i32.const ${nr})) (local.get $t)) (i32.const 2))) (local.get $v))
        (br_if $tl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const ${nr}))))
      (br_if $rl (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (i32.const ${mr}))))
    (local.set $m (i32.or (i32.const ${MODE_LOAD}) (i32.and (local.get $mode) (i32.const ${MODE_RELU}))))
    ${range(nr / 4).map((v) => `(if (i32.eq (local.get $nv) (i32.const ${v + 1})) (then
      (call ${v + 1 === nr / 4 ? '$micro' : `$micro_v${v + 1}`} (local.get $ap) (local.get $bp) (local.get $s) (i32.const ${nr * 4}) (local.get $kcl) (local.get $m) (i32.const 0))))`).join('\n    ')}
    (local.set $r (i32.const 0))
    (block $rd (loop $rl2
      (br_if $rd (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $t (i32.const 0))
      (block $td (loop $tl2
        (br_if $td (i32.ge_u (local.get $t) (local.get $cols)))
        (f32.store (i32.add (local.get $cp) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $ldc)) (local.get $t)) (i32.const 2)))
          (f32.load (i32.add (local.get $s) (i32.shl (i32.add (i32.mul (local.get $r) (i32.const ${nr})) (local.get $t)) (i32.const 2)))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $tl2)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl2))))`;
}

/**
 * pack_a(src, rs, cs, M, K, kc, dst, i0, i1, scale): panels i0..i1 of A[m][k] = scale * src[m*rs + k*cs]
 * (strides in elements, so a transposed A is cs = M-stride) into the packed-A layout; rows past M are 0.
 */
export function packA({ mr }: GemmShape): string {
  return `
  (func $pack_a (export "pack_a")
    (param $src i32) (param $rs i32) (param $cs i32) (param $M i32) (param $K i32) (param $kc i32)
    (param $dst i32) (param $i0 i32) (param $i1 i32) (param $scale f32)
    (local $mpad i32) (local $k0 i32) (local $kcl i32) (local $i i32) (local $k i32) (local $r i32) (local $m i32)
    (local $d i32) (local $v f32)
    (local.set $mpad (i32.mul (i32.div_u (i32.add (local.get $M) (i32.const ${mr - 1})) (i32.const ${mr})) (i32.const ${mr})))
    (local.set $k0 (i32.const 0))
    (block $kbd (loop $kb
      (br_if $kbd (i32.ge_u (local.get $k0) (local.get $K)))
      (local.set $kcl (select (local.get $kc) (i32.sub (local.get $K) (local.get $k0))
        (i32.lt_u (local.get $kc) (i32.sub (local.get $K) (local.get $k0)))))
      (local.set $i (local.get $i0))
      (block $id (loop $il
        (br_if $id (i32.ge_u (local.get $i) (local.get $i1)))
        (local.set $d (i32.add (local.get $dst) (i32.shl (i32.add (i32.mul (local.get $k0) (local.get $mpad))
          (i32.mul (i32.mul (local.get $i) (i32.const ${mr})) (local.get $kcl))) (i32.const 2))))
        (local.set $k (i32.const 0))
        (block $kd (loop $kl
          (br_if $kd (i32.ge_u (local.get $k) (local.get $kcl)))
          (local.set $r (i32.const 0))
          (loop $rl
            (local.set $m (i32.add (i32.mul (local.get $i) (i32.const ${mr})) (local.get $r)))
            (local.set $v (f32.const 0))
            (if (i32.lt_u (local.get $m) (local.get $M)) (then
              (local.set $v (f32.mul (local.get $scale) (f32.load (i32.add (local.get $src) (i32.shl
                (i32.add (i32.mul (local.get $m) (local.get $rs)) (i32.mul (i32.add (local.get $k0) (local.get $k)) (local.get $cs)))
                (i32.const 2))))))))
            (f32.store (local.get $d) (local.get $v))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (br_if $rl (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (i32.const ${mr}))))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $kl)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $il)))
      (local.set $k0 (i32.add (local.get $k0) (local.get $kcl)))
      (br $kb))))`;
}

/**
 * pack_b(src, rs, cs, K, N, kc, dst, j0, j1): panels j0..j1 of B[k][n] = src[k*rs + n*cs] into the
 * packed-B layout; columns past N are 0. Whole panels with cs = 1 are copied as vectors.
 */
export function packB({ nr }: GemmShape): string {
  const nv = nr / 4;
  const vecCopy = range(nv)
    .map((v) => `(v128.store offset=${v * 16} (local.get $d) (v128.load offset=${v * 16} (local.get $s)))`)
    .join('\n              ');
  return `
  (func $pack_b (export "pack_b")
    (param $src i32) (param $rs i32) (param $cs i32) (param $K i32) (param $N i32) (param $kc i32)
    (param $dst i32) (param $j0 i32) (param $j1 i32)
    (local $npad i32) (local $k0 i32) (local $kcl i32) (local $j i32) (local $k i32) (local $t i32) (local $n i32)
    (local $d i32) (local $s i32) (local $v f32) (local $full i32) (local $rsb i32)
    (local.set $npad (i32.mul (i32.div_u (i32.add (local.get $N) (i32.const ${nr - 1})) (i32.const ${nr})) (i32.const ${nr})))
    (local.set $rsb (i32.shl (local.get $rs) (i32.const 2)))
    (local.set $k0 (i32.const 0))
    (block $kbd (loop $kb
      (br_if $kbd (i32.ge_u (local.get $k0) (local.get $K)))
      (local.set $kcl (select (local.get $kc) (i32.sub (local.get $K) (local.get $k0))
        (i32.lt_u (local.get $kc) (i32.sub (local.get $K) (local.get $k0)))))
      (local.set $j (local.get $j0))
      (block $jd (loop $jl
        (br_if $jd (i32.ge_u (local.get $j) (local.get $j1)))
        (local.set $d (i32.add (local.get $dst) (i32.shl (i32.add (i32.mul (local.get $k0) (local.get $npad))
          (i32.mul (i32.mul (local.get $j) (i32.const ${nr})) (local.get $kcl))) (i32.const 2))))
        (local.set $full (i32.and (i32.eq (local.get $cs) (i32.const 1))
          (i32.le_u (i32.mul (i32.add (local.get $j) (i32.const 1)) (i32.const ${nr})) (local.get $N))))
        (if (local.get $full)
          (then
            (local.set $s (i32.add (local.get $src) (i32.shl (i32.add (i32.mul (local.get $k0) (local.get $rs))
              (i32.mul (local.get $j) (i32.const ${nr}))) (i32.const 2))))
            (local.set $k (i32.const 0))
            (block $kd (loop $kl
              (br_if $kd (i32.ge_u (local.get $k) (local.get $kcl)))
              ${vecCopy}
              (local.set $s (i32.add (local.get $s) (local.get $rsb)))
              (local.set $d (i32.add (local.get $d) (i32.const ${nr * 4})))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br $kl))))
          (else
            (local.set $k (i32.const 0))
            (block $kd2 (loop $kl2
              (br_if $kd2 (i32.ge_u (local.get $k) (local.get $kcl)))
              (local.set $t (i32.const 0))
              (loop $tl
                (local.set $n (i32.add (i32.mul (local.get $j) (i32.const ${nr})) (local.get $t)))
                (local.set $v (f32.const 0))
                (if (i32.lt_u (local.get $n) (local.get $N)) (then
                  (local.set $v (f32.load (i32.add (local.get $src) (i32.shl
                    (i32.add (i32.mul (i32.add (local.get $k0) (local.get $k)) (local.get $rs)) (i32.mul (local.get $n) (local.get $cs)))
                    (i32.const 2)))))))
                (f32.store (local.get $d) (local.get $v))
                (local.set $d (i32.add (local.get $d) (i32.const 4)))
                (br_if $tl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const ${nr}))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br $kl2)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $jl)))
      (local.set $k0 (i32.add (local.get $k0) (local.get $kcl)))
      (br $kb))))`;
}

/**
 * WebAssembly text of Caffe's im2col for one group of one image, written straight into the
 * packed-B layout of `gemm.ts` (no separate column buffer, no second copy). Row k of the column
 * matrix is (c, ky, kx) with k = (c * kh + ky) * kw + kx, column n is the output pixel (oy, ox),
 * n = oy * OW + ox, and the value is input[c][oy * sh - ph + ky * dh][ox * sw - pw + kx * dw], or
 * 0 in the padding.
 *
 * The padding is made real first (pad_planes: each channel copied into a plane with ph zero rows
 * and pw zero columns around it, skipped when there is no padding), so im2col_pack reads without
 * a single bounds check: for each panel of NR output pixels it keeps each lane's offset in the
 * plane (`tbl`, per thread), and a tap (c, ky, kx) is the plane base plus a constant. A panel that
 * lies in one output row is a run of the plane read with vector loads (stride 1: NR/4 loads;
 * stride 2: twice as many and a shuffle of the even lanes); any other panel is gathered lane by
 * lane through the table.
 */
import type { GemmShape } from './gemm';

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** pad_planes(src, dst, H, W, ph, pw, c0, c1): planes c0..c1 of src (H x W) into dst ((H+2ph) x (W+2pw)) with zero borders. */
export function padPlanes(): string {
  return `
  (func $pad_planes (export "pad_planes")
    (param $src i32) (param $dst i32) (param $H i32) (param $W i32) (param $ph i32) (param $pw i32) (param $c0 i32) (param $c1 i32)
    (local $c i32) (local $y i32) (local $s i32) (local $d i32) (local $Wp4 i32) (local $W4 i32) (local $pw4 i32)
    (local.set $W4 (i32.shl (local.get $W) (i32.const 2)))
    (local.set $pw4 (i32.shl (local.get $pw) (i32.const 2)))
    (local.set $Wp4 (i32.add (local.get $W4) (i32.shl (local.get $pw4) (i32.const 1))))
    (local.set $c (local.get $c0))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $c1)))
      (local.set $s (i32.add (local.get $src) (i32.mul (i32.mul (local.get $c) (local.get $H)) (local.get $W4))))
      (local.set $d (i32.add (local.get $dst) (i32.mul (i32.mul (local.get $c) (i32.add (local.get $H) (i32.shl (local.get $ph) (i32.const 1)))) (local.get $Wp4))))
      (memory.fill (local.get $d) (i32.const 0) (i32.mul (local.get $ph) (local.get $Wp4)))
      (local.set $d (i32.add (local.get $d) (i32.mul (local.get $ph) (local.get $Wp4))))
      (local.set $y (i32.const 0))
      (block $yd (loop $yl
        (br_if $yd (i32.ge_u (local.get $y) (local.get $H)))
        (memory.fill (local.get $d) (i32.const 0) (local.get $pw4))
        (memory.copy (i32.add (local.get $d) (local.get $pw4)) (local.get $s) (local.get $W4))
        (memory.fill (i32.add (local.get $d) (i32.add (local.get $pw4) (local.get $W4))) (i32.const 0) (local.get $pw4))
        (local.set $d (i32.add (local.get $d) (local.get $Wp4)))
        (local.set $s (i32.add (local.get $s) (local.get $W4)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $yl)))
      (memory.fill (local.get $d) (i32.const 0) (i32.mul (local.get $ph) (local.get $Wp4)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;
}

export function im2colPack({ nr }: GemmShape): string {
  const nv = nr / 4;
  const stride1 = range(nv).map((v) =>
    `(v128.store offset=${v * 16} (local.get $d) (v128.load offset=${v * 16} (local.get $s)))`).join('\n                ');
  // stride 2: lanes 0, 2 of two consecutive vectors, i.e. bytes 0-3, 8-11 of each
  const even = '0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27';
  const stride2 = range(nv).map((v) =>
    `(v128.store offset=${v * 16} (local.get $d) (i8x16.shuffle ${even} (v128.load offset=${v * 32} (local.get $s)) (v128.load offset=${v * 32 + 16} (local.get $s))))`).join('\n                ');
  const gather = range(nr).map((t) =>
    `(f32.store offset=${t * 4} (local.get $d) (f32.load (i32.add (local.get $s) (i32.load offset=${t * 4} (local.get $tbl)))))`).join('\n                ');
  return `
  ;; im2col_pack(src, C, Hp, Wp, kh, kw, sh, sw, dh, dw, OW, N, kc, dst, j0, j1, tbl): src holds C
  ;; padded planes of Hp x Wp; panels j0..j1 of the column matrix into the packed-B layout
  (func $im2col_pack (export "im2col_pack")
    (param $src i32) (param $C i32) (param $Hp i32) (param $Wp i32)
    (param $kh i32) (param $kw i32) (param $sh i32) (param $sw i32) (param $dh i32) (param $dw i32)
    (param $OW i32) (param $N i32) (param $kc i32) (param $dst i32) (param $j0 i32) (param $j1 i32) (param $tbl i32)
    (local $K i32) (local $npad i32) (local $j i32) (local $t i32) (local $pix i32) (local $oy i32) (local $ox i32)
    (local $c i32) (local $ky i32) (local $kx i32) (local $k0 i32) (local $kcl i32) (local $kk i32) (local $d i32)
    (local $plane i32) (local $inrow i32) (local $s i32) (local $rowtap i32) (local $planeb i32) (local $mode i32)
    (local.set $K (i32.mul (local.get $C) (i32.mul (local.get $kh) (local.get $kw))))
    (local.set $npad (i32.mul (i32.div_u (i32.add (local.get $N) (i32.const ${nr - 1})) (i32.const ${nr})) (i32.const ${nr})))
    (local.set $planeb (i32.shl (i32.mul (local.get $Hp) (local.get $Wp)) (i32.const 2)))
    (local.set $j (local.get $j0))
    (block $jd (loop $jl
      (br_if $jd (i32.ge_u (local.get $j) (local.get $j1)))
      ;; per lane: byte offset of its window's first tap in a plane (lanes past N read offset 0;
      ;; their columns of C are never stored)
      (local.set $t (i32.const 0))
      (loop $tl
        (local.set $pix (i32.add (i32.mul (local.get $j) (i32.const ${nr})) (local.get $t)))
        (i32.store (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2))) (i32.const 0))
        (if (i32.lt_u (local.get $pix) (local.get $N)) (then
          (local.set $oy (i32.div_u (local.get $pix) (local.get $OW)))
          (local.set $ox (i32.sub (local.get $pix) (i32.mul (local.get $oy) (local.get $OW))))
          (i32.store (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2)))
            (i32.shl (i32.add (i32.mul (i32.mul (local.get $oy) (local.get $sh)) (local.get $Wp)) (i32.mul (local.get $ox) (local.get $sw))) (i32.const 2)))
          (if (i32.eqz (local.get $t)) (then (local.set $inrow (local.get $oy))))
          (if (i32.eq (local.get $t) (i32.const ${nr - 1})) (then
            (local.set $inrow (i32.eq (local.get $inrow) (local.get $oy)))))))
        (br_if $tl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const ${nr}))))
      ;; mode 1: one row, stride 1; mode 2: one row, stride 2; mode 0: gather
      (local.set $mode (i32.const 0))
      (if (i32.and (i32.le_u (i32.mul (i32.add (local.get $j) (i32.const 1)) (i32.const ${nr})) (local.get $N)) (local.get $inrow)) (then
        (if (i32.eq (local.get $sw) (i32.const 1)) (then (local.set $mode (i32.const 1))))
        (if (i32.eq (local.get $sw) (i32.const 2)) (then (local.set $mode (i32.const 2))))))
      (local.set $k0 (i32.const 0))
      (local.set $kcl (select (local.get $kc) (local.get $K) (i32.lt_u (local.get $kc) (local.get $K))))
      (local.set $kk (i32.const 0))
      (local.set $d (i32.add (local.get $dst) (i32.shl (i32.mul (i32.mul (local.get $j) (i32.const ${nr})) (local.get $kcl)) (i32.const 2))))
      (local.set $plane (local.get $src))
      (local.set $c (i32.const 0))
      (block $cd (loop $cl
        (br_if $cd (i32.ge_u (local.get $c) (local.get $C)))
        (local.set $ky (i32.const 0))
        (block $kyd (loop $kyl
          (br_if $kyd (i32.ge_u (local.get $ky) (local.get $kh)))
          (local.set $rowtap (i32.add (local.get $plane) (i32.shl (i32.mul (i32.mul (local.get $ky) (local.get $dh)) (local.get $Wp)) (i32.const 2))))
          (local.set $kx (i32.const 0))
          (block $kxd (loop $kxl
            (br_if $kxd (i32.ge_u (local.get $kx) (local.get $kw)))
            ;; s = plane + tap offset; the lane offsets are added per lane (gather) or once (runs)
            (local.set $s (i32.add (local.get $rowtap) (i32.shl (i32.mul (local.get $kx) (local.get $dw)) (i32.const 2))))
            (block $done
              (if (i32.eq (local.get $mode) (i32.const 1)) (then
                (local.set $s (i32.add (local.get $s) (i32.load (local.get $tbl))))
                ${stride1}
                (br $done)))
              (if (i32.eq (local.get $mode) (i32.const 2)) (then
                (local.set $s (i32.add (local.get $s) (i32.load (local.get $tbl))))
                ${stride2}
                (br $done)))
              ${gather})
            ;; next row of the packed panel; a new K block starts a new panel base
            (local.set $d (i32.add (local.get $d) (i32.const ${nr * 4})))
            (local.set $kk (i32.add (local.get $kk) (i32.const 1)))
            (if (i32.eq (local.get $kk) (local.get $kcl)) (then
              (local.set $k0 (i32.add (local.get $k0) (local.get $kcl)))
              (local.set $kk (i32.const 0))
              (local.set $kcl (select (local.get $kc) (i32.sub (local.get $K) (local.get $k0))
                (i32.lt_u (local.get $kc) (i32.sub (local.get $K) (local.get $k0)))))
              (local.set $d (i32.add (local.get $dst) (i32.shl (i32.add (i32.mul (local.get $k0) (local.get $npad))
                (i32.mul (i32.mul (local.get $j) (i32.const ${nr})) (local.get $kcl))) (i32.const 2))))))
            (local.set $kx (i32.add (local.get $kx) (i32.const 1)))
            (br $kxl)))
          (local.set $ky (i32.add (local.get $ky) (i32.const 1)))
          (br $kyl)))
        (local.set $plane (i32.add (local.get $plane) (local.get $planeb)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $cl)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $jl))))`;
}

/**
 * WebAssembly text of im2col_pack: Caffe's im2col for one group of one image, written straight
 * into the packed-B layout of `gemm.ts` (so there is no separate column buffer and no second
 * copy). Row k of the column matrix is (c, ky, kx) with k = (c * kh + ky) * kw + kx, column n is
 * the output pixel (oy, ox) with n = oy * OW + ox, and the value is
 * input[c][oy * sh - ph + ky * dh][ox * sw - pw + kx * dw], or 0 in the padding.
 *
 * A panel (NR output pixels) that lies in one output row and whose NR inputs are inside the
 * image is copied with vector loads (stride 1: NR/4 loads; stride 2: 2 * NR/4 loads and a
 * shuffle of the even lanes); any other panel reads lane by lane with bounds checks, using a
 * per-thread table of each lane's first input row and column (`tbl`, 2 * NR i32).
 */
import type { GemmShape } from './gemm';

export function im2colPack({ nr }: GemmShape): string {
  const nv = nr / 4;
  const stride1 = Array.from({ length: nv }, (_, v) =>
    `(v128.store offset=${v * 16} (local.get $d) (v128.load offset=${v * 16} (local.get $s)))`).join('\n              ');
  // stride 2: lanes 0, 2 of two consecutive vectors, i.e. bytes 0-3, 8-11 of each
  const even = '0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27';
  const stride2 = Array.from({ length: nv }, (_, v) =>
    `(v128.store offset=${v * 16} (local.get $d) (i8x16.shuffle ${even} (v128.load offset=${v * 32} (local.get $s)) (v128.load offset=${v * 32 + 16} (local.get $s))))`).join('\n              ');
  return `
  (func $im2col_pack (export "im2col_pack")
    (param $src i32) (param $C i32) (param $H i32) (param $W i32)
    (param $kh i32) (param $kw i32) (param $sh i32) (param $sw i32) (param $ph i32) (param $pw i32) (param $dh i32) (param $dw i32)
    (param $OW i32) (param $N i32) (param $kc i32) (param $dst i32) (param $j0 i32) (param $j1 i32) (param $tbl i32)
    (local $K i32) (local $npad i32) (local $j i32) (local $t i32) (local $pix i32) (local $oy i32) (local $ox i32)
    (local $c i32) (local $ky i32) (local $kx i32) (local $k0 i32) (local $kcl i32) (local $kk i32) (local $d i32)
    (local $plane i32) (local $inrow i32) (local $iy0 i32) (local $ix0 i32) (local $iy i32) (local $ix i32) (local $s i32)
    (local $kyd i32) (local $kxd i32) (local $fast i32) (local $v f32) (local $hw4 i32)
    (local.set $K (i32.mul (local.get $C) (i32.mul (local.get $kh) (local.get $kw))))
    (local.set $npad (i32.mul (i32.div_u (i32.add (local.get $N) (i32.const ${nr - 1})) (i32.const ${nr})) (i32.const ${nr})))
    (local.set $hw4 (i32.shl (i32.mul (local.get $H) (local.get $W)) (i32.const 2)))
    (local.set $j (local.get $j0))
    (block $jd (loop $jl
      (br_if $jd (i32.ge_u (local.get $j) (local.get $j1)))
      ;; per lane: first input row and column of its window (lanes past N get a far-away row)
      (local.set $t (i32.const 0))
      (loop $tl
        (local.set $pix (i32.add (i32.mul (local.get $j) (i32.const ${nr})) (local.get $t)))
        (if (i32.lt_u (local.get $pix) (local.get $N))
          (then
            (local.set $oy (i32.div_u (local.get $pix) (local.get $OW)))
            (local.set $ox (i32.sub (local.get $pix) (i32.mul (local.get $oy) (local.get $OW))))
            (i32.store (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2)))
              (i32.sub (i32.mul (local.get $oy) (local.get $sh)) (local.get $ph)))
            (i32.store offset=${nr * 4} (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2)))
              (i32.sub (i32.mul (local.get $ox) (local.get $sw)) (local.get $pw))))
          (else
            (i32.store (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2))) (i32.const -1073741824))
            (i32.store offset=${nr * 4} (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2))) (i32.const -1073741824))))
        (br_if $tl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const ${nr}))))
      (local.set $iy0 (i32.load (local.get $tbl)))
      (local.set $ix0 (i32.load offset=${nr * 4} (local.get $tbl)))
      (local.set $inrow (i32.and
        (i32.le_u (i32.mul (i32.add (local.get $j) (i32.const 1)) (i32.const ${nr})) (local.get $N))
        (i32.eq (local.get $iy0) (i32.load offset=${(nr - 1) * 4} (local.get $tbl)))))
      (local.set $k0 (i32.const 0))
      (local.set $kcl (select (local.get $kc) (local.get $K) (i32.lt_u (local.get $kc) (local.get $K))))
      (local.set $kk (i32.const 0))
      (local.set $d (i32.add (local.get $dst) (i32.shl (i32.mul (i32.mul (local.get $j) (i32.const ${nr})) (local.get $kcl)) (i32.const 2))))
      (local.set $plane (local.get $src))
      (local.set $c (i32.const 0))
      (block $cd (loop $cl
        (br_if $cd (i32.ge_u (local.get $c) (local.get $C)))
        (local.set $ky (i32.const 0))
        (block $kyd_ (loop $kyl
          (br_if $kyd_ (i32.ge_u (local.get $ky) (local.get $kh)))
          (local.set $kyd (i32.mul (local.get $ky) (local.get $dh)))
          (local.set $kx (i32.const 0))
          (block $kxd_ (loop $kxl
            (br_if $kxd_ (i32.ge_u (local.get $kx) (local.get $kw)))
            (local.set $kxd (i32.mul (local.get $kx) (local.get $dw)))
            (local.set $fast (i32.const 0))
            (if (local.get $inrow) (then
              (local.set $iy (i32.add (local.get $iy0) (local.get $kyd)))
              (local.set $ix (i32.add (local.get $ix0) (local.get $kxd)))
              (if (i32.and (i32.and (i32.lt_u (local.get $iy) (local.get $H)) (i32.ge_s (local.get $ix) (i32.const 0)))
                    (i32.lt_s (i32.add (local.get $ix) (i32.mul (local.get $sw) (i32.const ${nr - 1}))) (local.get $W)))
                (then
                  (local.set $s (i32.add (local.get $plane) (i32.shl (i32.add (i32.mul (local.get $iy) (local.get $W)) (local.get $ix)) (i32.const 2))))
                  (if (i32.eq (local.get $sw) (i32.const 1)) (then
                    (local.set $fast (i32.const 1))
                    ${stride1}))
                  (if (i32.eq (local.get $sw) (i32.const 2)) (then
                    (local.set $fast (i32.const 1))
                    ${stride2}))))))
            (if (i32.eqz (local.get $fast)) (then
              (local.set $t (i32.const 0))
              (loop $gl
                (local.set $iy (i32.add (i32.load (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2)))) (local.get $kyd)))
                (local.set $ix (i32.add (i32.load offset=${nr * 4} (i32.add (local.get $tbl) (i32.shl (local.get $t) (i32.const 2)))) (local.get $kxd)))
                (local.set $v (f32.const 0))
                (if (i32.and (i32.lt_u (local.get $iy) (local.get $H)) (i32.lt_u (local.get $ix) (local.get $W))) (then
                  (local.set $v (f32.load (i32.add (local.get $plane)
                    (i32.shl (i32.add (i32.mul (local.get $iy) (local.get $W)) (local.get $ix)) (i32.const 2)))))))
                (f32.store (i32.add (local.get $d) (i32.shl (local.get $t) (i32.const 2))) (local.get $v))
                (br_if $gl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const ${nr}))))))
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
        (local.set $plane (i32.add (local.get $plane) (local.get $hw4)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $cl)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $jl))))`;
}

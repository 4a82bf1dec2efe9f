/**
 * WebAssembly text of pooling and LRN (across channels), four outputs per f32x4.
 *
 * Pooling reads planes padded beforehand (pad_fill: `top`/`left` border, the rest of Hp x Wp
 * filled with `fill`): -FLT_MAX for MAX, which is the same as Caffe clipping the window to the
 * image, and 0 for AVE, whose divisor Caffe takes over the window clipped to the padded image
 * (height + pad), computed here per output. Windows are then plain loads: stride 1 one vector,
 * stride 2 two vectors and a shuffle of the even lanes, other strides four lane loads.
 *
 * LRN across channels sums the squares over the channel window directly (no running sum, so no
 * cancellation), then x * scale^-beta with beta 0.75 (GoogLeNet, CaffeNet, AlexNet) as
 * 1 / sqrt(scale * sqrt(scale)), 0.5 and 1 likewise; other betas use the TypeScript loop.
 */

/** pad_fill(src, dst, H, W, top, left, Hp, Wp, fill, c0, c1): planes c0..c1 of src (H x W) into dst (Hp x Wp). */
export function padFill(): string {
  return `
  (func $fill (param $d i32) (param $n i32) (param $v v128)
    (block $done (loop $l
      (br_if $done (i32.lt_u (local.get $n) (i32.const 4)))
      (v128.store (local.get $d) (local.get $v))
      (local.set $d (i32.add (local.get $d) (i32.const 16)))
      (local.set $n (i32.sub (local.get $n) (i32.const 4)))
      (br $l)))
    (block $done2 (loop $l2
      (br_if $done2 (i32.eqz (local.get $n)))
      (f32.store (local.get $d) (f32x4.extract_lane 0 (local.get $v)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $l2))))

  (func $pad_fill (export "pad_fill")
    (param $src i32) (param $dst i32) (param $H i32) (param $W i32) (param $top i32) (param $left i32)
    (param $Hp i32) (param $Wp i32) (param $fill f32) (param $c0 i32) (param $c1 i32)
    (local $c i32) (local $y i32) (local $s i32) (local $d i32) (local $v v128) (local $right i32)
    (local.set $v (f32x4.splat (local.get $fill)))
    (local.set $right (i32.sub (i32.sub (local.get $Wp) (local.get $W)) (local.get $left)))
    (local.set $c (local.get $c0))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $c1)))
      (local.set $s (i32.add (local.get $src) (i32.shl (i32.mul (i32.mul (local.get $c) (local.get $H)) (local.get $W)) (i32.const 2))))
      (local.set $d (i32.add (local.get $dst) (i32.shl (i32.mul (i32.mul (local.get $c) (local.get $Hp)) (local.get $Wp)) (i32.const 2))))
      (call $fill (local.get $d) (i32.mul (local.get $top) (local.get $Wp)) (local.get $v))
      (local.set $d (i32.add (local.get $d) (i32.shl (i32.mul (local.get $top) (local.get $Wp)) (i32.const 2))))
      (local.set $y (i32.const 0))
      (block $yd (loop $yl
        (br_if $yd (i32.ge_u (local.get $y) (local.get $H)))
        (call $fill (local.get $d) (local.get $left) (local.get $v))
        (memory.copy (i32.add (local.get $d) (i32.shl (local.get $left) (i32.const 2))) (local.get $s) (i32.shl (local.get $W) (i32.const 2)))
        (call $fill (i32.add (local.get $d) (i32.shl (i32.add (local.get $left) (local.get $W)) (i32.const 2))) (local.get $right) (local.get $v))
        (local.set $d (i32.add (local.get $d) (i32.shl (local.get $Wp) (i32.const 2))))
        (local.set $s (i32.add (local.get $s) (i32.shl (local.get $W) (i32.const 2))))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $yl)))
      (call $fill (local.get $d) (i32.mul (i32.sub (i32.sub (local.get $Hp) (local.get $H)) (local.get $top)) (local.get $Wp)) (local.get $v))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;
}

/**
 * pool_planes(src, dst, Hp, Wp, OH, OW, kh, kw, sh, sw, isMax, H, W, ph, pw, c0, c1): planes
 * c0..c1; src is padded (top ph, left pw), dst is OH x OW per plane.
 */
export function poolPlanes(): string {
  const even = '0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27';
  return `
  (func $pool_planes (export "pool_planes")
    (param $src i32) (param $dst i32) (param $Hp i32) (param $Wp i32) (param $OH i32) (param $OW i32)
    (param $kh i32) (param $kw i32) (param $sh i32) (param $sw i32) (param $isMax i32)
    (param $H i32) (param $W i32) (param $ph i32) (param $pw i32) (param $c0 i32) (param $c1 i32)
    (local $c i32) (local $oy i32) (local $ox i32) (local $ky i32) (local $kx i32) (local $plane i32) (local $row i32)
    (local $p i32) (local $acc v128) (local $v v128) (local $o i32) (local $hs i32) (local $ws i32) (local $dh i32)
    (local $cnt v128) (local $t i32) (local $Wp4 i32) (local $sw4 i32) (local $left i32)
    (local.set $Wp4 (i32.shl (local.get $Wp) (i32.const 2)))
    (local.set $sw4 (i32.shl (local.get $sw) (i32.const 2)))
    (local.set $c (local.get $c0))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $c1)))
      (local.set $plane (i32.add (local.get $src) (i32.mul (i32.mul (local.get $c) (local.get $Hp)) (local.get $Wp4))))
      (local.set $o (i32.add (local.get $dst) (i32.shl (i32.mul (i32.mul (local.get $c) (local.get $OH)) (local.get $OW)) (i32.const 2))))
      (local.set $oy (i32.const 0))
      (block $yd (loop $yl
        (br_if $yd (i32.ge_u (local.get $oy) (local.get $OH)))
        ;; AVE divisor, rows: window rows clipped to the padded image (H + ph), in unpadded coordinates
        (local.set $hs (i32.sub (i32.mul (local.get $oy) (local.get $sh)) (local.get $ph)))
        (local.set $dh (i32.sub
          (select (i32.add (local.get $hs) (local.get $kh)) (i32.add (local.get $H) (local.get $ph))
            (i32.lt_s (i32.add (local.get $hs) (local.get $kh)) (i32.add (local.get $H) (local.get $ph))))
          (local.get $hs)))
        (local.set $row (i32.add (local.get $plane) (i32.mul (i32.mul (local.get $oy) (local.get $sh)) (local.get $Wp4))))
        (local.set $ox (i32.const 0))
        (block $xd (loop $xl
          (br_if $xd (i32.ge_u (local.get $ox) (local.get $OW)))
          (local.set $acc (select (result v128) (v128.const f32x4 -0x1.fffffep+127 -0x1.fffffep+127 -0x1.fffffep+127 -0x1.fffffep+127)
            (v128.const i32x4 0 0 0 0) (local.get $isMax)))
          (local.set $ky (i32.const 0))
          (loop $kyl
            (local.set $p (i32.add (i32.add (local.get $row) (i32.mul (local.get $ky) (local.get $Wp4))) (i32.mul (local.get $ox) (local.get $sw4))))
            (local.set $kx (i32.const 0))
            (loop $kxl
              (if (i32.eq (local.get $sw) (i32.const 1))
                (then (local.set $v (v128.load (local.get $p))))
                (else (if (i32.eq (local.get $sw) (i32.const 2))
                  (then (local.set $v (i8x16.shuffle ${even} (v128.load (local.get $p)) (v128.load offset=16 (local.get $p)))))
                  (else
                    (local.set $v (f32x4.splat (f32.load (local.get $p))))
                    (local.set $v (f32x4.replace_lane 1 (local.get $v) (f32.load (i32.add (local.get $p) (local.get $sw4)))))
                    (local.set $v (f32x4.replace_lane 2 (local.get $v) (f32.load (i32.add (local.get $p) (i32.shl (local.get $sw4) (i32.const 1))))))
                    (local.set $v (f32x4.replace_lane 3 (local.get $v) (f32.load (i32.add (local.get $p) (i32.mul (local.get $sw4) (i32.const 3))))))))))
              (local.set $acc (select (result v128) (f32x4.pmax (local.get $acc) (local.get $v)) (f32x4.add (local.get $acc) (local.get $v)) (local.get $isMax)))
              (local.set $p (i32.add (local.get $p) (i32.const 4)))
              (br_if $kxl (i32.lt_u (local.tee $kx (i32.add (local.get $kx) (i32.const 1))) (local.get $kw))))
            (br_if $kyl (i32.lt_u (local.tee $ky (i32.add (local.get $ky) (i32.const 1))) (local.get $kh))))
          (if (i32.eqz (local.get $isMax)) (then
            ;; divisor per lane: dh * (window columns clipped to W + pw)
            (local.set $t (i32.const 0))
            (local.set $cnt (v128.const i32x4 1 1 1 1))
            (loop $tl
              (local.set $ws (i32.sub (i32.mul (i32.add (local.get $ox) (local.get $t)) (local.get $sw)) (local.get $pw)))
              (local.set $left (i32.sub
                (select (i32.add (local.get $ws) (local.get $kw)) (i32.add (local.get $W) (local.get $pw))
                  (i32.lt_s (i32.add (local.get $ws) (local.get $kw)) (i32.add (local.get $W) (local.get $pw))))
                (local.get $ws)))
              (local.set $cnt (select (result v128)
                (f32x4.replace_lane 0 (local.get $cnt) (f32.convert_i32_s (i32.mul (local.get $dh) (local.get $left))))
                (select (result v128)
                  (f32x4.replace_lane 1 (local.get $cnt) (f32.convert_i32_s (i32.mul (local.get $dh) (local.get $left))))
                  (select (result v128)
                    (f32x4.replace_lane 2 (local.get $cnt) (f32.convert_i32_s (i32.mul (local.get $dh) (local.get $left))))
                    (f32x4.replace_lane 3 (local.get $cnt) (f32.convert_i32_s (i32.mul (local.get $dh) (local.get $left))))
                    (i32.eq (local.get $t) (i32.const 2)))
                  (i32.eq (local.get $t) (i32.const 1)))
                (i32.eqz (local.get $t))))
              (br_if $tl (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const 4))))
            (local.set $acc (f32x4.div (local.get $acc) (local.get $cnt)))))
          ;; store the lanes inside the row
          (if (i32.le_u (i32.add (local.get $ox) (i32.const 4)) (local.get $OW))
            (then (v128.store (local.get $o) (local.get $acc)))
            (else
              (f32.store (local.get $o) (f32x4.extract_lane 0 (local.get $acc)))
              (if (i32.gt_u (local.get $OW) (i32.add (local.get $ox) (i32.const 1))) (then (f32.store offset=4 (local.get $o) (f32x4.extract_lane 1 (local.get $acc)))))
              (if (i32.gt_u (local.get $OW) (i32.add (local.get $ox) (i32.const 2))) (then (f32.store offset=8 (local.get $o) (f32x4.extract_lane 2 (local.get $acc)))))))
          (local.set $o (i32.add (local.get $o) (i32.shl (select (i32.const 4) (i32.sub (local.get $OW) (local.get $ox))
            (i32.le_u (i32.add (local.get $ox) (i32.const 4)) (local.get $OW))) (i32.const 2))))
          (local.set $ox (i32.add (local.get $ox) (i32.const 4)))
          (br $xl)))
        (local.set $oy (i32.add (local.get $oy) (i32.const 1)))
        (br $yl)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;
}

/**
 * lrn_across(x, y, C, HW, size, aos, k, betaMode, c0, c1): channels c0..c1 of one image;
 * aos = alpha / size; betaMode 0: beta 0.75, 1: beta 0.5, 2: beta 1.
 */
export function lrnAcross(): string {
  const powV = (s: string) => `(select (result v128)
        (f32x4.div (v128.const f32x4 1 1 1 1) (f32x4.sqrt (f32x4.mul ${s} (f32x4.sqrt ${s}))))
        (select (result v128) (f32x4.div (v128.const f32x4 1 1 1 1) (f32x4.sqrt ${s})) (f32x4.div (v128.const f32x4 1 1 1 1) ${s})
          (i32.eq (local.get $betaMode) (i32.const 1)))
        (i32.eqz (local.get $betaMode)))`;
  const powS = (s: string) => `(select
        (f32.div (f32.const 1) (f32.sqrt (f32.mul ${s} (f32.sqrt ${s}))))
        (select (f32.div (f32.const 1) (f32.sqrt ${s})) (f32.div (f32.const 1) ${s}) (i32.eq (local.get $betaMode) (i32.const 1)))
        (i32.eqz (local.get $betaMode)))`;
  return `
  (func $lrn_across (export "lrn_across")
    (param $x i32) (param $y i32) (param $C i32) (param $HW i32) (param $size i32) (param $aos f32) (param $k f32)
    (param $betaMode i32) (param $c0 i32) (param $c1 i32)
    (local $c i32) (local $lo i32) (local $hi i32) (local $cc i32) (local $p i32) (local $plane4 i32) (local $vec i32)
    (local $sum v128) (local $v v128) (local $s f32) (local $e f32) (local $pre i32) (local $xp i32)
    (local.set $pre (i32.shr_u (i32.sub (local.get $size) (i32.const 1)) (i32.const 1)))
    (local.set $plane4 (i32.shl (local.get $HW) (i32.const 2)))
    (local.set $vec (i32.and (local.get $HW) (i32.const -4)))
    (local.set $c (local.get $c0))
    (block $cd (loop $cl
      (br_if $cd (i32.ge_u (local.get $c) (local.get $c1)))
      (local.set $lo (select (i32.const 0) (i32.sub (local.get $c) (local.get $pre)) (i32.lt_s (i32.sub (local.get $c) (local.get $pre)) (i32.const 0))))
      (local.set $hi (select (local.get $C) (i32.add (i32.add (local.get $c) (local.get $pre)) (i32.const 1))
        (i32.gt_s (i32.add (i32.add (local.get $c) (local.get $pre)) (i32.const 1)) (local.get $C))))
      (local.set $p (i32.const 0))
      (block $pd (loop $pl
        (br_if $pd (i32.ge_u (local.get $p) (local.get $vec)))
        (local.set $sum (v128.const i32x4 0 0 0 0))
        (local.set $xp (i32.add (local.get $x) (i32.add (i32.mul (local.get $lo) (local.get $plane4)) (i32.shl (local.get $p) (i32.const 2)))))
        (local.set $cc (local.get $lo))
        (loop $ccl
          (local.set $v (v128.load (local.get $xp)))
          (local.set $sum (f32x4.add (local.get $sum) (f32x4.mul (local.get $v) (local.get $v))))
          (local.set $xp (i32.add (local.get $xp) (local.get $plane4)))
          (br_if $ccl (i32.lt_u (local.tee $cc (i32.add (local.get $cc) (i32.const 1))) (local.get $hi))))
        (local.set $sum (f32x4.add (f32x4.splat (local.get $k)) (f32x4.mul (f32x4.splat (local.get $aos)) (local.get $sum))))
        (local.set $xp (i32.add (i32.mul (local.get $c) (local.get $plane4)) (i32.shl (local.get $p) (i32.const 2))))
        (v128.store (i32.add (local.get $y) (local.get $xp))
          (f32x4.mul (v128.load (i32.add (local.get $x) (local.get $xp))) ${powV('(local.get $sum)')}))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $pl)))
      (block $td (loop $tl
        (br_if $td (i32.ge_u (local.get $p) (local.get $HW)))
        (local.set $s (f32.const 0))
        (local.set $cc (local.get $lo))
        (loop $ccl2
          (local.set $e (f32.load (i32.add (local.get $x) (i32.add (i32.mul (local.get $cc) (local.get $plane4)) (i32.shl (local.get $p) (i32.const 2))))))
          (local.set $s (f32.add (local.get $s) (f32.mul (local.get $e) (local.get $e))))
          (br_if $ccl2 (i32.lt_u (local.tee $cc (i32.add (local.get $cc) (i32.const 1))) (local.get $hi))))
        (local.set $s (f32.add (local.get $k) (f32.mul (local.get $aos) (local.get $s))))
        (local.set $xp (i32.add (i32.mul (local.get $c) (local.get $plane4)) (i32.shl (local.get $p) (i32.const 2))))
        (f32.store (i32.add (local.get $y) (local.get $xp)) (f32.mul (f32.load (i32.add (local.get $x) (local.get $xp))) ${powS('(local.get $s)')}))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tl)))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (br $cl))))`;
}

/**
 * depthwise(src, w, bias, dst, Hp, Wp, OH, OW, kh, kw, sh, sw, dh, dw, relu, outC, coutG, inC, p0, p1):
 * convolution with one input channel per group, output planes p0..p1 (plane p = n * outC + oc
 * reads padded input plane n * inC + oc / coutG with filter oc), four outputs a vector, as
 * pool_planes reads its windows; bias 0 = none; ReLU (slope 0) when relu != 0.
 */
export function depthwise(): string {
  const even = '0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27';
  return `
  (func $depthwise (export "depthwise")
    (param $src i32) (param $w i32) (param $bias i32) (param $dst i32) (param $Hp i32) (param $Wp i32) (param $OH i32) (param $OW i32)
    (param $kh i32) (param $kw i32) (param $sh i32) (param $sw i32) (param $dh i32) (param $dw i32) (param $relu i32)
    (param $outC i32) (param $coutG i32) (param $inC i32) (param $p0 i32) (param $p1 i32)
    (local $pl i32) (local $n i32) (local $oc i32) (local $plane i32) (local $wp i32) (local $b v128) (local $o i32)
    (local $oy i32) (local $ox i32) (local $ky i32) (local $kx i32) (local $row i32) (local $p i32) (local $acc v128) (local $v v128)
    (local $Wp4 i32) (local $sw4 i32) (local $dw4 i32) (local $wk i32)
    (local.set $Wp4 (i32.shl (local.get $Wp) (i32.const 2)))
    (local.set $sw4 (i32.shl (local.get $sw) (i32.const 2)))
    (local.set $dw4 (i32.shl (local.get $dw) (i32.const 2)))
    (local.set $pl (local.get $p0))
    (block $pd (loop $plp
      (br_if $pd (i32.ge_u (local.get $pl) (local.get $p1)))
      (local.set $n (i32.div_u (local.get $pl) (local.get $outC)))
      (local.set $oc (i32.sub (local.get $pl) (i32.mul (local.get $n) (local.get $outC))))
      (local.set $plane (i32.add (local.get $src) (i32.mul (i32.mul
        (i32.add (i32.mul (local.get $n) (local.get $inC)) (i32.div_u (local.get $oc) (local.get $coutG))) (local.get $Hp)) (local.get $Wp4))))
      (local.set $wp (i32.add (local.get $w) (i32.shl (i32.mul (local.get $oc) (i32.mul (local.get $kh) (local.get $kw))) (i32.const 2))))
      (local.set $b (select (result v128) (v128.load32_splat (i32.add (local.get $bias) (i32.shl (local.get $oc) (i32.const 2))))
        (v128.const i32x4 0 0 0 0) (local.get $bias)))
      (local.set $o (i32.add (local.get $dst) (i32.shl (i32.mul (i32.mul (local.get $pl) (local.get $OH)) (local.get $OW)) (i32.const 2))))
      (local.set $oy (i32.const 0))
      (block $yd (loop $yl
        (br_if $yd (i32.ge_u (local.get $oy) (local.get $OH)))
        (local.set $row (i32.add (local.get $plane) (i32.mul (i32.mul (local.get $oy) (local.get $sh)) (local.get $Wp4))))
        (local.set $ox (i32.const 0))
        (block $xd (loop $xl
          (br_if $xd (i32.ge_u (local.get $ox) (local.get $OW)))
          (local.set $acc (local.get $b))
          (local.set $wk (local.get $wp))
          (local.set $ky (i32.const 0))
          (loop $kyl
            (local.set $p (i32.add (i32.add (local.get $row) (i32.mul (i32.mul (local.get $ky) (local.get $dh)) (local.get $Wp4)))
              (i32.mul (local.get $ox) (local.get $sw4))))
            (local.set $kx (i32.const 0))
            (loop $kxl
              (if (i32.eq (local.get $sw) (i32.const 1))
                (then (local.set $v (v128.load (local.get $p))))
                (else (if (i32.eq (local.get $sw) (i32.const 2))
                  (then (local.set $v (i8x16.shuffle ${even} (v128.load (local.get $p)) (v128.load offset=16 (local.get $p)))))
                  (else
                    (local.set $v (f32x4.splat (f32.load (local.get $p))))
                    (local.set $v (f32x4.replace_lane 1 (local.get $v) (f32.load (i32.add (local.get $p) (local.get $sw4)))))
                    (local.set $v (f32x4.replace_lane 2 (local.get $v) (f32.load (i32.add (local.get $p) (i32.shl (local.get $sw4) (i32.const 1))))))
                    (local.set $v (f32x4.replace_lane 3 (local.get $v) (f32.load (i32.add (local.get $p) (i32.mul (local.get $sw4) (i32.const 3))))))))))
              (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (v128.load32_splat (local.get $wk)) (local.get $v))))
              (local.set $wk (i32.add (local.get $wk) (i32.const 4)))
              (local.set $p (i32.add (local.get $p) (local.get $dw4)))
              (br_if $kxl (i32.lt_u (local.tee $kx (i32.add (local.get $kx) (i32.const 1))) (local.get $kw))))
            (br_if $kyl (i32.lt_u (local.tee $ky (i32.add (local.get $ky) (i32.const 1))) (local.get $kh))))
          (if (local.get $relu) (then (local.set $acc (f32x4.pmax (local.get $acc) (v128.const i32x4 0 0 0 0)))))
          (if (i32.le_u (i32.add (local.get $ox) (i32.const 4)) (local.get $OW))
            (then (v128.store (local.get $o) (local.get $acc)))
            (else
              (f32.store (local.get $o) (f32x4.extract_lane 0 (local.get $acc)))
              (if (i32.gt_u (local.get $OW) (i32.add (local.get $ox) (i32.const 1))) (then (f32.store offset=4 (local.get $o) (f32x4.extract_lane 1 (local.get $acc)))))
              (if (i32.gt_u (local.get $OW) (i32.add (local.get $ox) (i32.const 2))) (then (f32.store offset=8 (local.get $o) (f32x4.extract_lane 2 (local.get $acc)))))))
          (local.set $o (i32.add (local.get $o) (i32.shl (select (i32.const 4) (i32.sub (local.get $OW) (local.get $ox))
            (i32.le_u (i32.add (local.get $ox) (i32.const 4)) (local.get $OW))) (i32.const 2))))
          (local.set $ox (i32.add (local.get $ox) (i32.const 4)))
          (br $xl)))
        (local.set $oy (i32.add (local.get $oy) (i32.const 1)))
        (br $yl)))
      (local.set $pl (i32.add (local.get $pl) (i32.const 1)))
      (br $plp))))`;
}

/**
 * WebAssembly text of the elementwise layers a Caffe forward pass runs between the heavy ones
 * (BatchNorm and Scale as a per-channel affine map, ReLU with Caffe's negative_slope, Eltwise),
 * four floats per f32x4; in place (y = x) is allowed. Plain TypeScript loops over the same data
 * cost 1.5 to 7 ns a value (the ReLU branch mispredicts on random signs); these cost a fraction.
 */

/** Leaky ReLU of a vector: max(v, 0) + slope * min(v, 0), which is Caffe's formula and keeps NaN. */
function reluV(v: string): string {
  return `(f32x4.add (f32x4.pmax ${v} (v128.const i32x4 0 0 0 0)) (f32x4.mul (local.get $slopeV) (f32x4.pmin ${v} (v128.const i32x4 0 0 0 0))))`;
}
function reluS(v: string): string {
  return `(f32.add (f32.max ${v} (f32.const 0)) (f32.mul (local.get $slope) (f32.min ${v} (f32.const 0))))`;
}

/**
 * affine(x, y, spatial, scale, shift, relu, slope, c0, c1): planes c0..c1 (plane p uses channel
 * p mod channels, given by the caller as scale/shift pointers already offset per plane run):
 * y = x * scale[p] + shift[p] (scale or shift 0 = none), then leaky ReLU when relu != 0.
 */
export function affine(): string {
  return `
  (func $affine (export "affine")
    (param $x i32) (param $y i32) (param $spatial i32) (param $channels i32) (param $scale i32) (param $shift i32)
    (param $relu i32) (param $slope f32) (param $p0 i32) (param $p1 i32)
    (local $p i32) (local $c i32) (local $i i32) (local $xs i32) (local $ys i32) (local $vec i32)
    (local $a f32) (local $b f32) (local $aV v128) (local $bV v128) (local $slopeV v128) (local $v v128) (local $s f32)
    (local.set $slopeV (f32x4.splat (local.get $slope)))
    (local.set $vec (i32.and (local.get $spatial) (i32.const -4)))
    (local.set $p (local.get $p0))
    (block $pd (loop $pl
      (br_if $pd (i32.ge_u (local.get $p) (local.get $p1)))
      (local.set $c (i32.rem_u (local.get $p) (local.get $channels)))
      (local.set $a (select (f32.load (i32.add (local.get $scale) (i32.shl (local.get $c) (i32.const 2)))) (f32.const 1) (local.get $scale)))
      (local.set $b (select (f32.load (i32.add (local.get $shift) (i32.shl (local.get $c) (i32.const 2)))) (f32.const 0) (local.get $shift)))
      (local.set $aV (f32x4.splat (local.get $a)))
      (local.set $bV (f32x4.splat (local.get $b)))
      (local.set $xs (i32.add (local.get $x) (i32.shl (i32.mul (local.get $p) (local.get $spatial)) (i32.const 2))))
      (local.set $ys (i32.add (local.get $y) (i32.shl (i32.mul (local.get $p) (local.get $spatial)) (i32.const 2))))
      (local.set $i (i32.const 0))
      (block $vd (loop $vl
        (br_if $vd (i32.ge_u (local.get $i) (local.get $vec)))
        (local.set $v (f32x4.add (f32x4.mul (v128.load (local.get $xs)) (local.get $aV)) (local.get $bV)))
        (if (local.get $relu) (then (local.set $v ${reluV('(local.get $v)')})))
        (v128.store (local.get $ys) (local.get $v))
        (local.set $xs (i32.add (local.get $xs) (i32.const 16)))
        (local.set $ys (i32.add (local.get $ys) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $vl)))
      (block $sd (loop $sl
        (br_if $sd (i32.ge_u (local.get $i) (local.get $spatial)))
        (local.set $s (f32.add (f32.mul (f32.load (local.get $xs)) (local.get $a)) (local.get $b)))
        (if (local.get $relu) (then (local.set $s ${reluS('(local.get $s)')})))
        (f32.store (local.get $ys) (local.get $s))
        (local.set $xs (i32.add (local.get $xs) (i32.const 4)))
        (local.set $ys (i32.add (local.get $ys) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $sl)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $pl))))`;
}

/**
 * eltwise(a, b, y, op, ca, cb, relu, slope, i0, i1): elements i0..i1 (i0 a multiple of 4):
 * op 0: ca * a + cb * b, 1: a * b, 2: max(a, b); then leaky ReLU when relu != 0.
 */
export function eltwise(): string {
  const opV = `(select (result v128)
          (f32x4.add (f32x4.mul (local.get $caV) (v128.load (local.get $ap))) (f32x4.mul (local.get $cbV) (v128.load (local.get $bp))))
          (select (result v128) (f32x4.mul (v128.load (local.get $ap)) (v128.load (local.get $bp)))
            (f32x4.max (v128.load (local.get $ap)) (v128.load (local.get $bp))) (i32.eq (local.get $op) (i32.const 1)))
          (i32.eqz (local.get $op)))`;
  const opS = `(select
          (f32.add (f32.mul (local.get $ca) (f32.load (local.get $ap))) (f32.mul (local.get $cb) (f32.load (local.get $bp))))
          (select (f32.mul (f32.load (local.get $ap)) (f32.load (local.get $bp)))
            (f32.max (f32.load (local.get $ap)) (f32.load (local.get $bp))) (i32.eq (local.get $op) (i32.const 1)))
          (i32.eqz (local.get $op)))`;
  return `
  (func $eltwise (export "eltwise")
    (param $a i32) (param $b i32) (param $y i32) (param $op i32) (param $ca f32) (param $cb f32)
    (param $relu i32) (param $slope f32) (param $i0 i32) (param $i1 i32)
    (local $i i32) (local $ap i32) (local $bp i32) (local $yp i32) (local $caV v128) (local $cbV v128) (local $slopeV v128)
    (local $v v128) (local $s f32) (local $vec i32)
    (local.set $caV (f32x4.splat (local.get $ca)))
    (local.set $cbV (f32x4.splat (local.get $cb)))
    (local.set $slopeV (f32x4.splat (local.get $slope)))
    (local.set $ap (i32.add (local.get $a) (i32.shl (local.get $i0) (i32.const 2))))
    (local.set $bp (i32.add (local.get $b) (i32.shl (local.get $i0) (i32.const 2))))
    (local.set $yp (i32.add (local.get $y) (i32.shl (local.get $i0) (i32.const 2))))
    (local.set $vec (i32.add (local.get $i0) (i32.and (i32.sub (local.get $i1) (local.get $i0)) (i32.const -4))))
    (local.set $i (local.get $i0))
    (block $vd (loop $vl
      (br_if $vd (i32.ge_u (local.get $i) (local.get $vec)))
      (local.set $v ${opV})
      (if (local.get $relu) (then (local.set $v ${reluV('(local.get $v)')})))
      (v128.store (local.get $yp) (local.get $v))
      (local.set $ap (i32.add (local.get $ap) (i32.const 16)))
      (local.set $bp (i32.add (local.get $bp) (i32.const 16)))
      (local.set $yp (i32.add (local.get $yp) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $vl)))
    (block $sd (loop $sl
      (br_if $sd (i32.ge_u (local.get $i) (local.get $i1)))
      (local.set $s ${opS})
      (if (local.get $relu) (then (local.set $s ${reluS('(local.get $s)')})))
      (f32.store (local.get $yp) (local.get $s))
      (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
      (local.set $bp (i32.add (local.get $bp) (i32.const 4)))
      (local.set $yp (i32.add (local.get $yp) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $sl))))`;
}

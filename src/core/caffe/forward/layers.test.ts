import { describe, expect, it } from 'vitest';
import { netFromText } from '../testing';
import { runForward } from './run';

/** Runs `layer { name: "L" <body> }` on inputs data0..dataN (one input layer) and returns the tops. */
async function run(body: string, inputs: [number[], number[]][], weights: [number[], number[]][] = [], tops = ['out']): Promise<{ shape: number[]; values: number[] }[]> {
  const names = inputs.map((_, i) => `in${i}`);
  const header = inputs.map(([shape], i) => `input: "${names[i]}" input_shape { ${shape.map((d) => `dim: ${d}`).join(' ')} }`).join('\n');
  const text = `${header}\nlayer { name: "L" ${names.map((n) => `bottom: "${n}"`).join(' ')} ${tops.map((t) => `top: "${t}"`).join(' ')} ${body} }`;
  const net = netFromText(text, { L: weights });
  expect(net.diagnostics).toEqual([]);
  const r = await runForward(net, { inputs: Object.fromEntries(inputs.map(([, v], i) => [names[i]!, Float32Array.from(v)])) });
  return tops.map((t) => {
    const v = r.values.get(t)!;
    return { shape: v.shape, values: Array.from(v.data) };
  });
}

const close = (a: number[], b: number[], tol = 1e-6) => {
  expect(a.length).toBe(b.length);
  const bad = a.map((x, i) => [i, x, b[i]!]).filter(([, x, y]) => !(Math.abs(x! - y!) <= tol * Math.max(1, Math.abs(y!))));
  expect(bad).toEqual([]);
};

describe('forward pass per layer type (hand-computed values)', () => {
  it('Convolution: 3x3 input, 2x2 kernel, bias', async () => {
    // input 1 2 3 / 4 5 6 / 7 8 9, kernel [[1,0],[0,-1]], bias 10: x[i][j] - x[i+1][j+1] + 10 = -4 + 10 everywhere
    const [o] = await run('type: "Convolution" convolution_param { num_output: 1 kernel_size: 2 }', [[[1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]]], [[[1, 1, 2, 2], [1, 0, 0, -1]], [[1], [10]]]);
    expect(o).toEqual({ shape: [1, 1, 2, 2], values: [6, 6, 6, 6] });
  });

  it('Convolution with padding and stride 2 (zero padding)', async () => {
    // 3x3 ones, 3x3 ones kernel, pad 1, stride 2 -> corners of the padded sums: 4 6 / 6 9? outputs at (0,0),(0,2),(2,0),(2,2) centres: each sees a 2x2 corner = 4
    const [o] = await run('type: "Convolution" convolution_param { num_output: 1 kernel_size: 3 pad: 1 stride: 2 bias_term: false }', [[[1, 1, 3, 3], new Array(9).fill(1)]], [[[1, 1, 3, 3], new Array(9).fill(1)]]);
    expect(o).toEqual({ shape: [1, 1, 2, 2], values: [4, 4, 4, 4] });
  });

  it('Convolution with dilation 2 reads every other pixel', async () => {
    // 5x5 input x = row*5 + col, kernel 2x2 ones dilated by 2: x[r][c] + x[r][c+2] + x[r+2][c] + x[r+2][c+2] = 4x[r][c] + 24
    const x = Array.from({ length: 25 }, (_, i) => i);
    const [o] = await run('type: "Convolution" convolution_param { num_output: 1 kernel_size: 2 dilation: 2 bias_term: false }', [[[1, 1, 5, 5], x]], [[[1, 1, 2, 2], [1, 1, 1, 1]]]);
    expect(o!.shape).toEqual([1, 1, 3, 3]);
    expect(o!.values).toEqual([0, 1, 2, 5, 6, 7, 10, 11, 12].map((v) => 4 * v + 24));
  });

  it('grouped Convolution keeps groups apart', async () => {
    // 2 input channels (1x1 images 3 and 5), group 2, 1x1 kernels weights 2 and 10 -> 6 and 50
    const [o] = await run('type: "Convolution" convolution_param { num_output: 2 kernel_size: 1 group: 2 bias_term: false }', [[[1, 2, 1, 1], [3, 5]]], [[[2, 1, 1, 1], [2, 10]]]);
    expect(o!.values).toEqual([6, 50]);
    // without groups each output sums both channels: weights [[1,1],[1,-1]] -> 8, -2
    const [p] = await run('type: "Convolution" convolution_param { num_output: 2 kernel_size: 1 bias_term: false }', [[[1, 2, 1, 1], [3, 5]]], [[[2, 2, 1, 1], [1, 1, 1, -1]]]);
    expect(p!.values).toEqual([8, -2]);
  });

  it('Deconvolution scatters each input through the kernel (stride 2), grouped, with bias', async () => {
    // input 2x2 [1 2; 3 4], kernel 2x2 ones, stride 2 -> each input becomes a 2x2 block, bias 0.5
    const [o] = await run('type: "Deconvolution" convolution_param { num_output: 1 kernel_size: 2 stride: 2 }', [[[1, 1, 2, 2], [1, 2, 3, 4]]], [[[1, 1, 2, 2], [1, 1, 1, 1]], [[1], [0.5]]]);
    expect(o).toEqual({ shape: [1, 1, 4, 4], values: [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4].map((v) => v + 0.5) });
    // stride 1, kernel [1 2], overlapping sums: input [1 2 3] (1x3) -> [1, 2+2, 3+4, 6]
    const [p] = await run('type: "Deconvolution" convolution_param { num_output: 1 kernel_h: 1 kernel_w: 2 bias_term: false }', [[[1, 1, 1, 3], [1, 2, 3]]], [[[1, 1, 1, 2], [1, 2]]]);
    expect(p!.values).toEqual([1, 4, 7, 6]);
    // group 2: channel 0 scaled by 2 into output 0, channel 1 by 3 into output 1
    const [q] = await run('type: "Deconvolution" convolution_param { num_output: 2 kernel_size: 1 group: 2 bias_term: false }', [[[1, 2, 1, 1], [5, 7]]], [[[2, 1, 1, 1], [2, 3]]]);
    expect(q!.values).toEqual([10, 21]);
  });

  it('InnerProduct: weights [N, K], bias, axis and transpose', async () => {
    const [o] = await run('type: "InnerProduct" inner_product_param { num_output: 2 }', [[[1, 3], [1, 2, 3]]], [[[2, 3], [1, 0, -1, 2, 2, 2]], [[2], [0.5, -1]]]);
    expect(o!.values).toEqual([1 - 3 + 0.5, 12 - 1]);
    const [t] = await run('type: "InnerProduct" inner_product_param { num_output: 2 transpose: true bias_term: false }', [[[1, 3], [1, 2, 3]]], [[[3, 2], [1, 2, 0, 2, -1, 2]]]);
    expect(t!.values).toEqual([1 - 3, 2 + 4 + 6]);
    // axis 2: each of the 2 rows of [1, 2, 2] maps separately
    const [a] = await run('type: "InnerProduct" inner_product_param { num_output: 1 axis: 2 bias_term: false }', [[[1, 2, 2], [1, 2, 3, 4]]], [[[1, 2], [1, 10]]]);
    expect(a).toEqual({ shape: [1, 2, 1], values: [21, 43] });
  });

  it('Pooling MAX and AVE with Caffe padding and divisor rules', async () => {
    const x = Array.from({ length: 16 }, (_, i) => i + 1); // 4x4, 1..16
    const [m] = await run('type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }', [[[1, 1, 4, 4], x]]);
    expect(m!.values).toEqual([6, 8, 14, 16]);
    // AVE 3x3 stride 2 pad 1 on 4x4: out 2x2 (ceil((4+2-3)/2)+1 = 3, window 2 starts at 4-1=3 < 5: kept -> 3x3? check:
    // (3-1)*2 = 4 >= 4 + 1? no, so 3x3 output)
    const [a] = await run('type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }', [[[1, 1, 4, 4], x]]);
    expect(a!.shape).toEqual([1, 1, 3, 3]);
    // window (0,0) covers rows -1..1, cols -1..1: sum of x[0..1][0..1] = 1+2+5+6 = 14, divided by the full 9 (padding counts)
    // window (2,2) covers rows 3..5 clipped to h + pad = 5 -> rows 3..4 (2 rows), same for cols: divisor 4, sum = x[3][3] = 16
    expect(a!.values[0]).toBeCloseTo(14 / 9, 6);
    expect(a!.values[8]).toBeCloseTo(16 / 4, 6);
    // window (0,1): rows -1..1, cols 1..3: sum rows 0..1 cols 1..3 = 2+3+4+6+7+8 = 30 / 9
    expect(a!.values[1]).toBeCloseTo(30 / 9, 6);
    // MAX with padding ignores the padding (-FLT_MAX start)
    const [mp] = await run('type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 pad: 1 }', [[[1, 1, 2, 2], [-5, -6, -7, -8]]]);
    expect(mp).toEqual({ shape: [1, 1, 2, 2], values: [-5, -6, -7, -8] });
    const withMask = await run('type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }', [[[1, 1, 4, 4], x]], [], ['out', 'mask']);
    expect(withMask[1]).toEqual({ shape: [1, 1, 2, 2], values: [5, 7, 13, 15] });
    const [g] = await run('type: "Pooling" pooling_param { pool: AVE global_pooling: true }', [[[1, 2, 2, 2], [1, 2, 3, 4, 10, 20, 30, 40]]]);
    expect(g).toEqual({ shape: [1, 2, 1, 1], values: [2.5, 25] });
  });

  it('ReLU with negative_slope, Sigmoid, TanH, AbsVal, ELU, Power, Threshold, Clip', async () => {
    const x = [-2, -0.5, 0, 1.5];
    expect((await run('type: "ReLU"', [[[4], x]]))[0]!.values).toEqual([0, 0, 0, 1.5]);
    expect((await run('type: "ReLU" relu_param { negative_slope: 0.5 }', [[[4], x]]))[0]!.values).toEqual([-1, -0.25, 0, 1.5]);
    close((await run('type: "Sigmoid"', [[[4], x]]))[0]!.values, x.map((v) => 1 / (1 + Math.exp(-v))));
    close((await run('type: "TanH"', [[[4], x]]))[0]!.values, x.map(Math.tanh));
    expect((await run('type: "AbsVal"', [[[4], x]]))[0]!.values).toEqual([2, 0.5, 0, 1.5]);
    close((await run('type: "ELU" elu_param { alpha: 2 }', [[[4], x]]))[0]!.values, [2 * (Math.exp(-2) - 1), 2 * (Math.exp(-0.5) - 1), 0, 1.5]);
    // (shift + scale x)^power = (1 + 2x)^2
    expect((await run('type: "Power" power_param { power: 2 scale: 2 shift: 1 }', [[[4], x]]))[0]!.values).toEqual([9, 0, 1, 16]);
    expect((await run('type: "Power" power_param { power: 2 scale: 0 shift: 3 }', [[[4], x]]))[0]!.values).toEqual([9, 9, 9, 9]);
    expect((await run('type: "Threshold" threshold_param { threshold: 0 }', [[[4], x]]))[0]!.values).toEqual([0, 0, 0, 1]);
    expect((await run('type: "Clip" clip_param { min: -1 max: 1 }', [[[4], x]]))[0]!.values).toEqual([-1, -0.5, 0, 1]);
  });

  it('PReLU per channel and channel-shared', async () => {
    const x = [-1, 2, -4, 8]; // shape [1, 2, 2]: channel 0 = -1, 2; channel 1 = -4, 8
    expect((await run('type: "PReLU"', [[[1, 2, 2], x]], [[[2], [0.5, 0.25]]]))[0]!.values).toEqual([-0.5, 2, -1, 8]);
    expect((await run('type: "PReLU" prelu_param { channel_shared: true }', [[[1, 2, 2], x]], [[[], [0.1]]]))[0]!.values).toEqual([-0.1, 2, -0.4, 8].map(Math.fround));
  });

  it('BatchNorm with global stats divides by the moving-average factor; Scale and Bias broadcast per channel', async () => {
    // mean blob [2, 4] / factor 2 = [1, 2]; variance [8, 0] / 2 = [4, 0]; eps 0 -> (x - 1) / 2 and (x - 2) / sqrt(1e-5 default)
    const [b] = await run('type: "BatchNorm" batch_norm_param { use_global_stats: true eps: 0 }', [[[1, 2, 2], [3, 5, 2, 2]]], [[[2], [2, 4]], [[2], [8, 0.5]], [[1], [2]]]);
    close(b!.values, [1, 2, 0, 0]);
    // computed statistics when use_global_stats is false: channel [1, 3] -> mean 2, var 1 -> [-1, 1] (eps 1e-5)
    const [c] = await run('type: "BatchNorm" batch_norm_param { use_global_stats: false }', [[[1, 1, 2], [1, 3]]], [[[1], [0]], [[1], [0]], [[1], [1]]]);
    close(c!.values, [-1 / Math.sqrt(1 + 1e-5), 1 / Math.sqrt(1 + 1e-5)]);
    const [s] = await run('type: "Scale" scale_param { bias_term: true }', [[[1, 2, 2], [1, 2, 3, 4]]], [[[2], [10, -1]], [[2], [0.5, 1]]]);
    expect(s!.values).toEqual([10.5, 20.5, -2, -3]);
    const [s2] = await run('type: "Scale"', [[[1, 2, 2], [1, 2, 3, 4]], [[2], [3, 4]]]);
    expect(s2!.values).toEqual([3, 6, 12, 16]);
    const [bi] = await run('type: "Bias"', [[[1, 2, 2], [1, 2, 3, 4]]], [[[2], [100, 200]]]);
    expect(bi!.values).toEqual([101, 102, 203, 204]);
  });

  it('Eltwise SUM with coefficients, PROD, MAX', async () => {
    const a: [number[], number[]] = [[3], [1, -2, 3]];
    const b: [number[], number[]] = [[3], [4, 5, -6]];
    expect((await run('type: "Eltwise"', [a, b]))[0]!.values).toEqual([5, 3, -3]);
    expect((await run('type: "Eltwise" eltwise_param { operation: SUM coeff: 1 coeff: -0.5 }', [a, b]))[0]!.values).toEqual([-1, -4.5, 6]);
    expect((await run('type: "Eltwise" eltwise_param { operation: PROD }', [a, b]))[0]!.values).toEqual([4, -10, -18]);
    expect((await run('type: "Eltwise" eltwise_param { operation: MAX }', [a, b, [[3], [9, 0, 0]]]))[0]!.values).toEqual([9, 5, 3]);
  });

  it('Concat, Slice, Split, Flatten, Reshape, Dropout (a copy at TEST), Crop', async () => {
    const [c] = await run('type: "Concat"', [[[1, 1, 2], [1, 2]], [[1, 2, 2], [3, 4, 5, 6]]]);
    expect(c).toEqual({ shape: [1, 3, 2], values: [1, 2, 3, 4, 5, 6] });
    const [c2] = await run('type: "Concat" concat_param { axis: 2 }', [[[1, 2, 1], [1, 2]], [[1, 2, 2], [3, 4, 5, 6]]]);
    expect(c2!.values).toEqual([1, 3, 4, 2, 5, 6]);
    const sl = await run('type: "Slice" slice_param { axis: 1 slice_point: 1 }', [[[2, 3], [1, 2, 3, 4, 5, 6]]], [], ['a', 'b']);
    expect(sl).toEqual([{ shape: [2, 1], values: [1, 4] }, { shape: [2, 2], values: [2, 3, 5, 6] }]);
    const sp = await run('type: "Split"', [[[2], [7, 8]]], [], ['a', 'b']);
    expect(sp.map((t) => t.values)).toEqual([[7, 8], [7, 8]]);
    expect(await run('type: "Flatten"', [[[1, 2, 2], [1, 2, 3, 4]]])).toEqual([{ shape: [1, 4], values: [1, 2, 3, 4] }]);
    expect(await run('type: "Reshape" reshape_param { shape { dim: 0 dim: 2 dim: -1 } }', [[[1, 4], [1, 2, 3, 4]]])).toEqual([{ shape: [1, 2, 2], values: [1, 2, 3, 4] }]);
    expect(await run('type: "Dropout" dropout_param { dropout_ratio: 0.9 }', [[[3], [1, 2, 3]]])).toEqual([{ shape: [3], values: [1, 2, 3] }]);
    const [cr] = await run('type: "Crop" crop_param { axis: 2 offset: 1 }', [[[1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]], [[1, 1, 2, 2], [0, 0, 0, 0]]]);
    expect(cr).toEqual({ shape: [1, 1, 2, 2], values: [5, 6, 8, 9] });
  });

  it('Softmax over the channel axis and over a chosen axis', async () => {
    const [s] = await run('type: "Softmax"', [[[1, 3], [1, 2, 3]]]);
    const e = [1, 2, 3].map(Math.exp);
    close(s!.values, e.map((v) => v / (e[0]! + e[1]! + e[2]!)));
    // shape [1, 2, 2]: softmax over axis 1 pairs (x[0][j], x[1][j])
    const [t] = await run('type: "Softmax"', [[[1, 2, 2], [0, 0, Math.log(3), 0]]]);
    close(t!.values, [0.25, 0.5, 0.75, 0.5]);
  });

  it('LRN ACROSS_CHANNELS and WITHIN_CHANNEL', async () => {
    // 3 channels of 1x1: x = 1, 2, 3; size 3, alpha 3, beta 1, k 1: scale_c = 1 + 3/3 * sum of squares of neighbours
    const [a] = await run('type: "LRN" lrn_param { local_size: 3 alpha: 3 beta: 1 k: 1 }', [[[1, 3, 1, 1], [1, 2, 3]]]);
    close(a!.values, [1 / (1 + 1 + 4), 2 / (1 + 1 + 4 + 9), 3 / (1 + 4 + 9)]);
    // WITHIN_CHANNEL on a 1x2 image, size 3 (pad 1): for x0 the window cols -1..1 (rows -1..1) sums 1 + 4 over a divisor of 9
    // (padding counts: the window ends at w + pad = 3), value = x * (1 + alpha * avg)^-beta with alpha 9, beta 1
    const [w] = await run('type: "LRN" lrn_param { local_size: 3 alpha: 9 beta: 1 norm_region: WITHIN_CHANNEL }', [[[1, 1, 1, 2], [1, 2]]]);
    close(w!.values, [1 / (1 + 9 * (5 / 9)), 2 / (1 + 9 * (5 / 9))]);
  });

  it('ArgMax top-k with values', async () => {
    const [a] = await run('type: "ArgMax" argmax_param { top_k: 2 out_max_val: true }', [[[1, 4], [0.1, 0.7, 0.2, 0.7]]]);
    // ties go to the larger index first (std::greater on (value, index))
    expect(a).toEqual({ shape: [1, 2, 2], values: [3, 1, 0.7, 0.7].map(Math.fround) });
  });
});

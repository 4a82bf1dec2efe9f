/**
 * A small float32 forward pass over a Caffe deploy + weights (Convolution, Pooling, InnerProduct,
 * ReLU, LRN, Softmax, Input) on core/kernels' reference loops, for the DLA tests: the float result
 * each layer of a compiled loadable is compared with. Test-only (the product's Caffe forward
 * pass is core/caffe's); it covers exactly the layers of LeNet and cifar10_quick, and throws on
 * anything else.
 */
import { referenceKernels } from '../../../src/core/kernels/kernels';
import { convOutputSize } from '../../../src/core/kernels/params';
import { floats, num, str, strs, sub, subs, nums, type CaffeDeploy, type CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';

export interface FloatBlob {
  shape: [number, number, number, number];
  values: Float32Array;
}

/** Every layer's output (by layer name) for one input item of shape C x H x W. */
export function floatForward(deploy: CaffeDeploy, weights: CaffeWeights, input: Float32Array): Map<string, FloatBlob> {
  const k = referenceKernels();
  const blobs = new Map<string, FloatBlob>();
  const byLayer = new Map<string, FloatBlob>();
  const weightLayers = new Map([...subs(weights.net, 'layer'), ...subs(weights.net, 'layers')].map((l) => [str(l, 'name'), subs(l, 'blobs').map((b) => floats(b['data'])!)]));
  for (const layer of subs(deploy.net, 'layer')) {
    const name = str(layer, 'name');
    const type = str(layer, 'type');
    const bottom = strs(layer, 'bottom').map((b) => blobs.get(b)!);
    const top = strs(layer, 'top')[0]!;
    const x = bottom[0]!;
    const [, C, H, W] = x?.shape ?? [1, 0, 0, 0];
    let out: FloatBlob;
    const w = weightLayers.get(name) ?? [];
    if (type === 'Input') {
      const dims = nums(sub(layer, 'input_param') && subs(sub(layer, 'input_param'), 'shape')[0], 'dim');
      out = { shape: [1, dims[1]!, dims[2]!, dims[3]!], values: Float32Array.from(input) };
    } else if (type === 'Convolution') {
      const p = sub(layer, 'convolution_param');
      const K = num(p, 'num_output', 0);
      const ks = nums(p, 'kernel_size')[0] ?? num(p, 'kernel_h', 1);
      const stride = nums(p, 'stride')[0] ?? 1;
      const pad = nums(p, 'pad')[0] ?? 0;
      const OH = convOutputSize(H, ks, stride, pad, 1);
      const OW = convOutputSize(W, ks, stride, pad, 1);
      const y = new Float32Array(K * OH * OW);
      k.conv2d({ batch: 1, inChannels: C, inHeight: H, inWidth: W, outChannels: K, kernelH: ks, kernelW: ks, strideH: stride, strideW: stride, padH: pad, padW: pad, dilationH: 1, dilationW: 1, group: 1 }, x.values, w[0]!, w[1] ?? null, y);
      out = { shape: [1, K, OH, OW], values: y };
    } else if (type === 'Pooling') {
      const p = sub(layer, 'pooling_param');
      const ks = num(p, 'kernel_size', 1);
      const stride = num(p, 'stride', 1);
      const pad = num(p, 'pad', 0);
      const OH = Math.min(Math.ceil((H + 2 * pad - ks) / stride) + 1, pad > 0 ? Math.ceil((H + pad) / stride) : Infinity);
      const OW = Math.min(Math.ceil((W + 2 * pad - ks) / stride) + 1, pad > 0 ? Math.ceil((W + pad) / stride) : Infinity);
      const y = new Float32Array(C * OH * OW);
      const method = String(p?.['pool'] ?? 'MAX') === 'AVE' || p?.['pool'] === 1 ? 'ave' : 'max';
      k.pool2d({ method, batch: 1, channels: C, inHeight: H, inWidth: W, outHeight: OH, outWidth: OW, kernelH: ks, kernelW: ks, strideH: stride, strideW: stride, padH: pad, padW: pad }, x.values, y);
      out = { shape: [1, C, OH, OW], values: y };
    } else if (type === 'InnerProduct') {
      const n = num(sub(layer, 'inner_product_param'), 'num_output', 0);
      const y = new Float32Array(n);
      k.innerProduct({ batch: 1, inputSize: C * H * W, outputSize: n }, x.values, w[0]!, w[1] ?? null, y);
      out = { shape: [1, n, 1, 1], values: y };
    } else if (type === 'ReLU') {
      out = { shape: x.shape, values: x.values.map((v) => (v > 0 ? v : 0)) };
    } else if (type === 'LRN') {
      const p = sub(layer, 'lrn_param');
      const y = new Float32Array(x.values.length);
      k.lrn({ region: 'across', batch: 1, channels: C, height: H, width: W, size: num(p, 'local_size', 5), alpha: num(p, 'alpha', 1), beta: num(p, 'beta', 0.75), k: num(p, 'k', 1) }, x.values, y);
      out = { shape: x.shape, values: y };
    } else if (type === 'Softmax') {
      const max = x.values.reduce((a, b) => Math.max(a, b), -Infinity);
      const e = x.values.map((v) => Math.exp(v - max));
      const s = e.reduce((a, b) => a + b, 0);
      out = { shape: x.shape, values: e.map((v) => v / s) };
    } else {
      throw new RangeError(`floatForward: layer type ${type} (${name}) is not covered`);
    }
    blobs.set(top, out);
    byLayer.set(name, out);
  }
  return byLayer;
}

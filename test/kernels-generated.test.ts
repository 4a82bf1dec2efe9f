import { describe, expect, it } from 'vitest';
import { KERNELS_WASM_SHARED, KERNELS_WASM_UNSHARED } from '../src/core/kernels/generated/kernels-wasm';
import { decodeBase64, kernelModule } from '../src/core/kernels/wasm-module';
import { assembleKernelModules } from '../scripts/kernels-assemble';

describe('the committed kernel module', () => {
  it('is what scripts/gen-kernels.ts makes from wat/*.ts today (run it after changing the text)', async () => {
    const { shared, unshared } = await assembleKernelModules();
    expect(Array.from(decodeBase64(KERNELS_WASM_SHARED))).toEqual(Array.from(shared));
    expect(Array.from(decodeBase64(KERNELS_WASM_UNSHARED))).toEqual(Array.from(unshared));
  });

  it('compiles in this engine, both variants, and exports every kernel the runtime calls', () => {
    for (const shared of [true, false]) {
      const m = kernelModule(shared);
      expect(m).not.toBeNull();
      const names = WebAssembly.Module.exports(m!).map((e) => e.name).sort();
      expect(names).toEqual(['affine', 'depthwise', 'eltwise', 'gemm_chunk', 'im2col_pack', 'lrn_across', 'pack_a', 'pack_b', 'pad_fill', 'pad_planes', 'pool_planes']);
    }
  });

  it('decodes base64 as the standard alphabet does', () => {
    expect(Array.from(decodeBase64('AGFzbQ=='))).toEqual([0, 0x61, 0x73, 0x6d]);
    expect(Array.from(decodeBase64('/+8='))).toEqual([0xff, 0xef]);
    expect(() => decodeBase64('a*b')).toThrow(/bad base64/);
  });
});

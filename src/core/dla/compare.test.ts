/**
 * Comparing a layer that the compiler split into partial-height convolutions: its bands of rows
 * are stitched by where each op slot wrote them and the layer is compared once, whole.
 */
import { describe, expect, it } from 'vitest';
import { read } from '../loadable/read';
import { compileNvdla } from '../nvdla/compile';
import { readDeploy } from '../nvdla/network/caffe-files';
import { seededRandom } from '../random';
import { floatForward } from '../../../test/support/dla/float-reference';
import { synthetic } from '../../../test/support/nvdla/fixtures';
import { bindInput, bindableTensors } from './bindings';
import { bandsLabel, compareSlots } from './compare';
import { runLoadable } from './run';
import { slotLayersOf } from './slot-layers';

// conv2's input, 32 x 128 x 128 fp16 (1 MiB), does not fit nv_full's 512 KiB convolution buffer
const BANDED = `name: "banded"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 128 dim: 128 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
`;

describe('compareSlots: a layer split into bands of rows', () => {
  it('nv_full fp16: conv2 + relu2 in partial-height bands is compared whole, every band slot in its row', async () => {
    const deploy = readDeploy(BANDED, 'banded.prototxt');
    const weights = synthetic(deploy);
    const compile = compileNvdla(deploy, weights, { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math', informat: 'nchw' });
    expect(compile.bytes).toBeTruthy();
    const mapping = slotLayersOf(compile);
    const bandSlots = mapping.filter((m) => m.compareWith === 'relu2').map((m) => m.slot);
    // the compiler did split it (else this test proves nothing)
    expect(bandSlots.length).toBeGreaterThan(1);

    const l = read(compile.bytes!, 'banded.nvdla');
    const input = bindableTensors(l).find((t) => t.kind === 'input')!;
    const rnd = seededRandom(7);
    const x = Float32Array.from({ length: 3 * 128 * 128 }, () => rnd() * 2 - 1);
    const run = await runLoadable(l, { inputs: [bindInput(l, input, x, 3, null)] });
    // each band slot writes fewer rows than the layer has
    const heights = run.slots.filter((s) => bandSlots.includes(s.slot)).map((s) => s.output?.height);
    expect(heights.every((h) => h !== undefined && h < 128)).toBe(true);
    expect(heights.reduce((a, h) => a! + h!, 0)).toBe(128);

    const ref = floatForward(deploy, weights, x);
    const cmp = compareSlots({ run, mapping, reference: (n) => ref.get(n) });
    expect(cmp.rows.map((r) => r.layer)).toEqual(['relu1', 'relu2']);
    const relu2 = cmp.rows[1]!;
    expect([relu2.channel, relu2.height, relu2.width]).toEqual([32, 128, 128]);
    expect(relu2.bands?.slots).toEqual(bandSlots);
    expect(relu2.slot).toBe(bandSlots.at(-1));
    expect(relu2.metrics.cosine).toBeGreaterThan(0.999);
    // conv1's output (32 x 128 x 128, feature-format input) is split in bands as well
    expect(cmp.rows[0]!.bands?.slots).toEqual(mapping.filter((m) => m.compareWith === 'relu1').map((m) => m.slot));
    expect(cmp.rows[0]!.bands!.slots.length).toBeGreaterThan(1);
    expect(cmp.rows[0]!.metrics.cosine).toBeGreaterThan(0.999);
    // the row's values are the stitched surface: Caffe's blob up to fp16 rounding
    const want = ref.get('relu2')!.values;
    const far = Array.from(relu2.bands!.values).flatMap((v, i) => (Math.abs(v - want[i]!) > 1e-2 * (1 + Math.abs(want[i]!)) ? [i] : [])).slice(0, 5);
    expect(far).toEqual([]);

    // a band missing (the run without the last relu2 slot): the others are listed, not compared
    const partial = { ...run, slots: run.slots.filter((s) => s.slot !== bandSlots.at(-1)) };
    const cut = compareSlots({ run: partial, mapping, reference: (n) => ref.get(n) });
    expect(cut.rows.map((r) => r.layer)).toEqual(['relu1']);
    expect(cut.skipped.filter((s) => s.engine !== 'CONV').map((s) => s.slot)).toEqual(bandSlots.slice(0, -1));
    expect(cut.skipped.find((s) => s.slot === bandSlots[0])?.reason).toMatch(/band of \d+ rows of layer relu2 .* do not tile/);
    // only the CONV slots (accumulator streams) are left out
    expect(cmp.skipped.filter((s) => s.engine !== 'CONV')).toEqual([]);
  }, 60_000);

  it('names the band slots in short', () => {
    expect(bandsLabel([12, 13, 14, 15])).toBe('12-15 (4 bands)');
    expect(bandsLabel([5, 7, 9])).toBe('5, 7, 9 (3 bands)');
  });
});

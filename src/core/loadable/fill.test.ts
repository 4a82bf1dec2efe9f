/**
 * Bytes filled on demand (`FillBytes`, checked.ts): detect / read / decodeTasks / diffLoadables
 * over an image that holds only the bytes they asked for give exactly what they give over the
 * whole file. The fill here copies byte for byte (no rounding to pieces, unlike the command
 * line's 64 KiB), so a read that forgets to ask sees zeros and the results differ.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FormatError } from '../errors';
import { detect, read } from './read';
import { decodeTasks } from './tasks';
import { diffLoadables, type DiffOptions, type LoadableDiff } from './diff';
import { write } from './write';
import { flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';
import { scaledLoadable } from '../../../test/support/nvdla-big';

/** An image of `src` filled only where asked; how many bytes were asked for. */
function onDemand(src: Uint8Array): { image: Uint8Array; fill: (start: number, end: number) => void; filled: () => number } {
  const image = new Uint8Array(src.length);
  const asked = new Uint8Array(src.length);
  return {
    image,
    fill(start, end) {
      const s = Math.max(0, start);
      const e = Math.min(src.length, end);
      if (e > s) {
        image.set(src.subarray(s, e), s);
        asked.fill(1, s, e);
      }
    },
    filled: () => asked.reduce((n, x) => n + x, 0),
  };
}

type Outcome = { error: string } | LoadableDiff;

function inMemory(a: Uint8Array, b: Uint8Array): { detectA: boolean; detectB: boolean; diff: Outcome } {
  let diff: Outcome;
  try {
    diff = diffLoadables(read(a, 'a.nvdla'), read(b, 'b.nvdla'));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    diff = { error: e.message };
  }
  return { detectA: detect(a, 'a.nvdla'), detectB: detect(b, 'b.nvdla'), diff };
}

/** As the command line does it: filled on demand, blob data compared on the sources. */
function filled(a: Uint8Array, b: Uint8Array): { detectA: boolean; detectB: boolean; diff: Outcome; filledA: number; filledB: number } {
  const fa = onDemand(a);
  const fb = onDemand(b);
  const detectA = detect(fa.image, 'a.nvdla', fa.fill);
  const detectB = detect(fb.image, 'b.nvdla', fb.fill);
  let diff: Outcome;
  try {
    const la = read(fa.image, 'a.nvdla', fa.fill);
    const lb = read(fb.image, 'b.nvdla', fb.fill);
    const options: DiffOptions = {
      fillA: fa.fill,
      fillB: fb.fill,
      // answered from the sources, never through the images
      sameBytes: (x, y) => {
        const sx = a.subarray(x.byteOffset, x.byteOffset + x.length);
        const sy = b.subarray(y.byteOffset, y.byteOffset + y.length);
        return sx.length === sy.length && sx.every((v, i) => v === sy[i]);
      },
    };
    diff = diffLoadables(la, lb, decodeTasks(la, fa.fill), decodeTasks(lb, fb.fill), options);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    diff = { error: e.message };
  }
  return { detectA, detectB, diff, filledA: fa.filled(), filledB: fb.filled() };
}

const lenet = goldenBytes('lenet-b1-nv_full-int8-fast-math');
const sources = [lenet, goldenBytes('lenet-b1-nv_full-fp16-fast-math'), flatbufBytes('BDMA_L0_0_fbuf'), flatbufBytes('CDP_L0_0_fbuf'), flatbufBytes('NN_L0_0_fbuf')];

describe('loadables read with bytes filled on demand', () => {
  it('a golden against a one-field change: the same report, with the weights never filled', () => {
    const l = read(lenet, 'a.nvdla');
    const opList = l.blobs.find((x) => x.name === 'task-0-op_list')!;
    const data = opList.data.slice();
    data[61] = 2; // conv1 conv_stride_x
    const b = write({ ...l, blobs: l.blobs.map((x) => (x === opList ? { ...x, data } : x)) });
    const want = inMemory(lenet, b);
    const got = filled(lenet, b);
    expect({ detectA: got.detectA, detectB: got.detectB, diff: got.diff }).toEqual(want);
    expect(JSON.stringify(want.diff)).toContain('conv_stride_x');
    const weights = l.blobs.filter((x) => x.name.startsWith('tb-')).reduce((n, x) => n + x.data.length, 0);
    expect(got.filledA).toBeLessThanOrEqual(lenet.length - weights);
  });

  it('a 1.5 MB loadable with weight bytes changed across 256 KiB window edges and at the end', () => {
    const base = read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'lenet.nvdla');
    const big = scaledLoadable(base, 1.5 * 1024 * 1024);
    const a = write(big);
    const largest = big.blobs.filter((x) => x.name.startsWith('tb-')).sort((x, y) => y.data.length - x.data.length)[0]!;
    expect(largest.data.length).toBeGreaterThan(3 * 262144);
    const changed = largest.data.slice();
    // a run across the first window edge, one byte just after the second, the last byte
    for (const i of [262142, 262143, 262144, 262145, 524288, changed.length - 1]) changed[i] = changed[i]! ^ 0x5a;
    const b = write({ ...big, blobs: big.blobs.map((x) => (x === largest ? { ...x, data: changed } : x)) });
    const want = inMemory(a, b);
    const got = filled(a, b);
    expect({ detectA: got.detectA, detectB: got.detectB, diff: got.diff }).toEqual(want);
    const blobs = (want.diff as LoadableDiff).sections.find((s) => s.section === 'blobs')!;
    expect(blobs.differences.map((d) => d.path)).toEqual([
      `blobs["${largest.name}"].data[262142..262146]`,
      `blobs["${largest.name}"].data[524288..524289]`,
      `blobs["${largest.name}"].data[${changed.length - 1}..${changed.length}]`,
    ]);
    // only the three differing windows of the weights were brought in, on each side
    expect(got.filledB).toBeLessThan(a.length - largest.data.length + 3 * 262144);
  });

  it('property: mutated goldens and regression files against their originals give the same outcome', { timeout: 180_000 }, () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('u32' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffffffff }) }),
      fc.record({ kind: fc.constant('u16' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffff }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), value: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.nat({ max: sources.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean(), (which, ms, swap) => {
        const original = sources[which]!;
        let b = original.slice();
        for (const m of ms) {
          const at = m.at % b.length;
          if (m.kind === 'set') b[at] = m.value;
          else if (m.kind === 'u32' && at + 4 <= b.length) new DataView(b.buffer).setUint32(at, m.value, true);
          else if (m.kind === 'u16' && at + 2 <= b.length) new DataView(b.buffer).setUint16(at, m.value, true);
          else if (m.kind === 'cut') b = b.slice(0, Math.max(at, 8));
        }
        const [x, y] = swap ? [b, original] : [original, b];
        const got = filled(x, y);
        expect({ detectA: got.detectA, detectB: got.detectB, diff: got.diff }).toEqual(inMemory(x, y));
      }),
      { numRuns: 600 },
    );
  });
});

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../errors';
import { BlobValues, type ProtoMessage } from './proto';
import { readCaffemodel } from './read';
import { decodeBinary } from './wire';

const dir = 'test/fixtures/caffe/';
const bytesOf = (f: string) => new Uint8Array(readFileSync(dir + f));

function blobsOf(layer: ProtoMessage): { shape: number[]; count: number }[] {
  return ((layer.blobs ?? []) as ProtoMessage[]).map((b) => {
    const s = b.shape as ProtoMessage | undefined;
    return { shape: s ? (s.dim as number[]) : [b.num, b.channels, b.height, b.width].map(Number), count: (b.data as BlobValues).count };
  });
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
function ld(field: number, payload: number[]): number[] {
  return [...varint(field * 8 + 2), ...varint(payload.length), ...payload];
}
function f32(v: number): number[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, v, true);
  return [...b];
}

describe('caffemodel binary reader', () => {
  it('reads the four fixture weight files with the blob shapes and float counts of caffe.md 4.2', () => {
    const lenet = decodeBinary(bytesOf('lenet/lenet_iter_10000.caffemodel'), 'lenet').message;
    const byName = Object.fromEntries((lenet.layer as ProtoMessage[]).map((l) => [l.name, blobsOf(l)]));
    expect(byName.conv1).toEqual([{ shape: [20, 1, 5, 5], count: 500 }, { shape: [20], count: 20 }]);
    expect(byName.conv2).toEqual([{ shape: [50, 20, 5, 5], count: 25000 }, { shape: [50], count: 50 }]);
    expect(byName.ip1).toEqual([{ shape: [500, 800], count: 400000 }, { shape: [500], count: 500 }]);
    expect(byName.ip2).toEqual([{ shape: [10, 500], count: 5000 }, { shape: [10], count: 10 }]);
    const total = (m: ProtoMessage, f: string) => ((m[f] ?? []) as ProtoMessage[]).flatMap(blobsOf).reduce((a, b) => a + b.count, 0);
    expect(total(lenet, 'layer')).toBe(431080);
    const cifar = decodeBinary(bytesOf('cifar10-quick/cifar10_quick_iter_5000.caffemodel'), 'cifar').message;
    expect(cifar.layer).toBeUndefined();
    expect((cifar.layers as ProtoMessage[]).length).toBe(13);
    expect(total(cifar, 'layers')).toBe(145578);
    const ip1 = (cifar.layers as ProtoMessage[]).find((l) => l.name === 'ip1')!;
    expect(blobsOf(ip1)[0]).toEqual({ shape: [1, 1, 64, 1024], count: 65536 });
    expect(total(decodeBinary(bytesOf('mtcnn/det1.caffemodel'), 'det1').message, 'layer')).toBe(6632);
    expect(total(decodeBinary(bytesOf('mtcnn/det2.caffemodel'), 'det2').message, 'layer')).toBe(101468);
  });

  it('keeps blob values as views into the file (no copy to open)', () => {
    const bytes = bytesOf('lenet/lenet_iter_10000.caffemodel');
    const m = decodeBinary(bytes, 'lenet').message;
    const ip1 = (m.layer as ProtoMessage[]).find((l) => l.name === 'ip1')!;
    const data = ((ip1.blobs as ProtoMessage[])[0]!.data as BlobValues);
    const seg = data.segments[0] as Uint8Array;
    expect(seg.buffer).toBe(bytes.buffer);
    expect(seg.byteLength).toBe(400000 * 4);
    const dv = new DataView(bytes.buffer, bytes.byteOffset + data.offset, 8);
    expect(data.toFloat32()[1]).toBe(dv.getFloat32(4, true));
  });

  it('accepts blob data packed, unpacked, split over several records, and as doubles', () => {
    const vals = [1.5, -2.25, 3, 0.125];
    const packed = ld(5, vals.flatMap(f32));
    const unpacked = vals.flatMap((v) => [...varint((5 << 3) | 5), ...f32(v)]);
    const mixed = [...ld(5, [1.5, -2.25].flatMap(f32)), ...[3, 0.125].flatMap((v) => [...varint((5 << 3) | 5), ...f32(v)])];
    const dbl = ld(8, vals.flatMap((v) => { const b = new Uint8Array(8); new DataView(b.buffer).setFloat64(0, v, true); return [...b]; }));
    for (const body of [packed, unpacked, mixed, dbl]) {
      const file = new Uint8Array(ld(100, [...ld(1, [...new TextEncoder().encode('x')]), ...ld(7, body)]));
      const layer = (decodeBinary(file, 't').message.layer as ProtoMessage[])[0]!;
      const blob = (layer.blobs as ProtoMessage[])[0]!;
      const v = (blob.data ?? blob.double_data) as BlobValues;
      expect(Array.from(v.toFloat32())).toEqual(vals);
    }
  });

  it("reads ditcaffe's half_data (field 10: packed uint32 holding FP16 bits)", () => {
    const halves = [0x3c00, 0xc000, 0x3800]; // 1, -2, 0.5
    const body = ld(10, halves.flatMap((h) => varint(h)));
    const file = new Uint8Array(ld(100, ld(7, body)));
    const blob = ((decodeBinary(file, 'h').message.layer as ProtoMessage[])[0]!.blobs as ProtoMessage[])[0]!;
    const v = blob.half_data as BlobValues;
    expect(v.count).toBe(3);
    expect(Array.from(v.toFloat32())).toEqual([1, -2, 0.5]);
  });

  it('accepts repeated scalars packed and unpacked (BlobShape.dim, bottom)', () => {
    const shapePacked = ld(7, ld(1, [...varint(2), ...varint(300)]));
    const shapeUnpacked = ld(7, [...varint(8), ...varint(2), ...varint(8), ...varint(300)]);
    for (const s of [shapePacked, shapeUnpacked]) {
      const file = new Uint8Array(ld(100, ld(7, s)));
      const blob = ((decodeBinary(file, 't').message.layer as ProtoMessage[])[0]!.blobs as ProtoMessage[])[0]!;
      expect((blob.shape as ProtoMessage).dim).toEqual([2, 300]);
    }
  });

  it('gives typed errors with the byte offset for truncated and corrupt files', () => {
    const bytes = bytesOf('mtcnn/det1.caffemodel');
    const cut = bytes.subarray(0, 5000);
    let err: unknown;
    try {
      readCaffemodel(cut, 'det1.caffemodel');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FormatError);
    const info = (err as FormatError).info;
    expect(info.kind).toBe('truncated');
    expect(info.file).toBe('det1.caffemodel');
    expect(info.offset).toBeGreaterThanOrEqual(0);
    expect(info.offset).toBeLessThan(5000);
    expect(info.path).toMatch(/^layer\[\d+\]/);
    // wrong wire type on a known field: NetParameter.name (string) as a varint
    expect(() => decodeBinary(new Uint8Array([0x08, 0x01]), 'w')).toThrow(/byte 0: field 'name' \(string\) has wire type 0/);
    // a group (wire type 3) and field number 0
    expect(() => decodeBinary(new Uint8Array([0x1b]), 'g')).toThrow(FormatError);
    expect(() => decodeBinary(new Uint8Array([0x00]), 'z')).toThrow(/field number 0/);
    expect(() => readCaffemodel(new Uint8Array(0), 'e.caffemodel')).toThrow(/empty/);
  });

  it('mutated caffemodel bytes give a FormatError or a result, never another exception', () => {
    const base = bytesOf('mtcnn/det1.caffemodel');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.nat(255)), { minLength: 1, maxLength: 8 }), fc.nat(base.length), (edits, cut) => {
        const b = base.slice(0, Math.max(1, cut));
        for (const [i, v] of edits) if (i < b.length) b[i] = v;
        try {
          const r = readCaffemodel(b, 'm.caffemodel');
          expect(r.net.layer).toBeDefined();
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          expect(e.info.file).toBe('m.caffemodel');
        }
      }),
      { numRuns: 300 },
    );
  });
});

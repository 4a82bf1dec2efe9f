import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../errors';
import { BlobValues, isMessage, type ProtoMessage, type ProtoValue } from './proto';
import { readCaffemodel } from './read';
import { caffemodelSkeleton, fileOffset, packSkeleton, SKELETON_MIN_BYTES, unpackSkeleton, type RandomAccessFile } from './skeleton';
import { open } from './document';
import { decodeBinary } from './wire';

const dir = 'test/fixtures/caffe/';
const lenetWeights = new Uint8Array(readFileSync(dir + 'lenet/lenet_iter_10000.caffemodel'));

/** A file in memory read piece by piece, counting the bytes read. */
function memoryFile(bytes: Uint8Array, name = 'w.caffemodel'): RandomAccessFile & { bytesRead: number } {
  const f = {
    name,
    size: bytes.length,
    bytesRead: 0,
    async read(offset: number, length: number) {
      f.bytesRead += length;
      return bytes.slice(offset, offset + length);
    },
  };
  return f;
}

/** The decoded message with blob values replaced by their kind and count (what a skeleton keeps). */
function shape(v: ProtoValue | undefined): unknown {
  if (v instanceof BlobValues) return `${v.kind}x${v.count}`;
  if (Array.isArray(v)) return v.map((x) => shape(x as ProtoValue));
  if (isMessage(v)) return Object.fromEntries(Object.entries(v as ProtoMessage).map(([k, x]) => [k, shape(x)]));
  if (v instanceof Uint8Array) return Array.from(v);
  return v;
}

async function outcome(bytes: Uint8Array): Promise<{ ok: true; message: unknown } | { ok: false; kind: string }> {
  try {
    const s = await caffemodelSkeleton(memoryFile(bytes));
    return { ok: true, message: shape(decodeBinary(s.bytes, 'w.caffemodel', 'NetParameter', { skeleton: s }).message) };
  } catch (e) {
    if (e instanceof FormatError) return { ok: false, kind: e.info.kind };
    throw e;
  }
}

function fullOutcome(bytes: Uint8Array): { ok: true; message: unknown } | { ok: false; kind: string } {
  try {
    return { ok: true, message: shape(decodeBinary(bytes, 'w.caffemodel').message) };
  } catch (e) {
    if (e instanceof FormatError) return { ok: false, kind: e.info.kind };
    throw e;
  }
}

describe('caffemodel skeleton', () => {
  it('keeps the structure and every small field, leaves out the large value fields, reads a fraction of the file', async () => {
    const file = memoryFile(lenetWeights);
    const s = await caffemodelSkeleton(file);
    // ip1 (500 x 800 floats) and conv2 (50 x 20 x 5 x 5) are left out; the rest is copied
    expect(s.bytes.length).toBeLessThan(40_000);
    expect(file.bytesRead).toBeLessThan(200_000);
    const full = decodeBinary(lenetWeights, 'w.caffemodel');
    const skel = decodeBinary(s.bytes, 'w.caffemodel', 'NetParameter', { skeleton: s });
    expect(shape(skel.message)).toEqual(shape(full.message));
    // messages about layers name the file's byte offsets
    expect(skel.layerOffsets).toEqual(full.layerOffsets);
    const blobs = (name: string, m: ProtoMessage) => ((m.layer as ProtoMessage[]).find((l) => l.name === name)!.blobs as ProtoMessage[]).map((b) => b.data as BlobValues);
    const [ip1w] = blobs('ip1', skel.message);
    expect(ip1w!.absentBytes).toBe(500 * 800 * 4);
    expect(ip1w!.offset).toBe(blobs('ip1', full.message)[0]!.offset);
    expect(() => ip1w!.toFloat32()).toThrow(/were not read/);
    // small blobs are there, value for value
    expect(Array.from(blobs('conv1', skel.message)[0]!.toFloat32())).toEqual(Array.from(blobs('conv1', full.message)[0]!.toFloat32()));
    expect(500 * 800 * 4).toBeGreaterThan(SKELETON_MIN_BYTES);
  });

  it('packs into one byte array the document opens: the same graph, summary and inspect figures', async () => {
    const packed = packSkeleton(await caffemodelSkeleton(memoryFile(lenetWeights)));
    expect(unpackSkeleton(lenetWeights)).toBeNull();
    const prototxt = { name: 'lenet.prototxt', bytes: new Uint8Array(readFileSync(dir + 'lenet/lenet.prototxt')) };
    const fromSkeleton = open([prototxt, { name: 'w.caffemodel', bytes: packed, skeleton: true }]);
    const whole = open([prototxt, { name: 'w.caffemodel', bytes: lenetWeights }]);
    expect(fromSkeleton.summary).toEqual(whole.summary);
    expect(fromSkeleton.services.inspect!.json({})).toEqual(whole.services.inspect!.json({}));
    expect(fromSkeleton.services.graph!.graph('net')).toEqual(whole.services.graph!.graph('net'));
    // a caffemodel alone, its embedded net
    const alone = open([{ name: 'w.caffemodel', bytes: packed, skeleton: true }]);
    expect(alone.summary.graphs).toEqual(open([{ name: 'w.caffemodel', bytes: lenetWeights }]).summary.graphs);
    // the magic is honoured only when the worker says the bytes are a skeleton
    expect(() => readCaffemodel(packed, 'x.caffemodel')).toThrow(FormatError);
  });

  it('errors inside copied fields name the byte of the file, not of the skeleton', async () => {
    // the first field key inside layer 'conv1' (a small layer, copied whole) turned into a group
    // (wire type 3): the skeleton is made, and decoding it fails where the whole-file reader does
    const full = decodeBinary(lenetWeights, 'w.caffemodel');
    const layer = full.layerOffsets.layer[2]!; // conv1
    let p = layer + 2; // the key of field 100 takes two bytes
    while (lenetWeights[p]! & 0x80) p++; // the length varint
    const inner = p + 1;
    const bad = lenetWeights.slice();
    bad[inner] = (bad[inner]! & ~7) | 3;
    const expected = (() => {
      try {
        decodeBinary(bad, 'w.caffemodel');
      } catch (e) {
        return e as FormatError;
      }
      return null;
    })();
    expect(expected?.info).toMatchObject({ kind: 'corrupt', offset: inner });
    const s = await caffemodelSkeleton(memoryFile(bad));
    expect(() => decodeBinary(s.bytes, 'w.caffemodel', 'NetParameter', { skeleton: s })).toThrow(FormatError);
    try {
      decodeBinary(s.bytes, 'w.caffemodel', 'NetParameter', { skeleton: s });
    } catch (e) {
      expect((e as FormatError).info).toEqual(expected!.info);
    }
    // a truncated file is truncated for both
    const cut = lenetWeights.subarray(0, 900_000);
    expect(fullOutcome(cut)).toMatchObject({ ok: false, kind: 'truncated' });
    expect(await outcome(cut)).toMatchObject({ ok: false, kind: 'truncated' });
  });

  it('maps skeleton offsets to file offsets through the copied runs', () => {
    const s = { offsets: [[0, 0], [10, 100], [20, 500]] as [number, number][] };
    expect([0, 9, 10, 15, 20, 25].map((o) => fileOffset(s, o))).toEqual([0, 9, 100, 105, 500, 505]);
  });

  it('mutated caffemodels: the skeleton path accepts and refuses what the whole-file reader does, with the same structure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(lenetWeights.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), async (edits) => {
        const bytes = lenetWeights.slice();
        for (const [i, v] of edits) bytes[i] = v;
        const a = fullOutcome(bytes);
        const b = await outcome(bytes);
        expect(b.ok).toBe(a.ok);
        if (a.ok && b.ok) expect(b.message).toEqual(a.message);
      }),
      { numRuns: 60 },
    );
  });
});

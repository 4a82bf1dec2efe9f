import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { FormatError } from '../errors';
import { read } from './read';
import { write } from './write';
import { summarize, toGraph } from './graph';
import { tensorDetails } from './values';
import { sampleModel } from './testing';
import type { CircleModel } from './model';

const valid = write(sampleModel());

/**
 * Reads bytes and walks everything downstream (graphs, summary, tensor details): the result is
 * a model or a FormatError, never another exception (a hang fails the test through its timeout).
 */
function outcome(bytes: Uint8Array): 'model' | 'error' {
  let model: CircleModel;
  try {
    model = read(bytes, 'fuzz.circle');
  } catch (e) {
    if (!(e instanceof FormatError)) throw new Error(`non-FormatError thrown: ${(e as Error)?.stack ?? String(e)}`);
    expect(e.info.file).toBe('fuzz.circle');
    expect(e.message.startsWith('fuzz.circle: ')).toBe(true);
    return 'error';
  }
  summarize(model, 'fuzz.circle');
  model.subgraphs.forEach((sg, s) => {
    const g = toGraph(model, s);
    expect(g.stats.edges).toBe(g.edges.length);
    for (let t = 0; t < Math.min(sg.tensors.length, 50); t++) tensorDetails(model, s, t, bytes);
  });
  return 'model';
}

describe('bad input never escapes as a non-FormatError', () => {
  it('truncating a valid file at every byte gives a FormatError', { timeout: 60_000 }, () => {
    let errors = 0;
    for (let k = 0; k < valid.length; k++) {
      if (outcome(valid.slice(0, k)) === 'error') errors++;
    }
    // every strict prefix is missing data the model references
    expect(errors).toBe(valid.length);
  });

  it('flipping each byte gives a model or a FormatError', { timeout: 60_000 }, () => {
    const kinds = new Set<string>();
    for (let k = 0; k < valid.length; k++) {
      for (const x of [0xff, 0x80, 0x01]) {
        const b = valid.slice();
        b[k] = b[k]! ^ x;
        kinds.add(outcome(b));
      }
    }
    expect(kinds).toEqual(new Set(['model', 'error']));
  });

  it('huge values written over every aligned u32 give a model or a FormatError quickly', { timeout: 60_000 }, () => {
    for (let k = 0; k + 4 <= valid.length; k += 4) {
      for (const v of [0xffffffff, 0x7fffffff, 1_000_000, 0x10000]) {
        const b = valid.slice();
        new DataView(b.buffer).setUint32(k, v, true);
        outcome(b);
      }
    }
  });

  it('property: random bytes (with or without a circle header)', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.boolean(), (bytes, header) => {
        if (header && bytes.length >= 8) bytes.set([0x43, 0x49, 0x52, 0x30], 4);
        outcome(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: mutated valid files (byte writes, cuts, splices)', { timeout: 60_000 }, () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('u32' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffffffff }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), value: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (ms) => {
        let b = valid.slice();
        for (const m of ms) {
          const at = m.at % b.length;
          if (m.kind === 'set') b[at] = m.value;
          else if (m.kind === 'u32' && at + 4 <= b.length) new DataView(b.buffer).setUint32(at, m.value, true);
          else if (m.kind === 'cut') b = b.slice(0, Math.max(at, 8));
        }
        outcome(b);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a model with 10^6 tensors (the hostile size the issue names) to its summary', { timeout: 180_000 }, () => {
    const m = sampleModel();
    const sg = m.subgraphs[0]!;
    const base = sg.tensors[4]!;
    for (let i = 0; i < 1_000_000; i++) sg.tensors.push({ ...base, name: `t${i}` });
    const bytes = write(m);
    const back = read(bytes, 'many.circle');
    const s = summarize(back, 'many.circle');
    expect(back.subgraphs[0]!.tensors.length).toBe(1_000_007);
    expect(back.subgraphs[0]!.tensors[1_000_006]!.name).toBe('t999999');
    expect(s.graphs[0]!.stats.nodes).toBe(4);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkOpTable, decodeOpTable, decodeOpTableAscending, decodeSourceTable, encodeOpTable, encodeSourceTable } from './tables';

const hex = (s: string) => new Uint8Array(s.trim().split(/\s+/).map((x) => parseInt(x, 16)));
const le = (...xs: number[]) => {
  const out = new Uint8Array(xs.length * 4);
  const dv = new DataView(out.buffer);
  xs.forEach((x, i) => dv.setUint32(4 * i, x, true));
  return out;
};
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('seed byte examples', () => {
  const sourceBytes = hex('01 00 00 00 01 00 00 00 06 00 00 00 6e 6f 64 65 31 00');
  const opBytes = hex('01 00 00 00 05 00 00 00 02 00 00 00 01 00 00 00 02 00 00 00');

  it('source table: "name of origin 1 is node1"', () => {
    const d = decodeSourceTable(sourceBytes);
    expect(d.diagnostics).toEqual([]);
    expect(d.table).toEqual(new Map([[1, 'node1']]));
    expect(encodeSourceTable(d.table!)).toEqual(sourceBytes);
  });

  it('op table: "operation 5 comes from origins 1 and 2"', () => {
    const d = decodeOpTable(opBytes);
    expect(d.diagnostics).toEqual([]);
    expect(d.table).toEqual(new Map([[5, new Set([1, 2])]]));
    expect(encodeOpTable(d.table!)).toEqual(opBytes);
  });

  it('ASCII and UTF-8 names side by side decode exactly', () => {
    const t = new Map([
      [3, 'conv/Relu'],
      [4, 'ünïcode/層'],
      [9, ''],
      [10, 'tail'],
    ]);
    expect(decodeSourceTable(encodeSourceTable(t)).table).toEqual(t);
  });

  it('encoders sort entries by id and source ids ascending', () => {
    expect(encodeOpTable(new Map([[5, new Set([2, 1])]]))).toEqual(opBytes);
    const two = encodeSourceTable(new Map([[2, 'b'], [1, 'a']]));
    expect(decodeSourceTable(two).table).toEqual(new Map([[1, 'a'], [2, 'b']]));
    expect([...two.subarray(4, 8)]).toEqual([1, 0, 0, 0]);
  });
});

describe('decoder checks (CircleImportMetadata.cpp), each an error naming the table and offset', () => {
  const cases: [string, 'source' | 'op', Uint8Array, number, RegExp][] = [
    ['short buffer (source)', 'source', hex('01 00 00'), 0, /too short/],
    ['short buffer (op)', 'op', new Uint8Array(0), 0, /too short/],
    ['truncated entry header', 'source', cat(le(1, 1)), 4, /entry 0 is truncated/],
    ['truncated name', 'source', cat(le(1, 1, 6), hex('6e 6f 64')), 4, /truncated: name of 6 bytes, 3 left/],
    ['name without NUL', 'source', cat(le(1, 1, 5), hex('6e 6f 64 65 31')), 12, /not NUL-terminated/],
    ['zero-length name', 'source', cat(le(1, 1, 0)), 12, /not NUL-terminated/],
    ['duplicate id (source)', 'source', cat(le(2, 1, 2), hex('61 00'), le(1, 2), hex('62 00')), 14, /duplicate id 1/],
    ['entry count mismatch (source, fewer entries)', 'source', cat(le(2, 1, 2), hex('61 00')), 14, /entry count mismatch: header says 2, 1 read/],
    ['trailing bytes (source)', 'source', cat(le(1, 1, 2), hex('61 00 ff')), 14, /1 trailing bytes/],
    ['truncated op entry', 'op', cat(le(1, 5, 2, 1)), 4, /truncated: 2 source ids need 8 bytes, 4 left/],
    ['truncated op header', 'op', cat(le(1, 5)), 4, /entry 0 is truncated/],
    ['duplicate op_id', 'op', cat(le(2, 5, 1, 1, 5, 1, 2)), 16, /duplicate op_id 5/],
    ['entry count mismatch (op)', 'op', cat(le(3, 5, 1, 1)), 16, /header says 3, 1 read/],
    ['trailing bytes (op)', 'op', cat(le(0, 7)), 4, /4 trailing bytes after 0 entries/],
  ];
  for (const [name, which, bytes, offset, message] of cases) {
    it(name, () => {
      const d = which === 'source' ? decodeSourceTable(bytes, 'm.circle') : decodeOpTable(bytes, 'm.circle');
      expect(d.table).toBeNull();
      expect(d.diagnostics).toHaveLength(1);
      const x = d.diagnostics[0]!;
      expect(x.severity).toBe('error');
      expect(x.file).toBe('m.circle');
      expect(x.source).toBe(which === 'source' ? 'ONE_source_table' : 'ONE_op_table');
      expect(x.offset).toBe(offset);
      expect(x.message).toMatch(message);
      expect(x.message).toContain(`${x.source} byte ${offset}`);
    });
  }

  it('op table naming an id missing from the source table: a warning with the entry offset', () => {
    const d = decodeOpTable(cat(le(2, 0, 1, 1, 1, 1, 9)));
    const w = checkOpTable(d.table!, d.offsets, new Map([[1, 'a']]), 2, 'm.circle');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ severity: 'warning', source: 'ONE_op_table', offset: 16 });
    expect(w[0]!.message).toMatch(/origin id 9/);
  });

  it('op_id beyond the operator count and node_num = 0 are warnings', () => {
    const d = decodeOpTable(cat(le(1, 7, 0)));
    expect(d.table).toEqual(new Map([[7, new Set()]]));
    expect(d.diagnostics.map((x) => x.severity)).toEqual(['warning']);
    expect(checkOpTable(d.table!, d.offsets, null, 3)[0]!.message).toMatch(/beyond the 3 operators/);
  });
});

describe('properties', () => {
  const u32 = fc.integer({ min: 0, max: 0xffffffff });
  it('decode(encode(source table)) is exact', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(u32, fc.string({ unit: 'grapheme', maxLength: 12 })), { maxLength: 30 }), (entries) => {
        const t = new Map(entries.filter(([, n]) => !n.includes('\0')));
        const bytes = encodeSourceTable(t);
        const d = decodeSourceTable(bytes);
        expect(d.diagnostics).toEqual([]);
        expect(d.table).toEqual(new Map([...t].sort((a, b) => a[0] - b[0])));
        expect(encodeSourceTable(d.table!)).toEqual(bytes);
      }),
    );
  });
  it('decode(encode(op table)) is exact', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(u32, fc.uniqueArray(u32, { minLength: 1, maxLength: 6 })), { maxLength: 30 }), (entries) => {
        const t = new Map(entries.map(([k, v]) => [k, new Set(v)] as const));
        const bytes = encodeOpTable(t);
        const d = decodeOpTable(bytes);
        expect(d.diagnostics).toEqual([]);
        expect(d.table).toEqual(t);
        expect(encodeOpTable(d.table!)).toEqual(bytes);
      }),
    );
  });
  it('random and mutated bytes give a table or a typed error, never a throw', () => {
    const valid = encodeSourceTable(new Map([[1, 'node1'], [7, 'conv']]));
    const validOp = encodeOpTable(new Map([[0, [1]], [3, [1, 7]]]));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.tuple(fc.constantFrom(valid, validOp), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat()).map(([b, at, v, cut]) => {
            const m = b.slice(0, cut % (b.length + 1));
            if (m.length) m[at % m.length] = v;
            return m;
          }),
        ),
        (bytes) => {
          for (const d of [decodeSourceTable(bytes), decodeOpTable(bytes)]) {
            if (d.table === null) {
              expect(d.diagnostics.some((x) => x.severity === 'error' && typeof x.offset === 'number')).toBe(true);
            } else expect(d.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
          }
        },
      ),
    );
  });
  it('decodeOpTableAscending is decodeOpTable with each Set as an ascending array, null where it has an error', () => {
    const validOp = encodeOpTable(new Map([[0, [1]], [3, [1, 7]], [4, [9, 2, 9]]]));
    // an entry written out of order and with a repeated id (not as our encoder writes them)
    const unordered = new Uint8Array([1, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0]);
    expect(decodeOpTableAscending(unordered)).toEqual(new Map([[5, [2, 9]]]));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.tuple(fc.constantFrom(validOp, unordered), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat()).map(([b, at, v, cut]) => {
            const m = b.slice(0, cut % (b.length + 1));
            if (m.length) m[at % m.length] = v;
            return m;
          }),
        ),
        (bytes) => {
          const d = decodeOpTable(bytes);
          const want = d.table && !d.diagnostics.some((x) => x.severity === 'error') ? new Map([...d.table].map(([op, ids]) => [op, [...ids].sort((a, b) => a - b)])) : null;
          expect(decodeOpTableAscending(bytes)).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeKey, MAX_DIAGNOSTICS, readIni, unescapeKey } from './ini';
import { parsePart } from './table';

const codes = (text: string) => readIni(text).diagnostics.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}`);

describe('INI reader (crew PConfigIni rules)', () => {
  it('reads sections and keys with positions', () => {
    const doc = readIni('[partition]\nbackends=cpu,acl_cl\ndefault=cpu\n\n[OPCODE]\nDIV=acl_cl\n');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.sections.map((s) => [s.name, s.line, s.column, s.endColumn])).toEqual([
      ['partition', 1, 1, 12],
      ['OPCODE', 5, 1, 9],
    ]);
    const div = doc.sections[1]!.entries[0]!;
    expect(div).toMatchObject({ key: 'DIV', value: 'acl_cl', line: 6, keyColumn: 1, keyEndColumn: 4, valueColumn: 5, valueEndColumn: 11, effective: true });
  });

  it('splits on \\r and \\n: CRLF, lone CR, empty lines', () => {
    const doc = readIni('[a]\r\nx=1\r\n\r\ny=2\rz=3');
    expect(doc.sections[0]!.entries.map((e) => [e.key, e.value, e.line])).toEqual([
      ['x', '1', 2],
      ['y', '2', 4],
      ['z', '3', 5],
    ]);
    expect(doc.diagnostics).toEqual([]);
  });

  it('comments start with # or ; only at the first character; a mid-line ; is part of the key', () => {
    const doc = readIni('[OPNAME]\n# c\n; c\nsome/node/add2;and/another=acl_cl\n #not a comment=1\n');
    expect(doc.sections[0]!.entries.map((e) => e.key)).toEqual(['some/node/add2;and/another', ' #not a comment']);
  });

  it('splits at the first = and trims nothing (with warnings for blanks)', () => {
    const doc = readIni('[p]\nDIV = acl_cl\nk=a=b\n');
    const [e1, e2] = doc.sections[0]!.entries;
    expect(e1).toMatchObject({ key: 'DIV ', value: ' acl_cl' });
    expect(e2).toMatchObject({ key: 'k', value: 'a=b' });
    expect(codes('[p]\nDIV = acl_cl\n')).toEqual(['2:1 warning blank-key', '2:6 warning blank-value']);
  });

  it('unescapes \\; in keys only (crew test_read_semicolon.ini), and escapes back', () => {
    const doc = readIni('[hello]\nkeya\\;keyb\\;keyc\\;keyd=world\\;x\n');
    const e = doc.sections[0]!.entries[0]!;
    expect(e.key).toBe('keya;keyb;keyc;keyd');
    expect(e.rawKey).toBe('keya\\;keyb\\;keyc\\;keyd');
    expect(e.value).toBe('world\\;x');
    expect(unescapeKey('a\\\\;b\\c')).toBe('a;b\\c'); // the crew loop removes the whole backslash run
    expect(escapeKey('a;b;c')).toBe('a\\;b\\;c');
    expect(unescapeKey(escapeKey('x;y;;z'))).toBe('x;y;;z');
  });

  it('a repeated key keeps its first value (items.emplace), with a warning on the later line', () => {
    const doc = readIni('[OPCODE]\nADD=cpu\nADD=npu\n');
    expect(doc.sections[0]!.entries.map((e) => [e.value, e.effective])).toEqual([
      ['cpu', true],
      ['npu', false],
    ]);
    expect(codes('[OPCODE]\nADD=cpu\nADD=npu\n')).toEqual(['3:1 warning duplicate-key']);
    const parsed = parsePart('[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nADD=cpu\nADD=npu\n');
    expect(parsed.table!.byOpcode.get('ADD')).toBe('cpu');
  });

  it('a repeated section merges into the first (warning)', () => {
    const doc = readIni('[a]\nx=1\n[b]\n[a]\nx=2\ny=3\n');
    expect(doc.sections.map((s) => s.name)).toEqual(['a', 'b']);
    expect(doc.sections[0]!.entries.map((e) => [e.key, e.value, e.effective])).toEqual([
      ['x', '1', true],
      ['x', '2', false],
      ['y', '3', true],
    ]);
    expect(codes('[a]\nx=1\n[b]\n[a]\nx=2\n')).toEqual(['4:1 warning duplicate-section', '5:1 warning duplicate-key']);
  });

  it('key before any section is an error (Invalid INI file), reported once', () => {
    expect(codes('x=1\ny=2\n[a]\n')).toEqual(['1:1 error key-before-section']);
  });

  it('broken headers and lines without =', () => {
    expect(codes('[abc\nx=1\n[]\n[ok] trailing\nnoequals\n')).toEqual(['1:1 error unclosed-section', '3:1 error empty-section', '4:5 warning section-trailing', '5:1 warning no-equals']);
  });

  it('a byte-order mark is ignored with a warning, columns unchanged', () => {
    const doc = readIni('\uFEFF[partition]\nbackends=cpu\n');
    expect(doc.sections[0]!.name).toBe('partition');
    expect(doc.sections[0]!.column).toBe(1);
    expect(codes('\uFEFF[a]\n')).toEqual(['1:1 warning bom']);
  });

  it('binary junk gives diagnostics, never an exception', () => {
    const junk = String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    const doc = readIni(junk);
    expect(doc.diagnostics.some((d) => d.code === 'binary' && d.severity === 'error')).toBe(true);
    expect(doc.diagnostics.length).toBeLessThanOrEqual(2 * MAX_DIAGNOSTICS);
    expect(parsePart(junk).table).toBeNull();
  });

  it('1 MB lines and 10^5 keys are read (linear), diagnostics capped', () => {
    const long = 'k'.repeat(1 << 20);
    const doc = readIni(`[OPNAME]\n${long}=cpu\n${long}\n`);
    expect(doc.sections[0]!.entries[0]!.key.length).toBe(1 << 20);
    expect(doc.diagnostics.map((d) => d.code)).toEqual(['no-equals']);
    const many = ['[partition]', 'backends=cpu,npu', 'default=cpu', 'comply=opname', '[OPNAME]'];
    for (let i = 0; i < 100_000; i++) many.push(`n${i}=npu`);
    for (let i = 0; i < 1000; i++) many.push(`n${i}=cpu`); // duplicates
    const parsed = parsePart(many.join('\n'));
    expect(parsed.table!.byOpname.size).toBe(100_000);
    expect(parsed.table!.byOpname.get('n5')).toBe('npu');
    expect(parsed.diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS + 1);
    expect(parsed.diagnostics.at(-1)!.code === 'more' || parsed.diagnostics.some((d) => d.code === 'more')).toBe(true);
  });

  it('property: random text gives a document and diagnostics with valid positions', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('[', ']', '=', ';', '#', '\\', '\r', '\n', 'a', 'B', ' ', '_', ',', '\u0000', '\uFEFF') }), (text) => {
        const parsed = parsePart(text);
        const lines = text.split(/\r\n|\r|\n/).length;
        for (const d of parsed.diagnostics) {
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(d.line).toBeLessThanOrEqual(lines);
          expect(d.column).toBeGreaterThanOrEqual(1);
          expect(d.endColumn).toBeGreaterThan(d.column);
        }
        if (parsed.table) expect(parsed.table.backends).toContain(parsed.table.defaultBackend);
      }),
      { numRuns: 300 },
    );
  });

  it('property: mutated valid files never throw', () => {
    const base = '[partition]\nbackends=cpu,acl_cl\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\nDIV=acl_cl\n_=cpu\n';
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length), fc.nat(3), fc.string({ maxLength: 3 })), { maxLength: 6 }), (edits) => {
        let t = base;
        for (const [at, del, ins] of edits) t = t.slice(0, at) + ins + t.slice(at + del);
        const parsed = parsePart(t);
        expect(Array.isArray(parsed.diagnostics)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

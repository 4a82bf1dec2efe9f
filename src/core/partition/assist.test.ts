import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyEdit } from '../text-edit';
import { buildFromRecipe } from '../chef';
import { findEntry, keyProblem, readIni } from './ini';
import { parsePart } from './table';
import { preparePartition } from './prepare';
import { assignEdit, completionsAt, complyOf, decidingLines, keyAt } from './assist';

const NEW_PARTITION = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n';

// ADD (add1), ADD (add2), SUB (ofm)
const prepared = preparePartition(buildFromRecipe(readFileSync('test/fixtures/one/recipes/Part_Add_Sub_000/test.recipe', 'utf8'), 'r'), 'Part_Add_Sub_000.circle');

const run = (text: string, section: string, key: string, value: string) => {
  const e = assignEdit(text, section, key, value);
  return e ? applyEdit(text, e) : text;
};

describe('assignEdit (click-to-assign)', () => {
  it('adds a section with the key at the end', () => {
    expect(run(NEW_PARTITION, 'OPCODE', 'ADD', 'npu')).toBe('[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\nADD=npu\n');
  });
  it('adds a key after the last key of its section', () => {
    const t = '[partition]\nbackends=a,b\ndefault=a\n[OPCODE]\nADD=b\n\n[OPNAME]\nx=a\n';
    expect(run(t, 'OPCODE', 'MUL', 'b')).toBe('[partition]\nbackends=a,b\ndefault=a\n[OPCODE]\nADD=b\nMUL=b\n\n[OPNAME]\nx=a\n');
  });
  it('replaces the value of the first (effective) key and leaves a repeat alone', () => {
    expect(run('[OPCODE]\nADD=b\nADD=c\n', 'OPCODE', 'ADD', 'a')).toBe('[OPCODE]\nADD=a\nADD=c\n');
    expect(assignEdit('[OPCODE]\nADD=a\n', 'OPCODE', 'ADD', 'a')).toBeNull();
  });
  it('escapes ; in node names and finds escaped keys again', () => {
    const t = run(NEW_PARTITION, 'OPNAME', 'a;b', 'npu');
    expect(t).toContain('[OPNAME]\na\\;b=npu\n');
    expect(readIni(t).sections.find((s) => s.name === 'OPNAME')!.entries[0]!.key).toBe('a;b');
    expect(run(t, 'OPNAME', 'a;b', 'cpu')).toContain('a\\;b=cpu');
  });
  it('keeps CRLF line ends and handles text without a final newline', () => {
    expect(run('[partition]\r\nbackends=a\r\n', 'OPCODE', 'ADD', 'a')).toBe('[partition]\r\nbackends=a\r\n\r\n[OPCODE]\r\nADD=a\r\n');
    expect(run('[partition]\nbackends=a', 'OPCODE', 'ADD', 'a')).toBe('[partition]\nbackends=a\n\n[OPCODE]\nADD=a\n');
    expect(run('', 'OPCODE', 'ADD', 'a')).toBe('[OPCODE]\nADD=a\n');
  });
  it('sets comply in [partition]', () => {
    expect(run(NEW_PARTITION, 'partition', 'comply', 'opname')).toContain('comply=opname');
  });
});

describe('completionsAt', () => {
  const at = (text: string, line: number, column: number) => completionsAt(prepared, text, readIni(text), line, column);
  const labels = (text: string, line: number, column: number) => at(text, line, column).items.map((i) => i.label);

  it('section headers after [, replacing up to the ]', () => {
    const c = at('[OP]\n', 1, 2);
    expect(c.items.map((i) => i.insertText)).toEqual(['partition', 'OPCODE', 'OPNAME']);
    expect([c.startColumn, c.endColumn]).toEqual([2, 4]);
  });
  it('[partition] keys, then comply values, then backend names after the last comma', () => {
    expect(labels('[partition]\n', 2, 1)).toEqual(['backends', 'default', 'comply']);
    expect(labels('[partition]\ncomply=', 2, 8)).toEqual(['opcode', 'opname']);
    const b = at('[partition]\nbackends=cpu,', 2, 14);
    expect(b.items.map((i) => i.label)).toContain('npu');
    expect(b.startColumn).toBe(14);
  });
  it('[OPCODE] keys: the model\'s opcodes first with their counts, then every other circle opcode', () => {
    const c = at(`${NEW_PARTITION}[OPCODE]\n`, 6, 1);
    const inModel = c.items.filter((i) => i.detail?.endsWith('in this model') && !i.detail.startsWith('not'));
    expect(inModel.map((i) => `${i.label} ${i.detail}`)).toEqual(['ADD 2 in this model', 'SUB 1 in this model']);
    expect(c.items.some((i) => i.label === 'CONV_2D' && i.detail === 'not in this model')).toBe(true);
    expect(c.items[0]!.label).toBe('_');
  });
  it('[OPNAME] keys are the node names; values are the backends the text lists', () => {
    expect(labels(`${NEW_PARTITION}[OPNAME]\n`, 6, 1)).toEqual(['_', 'add1', 'add2', 'ofm']);
    expect(labels(`${NEW_PARTITION}[OPNAME]\nadd1=`, 6, 6)).toEqual(['cpu', 'npu']);
  });
  it('a section header repeated later decides by the nearest header above', () => {
    const t = `${NEW_PARTITION}[OPNAME]\nadd1=npu\n[partition]\n`;
    expect(labels(t, 8, 1)).toEqual(['backends', 'default', 'comply']);
  });
});

describe('keyAt', () => {
  const t = `${NEW_PARTITION}[OPCODE]\nADD=npu\n# c\n[OPNAME]\na\\;b=cpu\n`;
  it('keys of [OPCODE] and [OPNAME], unescaped; nothing on headers, comments and [partition]', () => {
    const found = [1, 2, 5, 6, 7, 8, 9].map((line) => keyAt(t, line));
    expect(found).toEqual([null, null, null, { section: 'OPCODE', key: 'ADD' }, null, null, { section: 'OPNAME', key: 'a;b' }]);
  });
});

describe('decidingLines', () => {
  it('per operator: its key, else the section _, else [partition] default', () => {
    const text = `${NEW_PARTITION}[OPCODE]\nSUB=npu\n`;
    const parsed = parsePart(text, 'p.part', { model: prepared });
    expect([...decidingLines(prepared, parsed.document, complyOf(parsed))]).toEqual([3, 3, 6]);
    const withDefault = parsePart(`${text}_=npu\n`, 'p.part', { model: prepared });
    expect([...decidingLines(prepared, withDefault.document, complyOf(withDefault))]).toEqual([7, 7, 6]);
  });
  it('comply=opname reads [OPNAME], also while the text has errors', () => {
    const text = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opname\n[OPNAME]\nadd2=gpu\n';
    const parsed = parsePart(text, 'p.part', { model: prepared });
    expect(parsed.table).toBeNull(); // gpu is not a backend
    expect(complyOf(parsed)).toBe('opname');
    expect([...decidingLines(prepared, parsed.document, 'opname')]).toEqual([3, 6, 3]);
  });
});

describe('assigning any operator name', () => {
  // names built from the characters the .part syntax cares about, and any other text
  const special = fc.constantFrom('=', ';', '[', ']', '#', ' ', '\t', '\\', '\r', '\n', '_', 'a', 'Z', '/', ':', 'é', '\u0000');
  const names = fc.oneof(fc.string({ maxLength: 12 }), fc.array(special, { maxLength: 10 }).map((a) => a.join('')), fc.string({ unit: 'grapheme', maxLength: 8 }));
  const texts = fc.constantFrom(NEW_PARTITION, '', '[partition]\r\nbackends=cpu,npu\r\n', '[OPNAME]\nother=npu\n', NEW_PARTITION + '[OPNAME]\n_=npu\n');

  it('property: the name parses back as the key assigned, or is refused with a reason', () => {
    fc.assert(
      fc.property(names, texts, fc.constantFrom('cpu', 'npu'), (name, text, backend) => {
        const problem = keyProblem(name);
        if (problem !== null) {
          expect(() => assignEdit(text, 'OPNAME', name, backend)).toThrow(problem);
          return;
        }
        const after = run(text, 'OPNAME', name, backend);
        const doc = readIni(after);
        const entry = findEntry(doc.sections.find((s) => s.name === 'OPNAME'), name);
        expect(entry?.value).toBe(backend);
        expect(doc.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        // and assigning again changes the same line
        expect(readIni(run(after, 'OPNAME', name, backend === 'cpu' ? 'npu' : 'cpu')).sections.find((s) => s.name === 'OPNAME')!.entries.filter((e) => e.key === name)).toHaveLength(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses with the reason what the syntax cannot carry', () => {
    expect(() => assignEdit(NEW_PARTITION, 'OPNAME', 'a=b', 'npu')).toThrow(/'a=b' cannot be a \[OPNAME\] key: it holds '='/);
    expect(() => assignEdit(NEW_PARTITION, 'OPNAME', '[x]', 'npu')).toThrow(/section header/);
    expect(() => assignEdit(NEW_PARTITION, 'OPNAME', '#x', 'npu')).toThrow(/comment/);
    expect(() => assignEdit(NEW_PARTITION, 'OPNAME', 'a\\;b', 'npu')).toThrow(/backslash/);
    expect(run(NEW_PARTITION, 'OPNAME', ';x]', 'npu')).toContain('\n\\;x]=npu\n');
    expect(run(NEW_PARTITION, 'OPNAME', ' x ', 'npu')).toContain('\n x =npu\n');
  });
});


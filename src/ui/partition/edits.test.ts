import { describe, expect, it } from 'vitest';
import { applyEdit, NEW_PARTITION, setKeyEdit } from './edits';
import { readIni } from '../../core/partition/ini';

const run = (text: string, section: string, key: string, value: string) => {
  const e = setKeyEdit(text, section, key, value);
  return e ? applyEdit(text, e) : text;
};

describe('setKeyEdit', () => {
  it('adds a section with the key at the end', () => {
    expect(run(NEW_PARTITION, 'OPCODE', 'ADD', 'npu')).toBe('[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\nADD=npu\n');
  });
  it('adds a key after the last key of its section', () => {
    const t = '[partition]\nbackends=a,b\ndefault=a\n[OPCODE]\nADD=b\n\n[OPNAME]\nx=a\n';
    expect(run(t, 'OPCODE', 'MUL', 'b')).toBe('[partition]\nbackends=a,b\ndefault=a\n[OPCODE]\nADD=b\nMUL=b\n\n[OPNAME]\nx=a\n');
  });
  it('replaces the value of the first (effective) key and leaves a repeat alone', () => {
    const t = '[OPCODE]\nADD=b\nADD=c\n';
    expect(run(t, 'OPCODE', 'ADD', 'a')).toBe('[OPCODE]\nADD=a\nADD=c\n');
    expect(setKeyEdit('[OPCODE]\nADD=a\n', 'OPCODE', 'ADD', 'a')).toBeNull();
  });
  it('escapes ; in node names and finds escaped keys again', () => {
    const t = run(NEW_PARTITION, 'OPNAME', 'a;b', 'npu');
    expect(t).toContain('[OPNAME]\na\\;b=npu\n');
    const doc = readIni(t);
    expect(doc.sections.find((s) => s.name === 'OPNAME')!.entries[0]!.key).toBe('a;b');
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

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFromRecipe } from '../chef';
import { preparePartition } from './prepare';
import { allOpcodeNames, hoverText, isOpcodeName, keyCapture, parsePart, partCompletions } from './table';

const recipe = (name: string) => buildFromRecipe(readFileSync(`test/fixtures/one/recipes/${name}/test.recipe`, 'utf8'), `${name}.recipe`);
const norm = preparePartition(recipe('Net_InstanceNorm_003'), 'Net_InstanceNorm_003.circle');

const HEAD = '[partition]\nbackends=cpu,acl_cl\ndefault=cpu\ncomply=opcode\n';
/** `line:column severity code` of every diagnostic */
const diags = (text: string, model = norm, overrides = {}) =>
  parsePart(text, 'x.part', { model, overrides }).diagnostics.map((d) => `${d.line}:${d.column}-${d.endColumn} ${d.severity} ${d.code}`);

describe('.part validation (partitioner.md 1.3-1.5)', () => {
  it('a valid file gives a table and no diagnostics', () => {
    const p = parsePart(`${HEAD}\n[OPCODE]\nDIV=acl_cl\n`, 'x.part', { model: norm });
    expect(p.diagnostics).toEqual([]);
    expect(p.table).toEqual({ backends: ['cpu', 'acl_cl'], defaultBackend: 'cpu', comply: 'opcode', byOpcode: new Map([['DIV', 'acl_cl']]), byOpname: new Map() });
  });

  it('missing [partition], backends, default', () => {
    expect(diags('[OPCODE]\nDIV=cpu\n')).toEqual(['1:1-2 error missing-partition']);
    expect(diags('[partition]\ndefault=cpu\ncomply=opcode\n')).toEqual(['1:1-12 error missing-backends']);
    expect(diags('[partition]\nbackends=cpu\ncomply=opcode\n')).toEqual(['1:1-12 error missing-default']);
    expect(parsePart('[partition]\nbackends=cpu\n').table).toBeNull();
    expect(diags('[partition]\nbackends=\ndefault=cpu\ncomply=opcode\n')).toEqual(['2:10-11 error no-backends']);
  });

  it('default and assigned values must be among backends (case-sensitive, blanks count)', () => {
    expect(diags('[partition]\nbackends=cpu,acl_cl\ndefault=npu\ncomply=opcode\n')).toEqual(['3:9-12 error unknown-backend']);
    expect(diags(`${HEAD}[OPCODE]\nDIV=CPU\n`)).toEqual(['6:5-8 error unknown-backend']);
    const msg = parsePart(`${HEAD}[OPCODE]\nDIV=CPU\n`).diagnostics[0]!.message;
    expect(msg).toContain('case-sensitive');
    expect(diags('[partition]\nbackends=cpu, acl_cl\ndefault=cpu\ncomply=opcode\n[OPCODE]\nDIV=acl_cl\n')).toEqual([
      '2:14-21 warning blank-backend',
      '6:5-11 error unknown-backend',
    ]);
    expect(diags('[partition]\nbackends=cpu,,cpu\ndefault=cpu\ncomply=opcode\n')).toEqual(['2:14-15 warning empty-backend', '2:15-18 warning repeated-backend']);
  });

  it('comply: opcode, opname, unsupported, missing', () => {
    expect(diags('[partition]\nbackends=cpu\ndefault=cpu\ncomply=sequence\n')).toEqual(['4:8-16 error unsupported-comply']);
    expect(diags('[partition]\nbackends=cpu\ndefault=cpu\n')).toEqual(['1:1-12 warning missing-comply']);
    expect(parsePart('[partition]\nbackends=cpu\ndefault=cpu\n').table!.comply).toBe('opcode');
    expect(parsePart('[partition]\nbackends=cpu\ndefault=cpu\ncomply=opname\n').table!.comply).toBe('opname');
  });

  it('unknown sections and keys, inactive section', () => {
    expect(diags(`${HEAD}[one-partition]\nx=1\n[OPNAME]\nPow=acl_cl\n`)).toEqual(['5:1-16 warning unknown-section', '7:1-9 warning inactive-section']);
    expect(diags(`[partition]\nbackends=cpu\ndefault=cpu\ncomply=opcode\nbackend=cpu\n`)).toEqual(['5:1-8 warning unknown-key']);
  });

  it('[OPCODE] keys: no operator name, not in the model; [OPNAME] keys naming no node', () => {
    expect(diags(`${HEAD}[OPCODE]\nWWW=acl_cl\ndiv=acl_cl\nCONV_2D=acl_cl\n`)).toEqual([
      '6:1-4 warning unknown-opcode',
      '7:1-4 warning unknown-opcode',
      '8:1-8 warning unmatched-key',
    ]);
    expect(parsePart(`${HEAD}[OPCODE]\ndiv=acl_cl\n`).diagnostics[0]!.message).toContain('did you mean DIV?');
    const opname = '[partition]\nbackends=cpu,acl_cl\ndefault=cpu\ncomply=opname\n[OPNAME]\nPow=acl_cl\nNope=acl_cl\n';
    expect(diags(opname)).toEqual(['7:1-5 warning unknown-opname']);
    // warnings keep the table usable (circle-partitioner ignores such keys)
    expect(parsePart(opname, 'x.part', { model: norm }).table).not.toBeNull();
  });

  it('key before any section is an error at its position', () => {
    expect(diags(`backends=cpu\n${HEAD}`)).toEqual(['1:1-13 error key-before-section']);
  });

  it('_ replaces the default backend in the active section', () => {
    const t = parsePart(`${HEAD}[OPCODE]\n_=acl_cl\nDIV=cpu\n`).table!;
    expect(t.defaultBackend).toBe('acl_cl');
    expect(t.byOpcode.has('_')).toBe(false);
    expect(diags(`${HEAD}[OPCODE]\n_=gpu\n`)).toEqual(['6:3-6 error unknown-backend']);
  });

  it('--backends / --default overrides apply before validation', () => {
    const t = parsePart(`${HEAD}[OPCODE]\nDIV=npu\n`, 'x.part', { overrides: { backends: 'cpu,npu', default: 'npu' } }).table!;
    expect(t.backends).toEqual(['cpu', 'npu']);
    expect(t.defaultBackend).toBe('npu');
    expect(diags(HEAD, norm, { default: 'gpu' })).toEqual(['1:1-12 error unknown-backend']);
    expect(diags('[partition]\ncomply=opcode\n', norm, { backends: 'cpu', default: 'cpu' })).toEqual([]);
  });

  it('CRLF and BOM files validate like LF files', () => {
    const crlf = `\uFEFF${HEAD}[OPCODE]\nDIV=acl_cl\n`.replace(/\n/g, '\r\n');
    const p = parsePart(crlf, 'x.part', { model: norm });
    expect(p.table!.byOpcode.get('DIV')).toBe('acl_cl');
    expect(p.diagnostics.map((d) => d.code)).toEqual(['bom']);
  });

  it('every fixture .part file parses without errors', () => {
    const files = ['Net_InstanceNorm_003.001', 'Net_UnpackAdd_001.002', 'Part_Add_Sub_001', 'circle-partitioner-test/Net_InstanceNorm_003.003', 'one-cmds-tests/partition_iv3-concat', 'circle-partitioner/Part_Sqrt_Rsqrt_Add_003'];
    for (const f of files) {
      const p = parsePart(readFileSync(`test/fixtures/one/parts/${f}.part`, 'utf8'), `${f}.part`);
      expect(p.table, f).not.toBeNull();
      expect(p.diagnostics.filter((d) => d.code !== 'unknown-opcode'), f).toEqual([]);
    }
  });
});

describe('editor helpers', () => {
  const text = `${HEAD}[OPCODE]\nADD=acl_cl\nMEAN=acl_cl\n_=cpu\n[OPNAME]\nPow=acl_cl\n`;
  const parsed = parsePart(text, 'x.part', { model: norm });

  it('keyCapture counts the operators a key captures', () => {
    expect(keyCapture(norm, 'OPCODE', 'ADD', parsed.table).count).toBe(2);
    expect(keyCapture(norm, 'OPCODE', 'MEAN', parsed.table).operators).toEqual([0, 2]);
    expect(keyCapture(norm, 'OPCODE', 'WWW', parsed.table).count).toBe(0);
    expect(keyCapture(norm, 'OPNAME', 'Pow', parsed.table)).toMatchObject({ count: 1, active: false });
    expect(keyCapture(norm, 'OPCODE', '_', parsed.table).count).toBe(9 - 4);
  });

  it('hoverText over a key', () => {
    expect(hoverText(norm, parsed, 6, 2)).toBe("'ADD': 2 operators → acl_cl");
    expect(hoverText(norm, parsed, 8, 1)).toBe("default backend 'cpu': 5 operators → cpu");
    expect(hoverText(norm, parsed, 10, 1)).toBe("'Pow': 1 operator → acl_cl (inactive: comply=opcode)");
    expect(hoverText(norm, parsed, 5, 1)).toBeNull();
  });

  it('completions: backends, opcodes of the model, node names', () => {
    const c = partCompletions(norm, parsed.table);
    expect(c.backends).toEqual(['cpu', 'acl_cl']);
    expect(c.opcodes).toEqual([
      { name: 'ADD', count: 2 },
      { name: 'DIV', count: 1 },
      { name: 'MEAN', count: 2 },
      { name: 'MUL', count: 1 },
      { name: 'POW', count: 1 },
      { name: 'SQUARED_DIFFERENCE', count: 1 },
      { name: 'SUB', count: 1 },
    ]);
    expect(c.nodeNames).toContain('Mean_as_variance');
    expect(isOpcodeName('INSTANCE_NORM')).toBe(true);
    expect(isOpcodeName('Add')).toBe(false);
    expect(allOpcodeNames()).toContain('CUMSUM');
  });
});

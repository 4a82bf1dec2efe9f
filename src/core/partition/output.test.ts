import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFromRecipe } from '../chef';
import { read } from '../circle/read';
import type { CircleModel } from '../circle/model';
import { partition, type PartitionPlan } from './algorithm';
import { checkPartition, type CheckPart } from './check';
import { connIni, connJson, readConnJson } from './conn';
import { buildPartModel, OP_TABLE_NAME, partOperatorOrder, SOURCE_TABLE_NAME } from './modules';
import { decodeOpTable, decodeSourceTable, encodeOpTable, encodeSourceTable } from './origin-tables';
import { writePartition } from './output';
import { preparePartition, type PreparedModel } from './prepare';
import { parsePart } from './table';
import { alternatingChainModel, synthModel } from './testing';
import { write } from '../circle/write';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';

const flatc = ['/usr/bin/flatc', '/usr/local/bin/flatc'].find((p) => existsSync(p));
const SCHEMA = 'schemas/circle_schema.fbs';
const PARTS = 'test/fixtures/one/parts';
const built = new Map<string, CircleModel>();
const recipe = (name: string) => {
  let m = built.get(name);
  if (!m) built.set(name, (m = buildFromRecipe(readFileSync(`test/fixtures/one/recipes/${name}/test.recipe`, 'utf8'), `${name}.recipe`)));
  return m;
};

function planOf(model: CircleModel, text: string, file: string): { prepared: PreparedModel; plan: PartitionPlan } {
  const prepared = preparePartition(model, file);
  const parsed = parsePart(text, 'x.part', { model: prepared });
  return { prepared, plan: partition(prepared, parsed.table!) };
}

const DIV_PART = readFileSync(`${PARTS}/Part_Tanh_FC_nobias.part`, 'utf8'); // DIV=acl_cl, as the README's Net_InstanceNorm_003.part

function metadata(m: CircleModel, name: string): Uint8Array | null {
  const e = m.metadata.find((x) => x.name === name);
  return e ? m.buffers[e.buffer]!.data : null;
}

describe('connection files', () => {
  const { plan } = planOf(recipe('Net_InstanceNorm_003'), DIV_PART, 'Net_InstanceNorm_003.circle');

  it('.conn.json equals the circle-partitioner README byte for byte (Net_InstanceNorm_003, DIV=acl_cl)', () => {
    const expected = readFileSync('test/fixtures/one/partition/Net_InstanceNorm_003.conn.json', 'utf8');
    // the README's file ends with one newline; we write exactly one
    expect(connJson(plan)).toBe(expected.endsWith('\n') ? expected : `${expected}\n`);
  });

  it('.conn.ini in the fixed order file, i1.., o1.. (notes 5.3)', () => {
    expect(connIni(plan)).toBe(
      '[source]\nfile=Net_InstanceNorm_003.circle\ni1=Input\no1=Add_as_terminal\n\n' +
        '[models]\nm1=Net_InstanceNorm_003.00001_cpu.circle\nm2=Net_InstanceNorm_003.00002_acl_cl.circle\nm3=Net_InstanceNorm_003.00003_cpu.circle\n\n' +
        '[Net_InstanceNorm_003.00001_cpu.circle]\nfile=Net_InstanceNorm_003.00001_cpu.circle\ni1=Input\no1=Pow\no2=Sub\n\n' +
        '[Net_InstanceNorm_003.00002_acl_cl.circle]\nfile=Net_InstanceNorm_003.00002_acl_cl.circle\ni1=Sub\ni2=Pow\no1=Div\n\n' +
        '[Net_InstanceNorm_003.00003_cpu.circle]\nfile=Net_InstanceNorm_003.00003_cpu.circle\ni1=Div\no1=Add_as_terminal\n\n',
    );
  });

  it('empty arrays are [  ], names needing JSON escapes are escaped, ; in ini keys becomes \\;', () => {
    const p: PartitionPlan = { ...plan, sourceFile: 'a;b"c.circle', sourceInputs: [], parts: [] };
    expect(connJson(p)).toContain('"inputs" : [  ],');
    expect(connJson(p)).toContain('"file" : "a;b\\"c.circle",');
    expect(connJson(p)).toContain('"parts" : [\n  ]\n}\n');
    const q: PartitionPlan = { ...plan, parts: [{ ...plan.parts[0]!, fileName: 'x;y.circle' }] };
    expect(connIni(q)).toContain('[x;y.circle]\nfile=x;y.circle\n');
    expect(connIni(q)).toContain('m1=x;y.circle\n');
    expect(readConnJson(connJson(plan)).parts[1]).toEqual({ file: 'Net_InstanceNorm_003.00002_acl_cl.circle', inputs: ['Sub', 'Pow'], outputs: ['Div'] });
  });
});

describe('origin table codecs (origins.md section 2)', () => {
  it('encodes the byte examples', () => {
    expect([...encodeSourceTable(new Map([[1, 'node1']]))]).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0x6e, 0x6f, 0x64, 0x65, 0x31, 0]);
    expect([...encodeOpTable(new Map([[5, [2, 1, 2]]]))]).toEqual([1, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
  });
  it('decodes back and rejects inconsistent bytes', () => {
    const s = new Map([
      [3, 'b'],
      [1, 'a/ü'],
    ]);
    expect(decodeSourceTable(encodeSourceTable(s))).toEqual(s);
    expect(decodeOpTable(encodeOpTable(new Map([[0, [4]]])))).toEqual(new Map([[0, [4]]]));
    expect(decodeSourceTable(new Uint8Array([1, 0, 0]))).toBeNull();
    expect(decodeSourceTable(new Uint8Array([1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0x61, 0x62]))).toBeNull(); // no NUL
    expect(decodeOpTable(new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0]))).toBeNull();
  });
});

describe('part models', () => {
  it('Net_InstanceNorm_003: parts open in read(), carry origin tables mapping back to source operators', () => {
    const { prepared, plan } = planOf(recipe('Net_InstanceNorm_003'), DIV_PART, 'Net_InstanceNorm_003.circle');
    const seen: number[] = [];
    plan.parts.forEach((part, i) => {
      const m = read(writePartition(prepared, plan).files[i]!.bytes, part.fileName);
      expect(m.subgraphs[0]!.name).toBe(`${prepared.graphName}_${part.backend}`);
      const g = m.subgraphs[0]!;
      expect(g.inputs.map((t) => g.tensors[t]!.name)).toEqual(part.inputs);
      expect(g.outputs.map((t) => g.tensors[t]!.name)).toEqual(part.outputs);
      const sources = decodeSourceTable(metadata(m, SOURCE_TABLE_NAME)!)!;
      const ops = decodeOpTable(metadata(m, OP_TABLE_NAME)!)!;
      const order = partOperatorOrder(prepared, plan, i);
      expect([...ops.keys()]).toEqual(order.map((_, k) => k));
      order.forEach((src, k) => expect(ops.get(k)).toEqual([src]));
      // the source table holds exactly the sources this part's operators name, with their
      // source-model ids and names (synthesised: operator index -> node name)
      expect([...sources]).toEqual([...order].sort((a, b) => a - b).map((src) => [src, prepared.nodeNames[src]]));
      seen.push(...order);
    });
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('origins: false reproduces ONE (no ONE_* metadata)', () => {
    const { prepared, plan } = planOf(recipe('Net_InstanceNorm_003'), DIV_PART, 'n.circle');
    const m = buildPartModel(prepared, plan, 0, { origins: false });
    expect(m.metadata).toEqual([]);
  });

  it('origins of a source model that carries tables are passed through', () => {
    const { prepared: p0, plan: plan0 } = planOf(recipe('Net_InstanceNorm_003'), DIV_PART, 'n.circle');
    const part1 = read(writePartition(p0, plan0).files[0]!.bytes, 'p1.circle'); // carries tables: op k -> source k
    const text = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nPOW=npu\n';
    const { prepared, plan } = planOf(part1, text, 'p1.circle');
    const powPart = plan.parts.find((x) => x.backend === 'npu')!;
    const m = buildPartModel(prepared, plan, powPart.index);
    expect(decodeOpTable(metadata(m, OP_TABLE_NAME)!)).toEqual(new Map([[0, [4]]])); // Pow was source operator 4
    expect(decodeSourceTable(metadata(m, SOURCE_TABLE_NAME)!)).toEqual(new Map([[4, 'Pow']]));
  });

  it('a constant used by two parts is cloned into both (Part_Add_Sub_002)', () => {
    const model = recipe('Part_Add_Sub_002');
    for (const f of ['Part_Add_Sub_002.001', 'Part_Add_Sub_002.002']) {
      const { prepared, plan } = planOf(model, readFileSync(`${PARTS}/${f}.part`, 'utf8'), `${f}.circle`);
      const consts = plan.parts.map((_, i) => {
        const m = buildPartModel(prepared, plan, i);
        return m.subgraphs[0]!.tensors.filter((t) => t.buffer > 0).map((t) => t.name);
      });
      expect(consts.filter((c) => !c.includes('const')), f).toEqual([]);
      for (const p of plan.parts) expect(p.inputs).not.toContain('const');
    }
  });

  it('IF / WHILE subgraphs are copied into the part that owns the op', () => {
    const text = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMAXIMUM=npu\n';
    const { prepared, plan } = planOf(recipe('Part_While_000'), text, 'w.circle');
    const models = plan.parts.map((_, i) => buildPartModel(prepared, plan, i));
    expect(models.map((m) => m.subgraphs.length)).toEqual([1, 1, 3]);
    const w = models[2]!.subgraphs[0]!.operators[0]!.builtinOptions!;
    expect(w.name).toBe('WhileOptions');
    expect([w.fields.cond_subgraph_index, w.fields.body_subgraph_index]).toEqual([1, 2]);
    const ifPlan = planOf(recipe('Part_If_Add_Sub_001'), '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nIF=npu\n', 'i.circle');
    const ifModel = buildPartModel(ifPlan.prepared, ifPlan.plan, 2);
    // then/else and the IF inside the then branch, with its own branches
    expect(ifModel.subgraphs.length).toBe(recipe('Part_If_Add_Sub_001').subgraphs.length);
  });

  it.skipIf(!flatc)('parts decode with flatc --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'partition-flatc-'));
    try {
      const { prepared, plan } = planOf(recipe('Part_While_000'), '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMAXIMUM=npu\n', 'Part_While_000.circle');
      for (const f of writePartition(prepared, plan).files.filter((x) => x.name.endsWith('.circle'))) {
        writeFileSync(join(dir, f.name), f.bytes);
        execFileSync(flatc!, ['--json', '--raw-binary', '--strict-json', '-o', dir, SCHEMA, '--', join(dir, f.name)], { stdio: 'pipe' });
        const json = JSON.parse(readFileSync(join(dir, f.name.replace(/\.circle$/, '.json')), 'utf8')) as { subgraphs: unknown[]; metadata: { name: string }[] };
        expect(json.metadata.map((x) => x.name)).toEqual([SOURCE_TABLE_NAME, OP_TABLE_NAME]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  if (!flatc) it.skip('parts decode with flatc --json: flatc is not installed (apt-get install flatbuffers-compiler)', () => {});
});

describe('per-part origin tables (each part carries the sources its operators name, no others)', () => {
  const mulOnNpu = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMUL=npu\n';

  it('composite origins keep their ids; an id the source op table names without a source entry becomes #<id> (luci resolves every id)', () => {
    const model = synthModel({
      inputs: 1,
      ops: [
        { code: BuiltinOperator.ADD, args: [{ input: 0 }, { const: 1 }] },
        { code: BuiltinOperator.MUL, args: [{ op: 0 }, { const: 2 }] },
        { code: BuiltinOperator.ADD, args: [{ op: 1 }, { const: 3 }] },
      ],
    });
    const sources = new Map([
      [0, 'a'],
      [1, 'b'],
      [7, 'fused/ü'],
      [8, 'orphan'],
    ]);
    const ops = new Map([
      [0, [0, 7]],
      [1, [1]],
      [2, [9]],
    ]);
    model.metadata.push({ name: SOURCE_TABLE_NAME, buffer: model.buffers.length }, { name: OP_TABLE_NAME, buffer: model.buffers.length + 1 });
    model.buffers.push({ data: encodeSourceTable(sources), offset: 0, size: 0 }, { data: encodeOpTable(ops), offset: 0, size: 0 });
    const { prepared, plan } = planOf(read(write(model), 'o.circle'), mulOnNpu, 'o.circle');
    const tables = writePartition(prepared, plan)
      .files.filter((f) => f.name.endsWith('.circle'))
      .map((f) => {
        const m = read(f.bytes, f.name);
        return [f.name, decodeOpTable(metadata(m, OP_TABLE_NAME)!), decodeSourceTable(metadata(m, SOURCE_TABLE_NAME)!)];
      });
    expect(tables).toEqual([
      ['o.00001_cpu.circle', new Map([[0, [0, 7]]]), new Map([[0, 'a'], [7, 'fused/ü']])],
      ['o.00002_npu.circle', new Map([[0, [1]]]), new Map([[1, 'b']])],
      ['o.00003_cpu.circle', new Map([[0, [9]]]), new Map([[9, '#9']])],
    ]);
  });

  it('10,000 operators in 2,501 parts: the files add up to less than 1.5 x the source + 2 KB per part, every table valid', () => {
    const source = write(alternatingChainModel({ operators: 10_000, run: 4, firstRunShortBy: 2, originTables: true }));
    const { prepared, plan } = planOf(read(source, 'chain.circle'), mulOnNpu, 'chain.circle');
    expect(plan.parts.length).toBe(2501);
    const files = writePartition(prepared, plan, { sourceBytes: source }).files;
    const total = files.reduce((a, f) => a + f.bytes.length, 0);
    expect(total).toBeLessThan(1.5 * source.length + 2048 * plan.parts.length);
    // each part: its op table names exactly the sources its source table holds, with the source
    // model's names (this source carries op k -> source k named after op k's output)
    const bad: string[] = [];
    plan.parts.forEach((part, i) => {
      const m = read(files[i]!.bytes, part.fileName);
      const opTable = decodeOpTable(metadata(m, OP_TABLE_NAME)!);
      const sourceTable = decodeSourceTable(metadata(m, SOURCE_TABLE_NAME)!);
      const expected = new Map(part.operators.map((op) => [op, prepared.nodeNames[op]!]));
      const named = new Set([...(opTable?.values() ?? [])].flat());
      if (!sourceTable || !opTable || [...named].some((id) => !sourceTable.has(id)) || JSON.stringify([...sourceTable]) !== JSON.stringify([...expected])) bad.push(part.fileName);
    });
    expect(bad).toEqual([]);
  });
});

/** Every test.lst entry we hold, plus our own .part files: chained parts reproduce the source. */
const VALUE_CASES: [string, string][] = [
  ['Part_Add_Sub_000', `${PARTS}/Part_Add_Sub_000.part`],
  ['Part_CumSum_Add_000', `${PARTS}/Part_CumSum_Add_000.part`],
  ['Part_Sqrt_Rsqrt_Add_003', `${PARTS}/circle-partitioner/Part_Sqrt_Rsqrt_Add_003.part`],
  ['Part_Add_Sqrt_Rsqrt_000', `${PARTS}/circle-partitioner/Part_Add_Sqrt_Rsqrt_000.part`],
  ['Net_InstanceNorm_003', `${PARTS}/Net_InstanceNorm_003.001.part`],
  ['Net_InstanceNorm_003', `${PARTS}/Part_Tanh_FC_nobias.part`],
  ['Part_Add_Sub_001', `${PARTS}/Part_Add_Sub_001.part`],
  ['Part_Add_Sub_002', `${PARTS}/Part_Add_Sub_002.001.part`],
  ['Part_Add_Sub_002', `${PARTS}/Part_Add_Sub_002.002.part`],
  ['Net_InstanceNorm_003', `${PARTS}/circle-partitioner-test/Net_InstanceNorm_003.003.part`],
  ['Net_UnpackAdd_001', `${PARTS}/Net_UnpackAdd_001.002.part`],
  ['Part_Split_Add_000', `${PARTS}/Part_Split_Add_000.part`],
  ['Part_Tanh_FC_nobias', `${PARTS}/Part_Tanh_FC_nobias.part`],
  ['Part_Tanh_FC_nobias', `${PARTS}/circle-partitioner-test/Part_Tanh_FC_nobias_001.part`],
  ['Part_Tanh_FC_nobias', `${PARTS}/circle-partitioner-test/Part_Tanh_FC_nobias_002.part`],
  ['Part_Tanh_FC_nobias', `${PARTS}/Part_Tanh_FC_nobias_003.part`],
  ['Part_Mul_Sqrt_FC_nobias_000', `${PARTS}/Part_Mul_Sqrt_FC_nobias_000_001.part`],
  ['Part_If_Add_Sub_001', 'IF=npu'],
  ['Part_While_000', 'MAXIMUM=npu'],
  ['Part_While_001', 'MAXIMUM=npu'],
  ['SignatureDef_MultiOut_000', 'MUL=npu'],
  ['SignatureDef_MultiOut_001', 'ADD=npu'],
];

describe('value check: chained parts (read back from their bytes) reproduce the source', () => {
  for (const [name, part] of VALUE_CASES) {
    it(`${name} with ${part.split('/').at(-1)}`, () => {
      const text = part.endsWith('.part') ? readFileSync(part, 'utf8') : `[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\n${part}\n`;
      const { prepared, plan } = planOf(recipe(name), text, `${name}.circle`);
      const files = writePartition(prepared, plan).files;
      const conn = readConnJson(new TextDecoder().decode(files.find((f) => f.name.endsWith('.conn.json'))!.bytes));
      const parts: CheckPart[] = conn.parts.map((p) => ({ ...p, model: read(files.find((f) => f.name === p.file)!.bytes, p.file) }));
      for (const seed of [1, 2]) {
        const result = checkPartition(recipe(name), parts, { seed });
        expect(result.problem).toBeUndefined();
        expect(result.outputs.map((o) => `${o.name}:${o.ok}`)).toEqual(plan.sourceOutputs.map((n) => `${n}:true`));
      }
    });
  }
});

import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { read } from './read';
import { write, encodeOpcode } from './write';
import { sampleModel, opcode, operator, options, tensor, f32 } from './testing';
import type { CircleModel } from './model';
import { CIRCLE_SCHEMA } from './schema-table';
import { defaultsOf } from './checked';

const schema = join(__dirname, '..', '..', '..', 'schemas', 'circle_schema.fbs');
const flatc = ['/usr/bin/flatc', '/usr/local/bin/flatc'].find((p) => existsSync(p));

/** A model that uses every union member of BuiltinOptions/BuiltinOptions2 with default fields. */
function everyOptionModel(): CircleModel {
  const m = sampleModel();
  const ops = m.subgraphs[0]!.operators;
  for (const union of ['BuiltinOptions', 'BuiltinOptions2'] as const) {
    for (const [id, name] of Object.entries(CIRCLE_SCHEMA.unions[union]!)) {
      const def = CIRCLE_SCHEMA.tables[name]!;
      const u = { type: Number(id), name, fields: defaultsOf(def) };
      ops.push(operator(2, [0], [6], union === 'BuiltinOptions' ? { builtinOptions: u } : { builtinOptions2: u }));
    }
  }
  return m;
}

describe('write', () => {
  it('round-trips read -> write -> read to a deep-equal model', () => {
    const first = read(write(sampleModel()), 'a.circle');
    const second = read(write(first), 'b.circle');
    expect(second).toEqual(first);
  });

  it('round-trips every options table of the schema', () => {
    const first = read(write(everyOptionModel()), 'a.circle');
    expect(first.subgraphs[0]!.operators.length).toBeGreaterThan(150);
    const names = first.subgraphs[0]!.operators.map((o) => (o.builtinOptions ?? o.builtinOptions2)?.name);
    expect(names).toContain('RunModelOptions');
    expect(names).toContain('StablehloScatterOptions');
    expect(read(write(first), 'b.circle')).toEqual(first);
  });

  it('keeps non-default option values, nested tables, strings and vectors', () => {
    const m = sampleModel();
    m.operatorCodes.push(opcode(-8), opcode(33));
    m.subgraphs[0]!.operators.push(
      operator(4, [0], [6], { builtinOptions: options(248, 'RunModelOptions', { location: 'sub/model.circle', signature: 'serving' }) }),
      operator(5, [0], [6], {
        builtinOptions2: options(7, 'StablehloScatterOptions', {
          indices_are_sorted: true,
          update_window_dims: [1, 2, 3],
          inserted_window_dims: [],
          scatter_dims_to_operand_dims: [-5, 1_000_000_000_000],
          index_vector_dim: 4,
          unique_indices: false,
          update_computation_subgraph_index: 2,
        }),
      }),
    );
    m.subgraphs[0]!.tensors[1]!.sparsity = {
      traversal_order: [0, 1],
      block_map: null,
      dim_metadata: [
        { format: 0, dense_size: 4, array_segments: null, array_indices: null },
        { format: 1, dense_size: 0, array_segments: { type: 1, name: 'Int32Vector', fields: { values: [0, 2] } }, array_indices: { type: 3, name: 'Uint8Vector', fields: { values: [1, 3] } } },
      ],
    };
    m.subgraphs[0]!.tensors[5]!.quantization!.details = { type: 2, name: 'MXQuantization', fields: { axis: 2 } };
    m.subgraphs[0]!.tensors[4]!.variantTensors = [{ shape: [2], type: 9, hasRank: true }];
    const back = read(write(m), 'x');
    const ops = back.subgraphs[0]!.operators;
    expect(ops[4]!.builtinOptions).toEqual({ type: 248, name: 'RunModelOptions', fields: { location: 'sub/model.circle', signature: 'serving' } });
    expect(ops[5]!.builtinOptions2!.fields).toMatchObject({ indices_are_sorted: true, update_window_dims: [1, 2, 3], inserted_window_dims: [], scatter_dims_to_operand_dims: [-5, 1_000_000_000_000], update_computation_subgraph_index: 2 });
    expect(back.subgraphs[0]!.tensors[1]!.sparsity).toEqual(m.subgraphs[0]!.tensors[1]!.sparsity);
    expect(back.subgraphs[0]!.tensors[5]!.quantization!.details).toEqual({ type: 2, name: 'MXQuantization', fields: { axis: 2 } });
    expect(back.subgraphs[0]!.tensors[4]!.variantTensors).toEqual([{ shape: [2], type: 9, hasRank: true }]);
    expect(read(write(back), 'y')).toEqual(back);
  });

  it('writes the same bytes whatever was written before (the builder is reused) and any string', () => {
    const named = (name: string): CircleModel => {
      const m = sampleModel();
      m.subgraphs[0]!.tensors[0]!.name = name;
      m.description = name;
      return m;
    };
    const names = ['input', 'mod\u00e8le/\u6a21\u578b \u{1F600}', '', 'x'.repeat(1000), 'caf\u00e9'.repeat(300), 'a\u0000b'];
    const first = names.map((n) => write(named(n)));
    // a large model in between (its builder is not kept), and the other order
    const big = sampleModel();
    big.buffers.push({ data: new Uint8Array(3 << 20).fill(7), offset: 0, size: 0 });
    write(big);
    const again = [...names].reverse().map((n) => write(named(n))).reverse();
    expect(again.map((b, i) => Buffer.from(b).equals(Buffer.from(first[i]!)))).toEqual(names.map(() => true));
    // and the strings read back as written, each its own UTF-8
    expect(first.map((b) => read(b, 'n.circle').subgraphs[0]!.tensors[0]!.name)).toEqual(names);
    expect(first.map((b) => read(b, 'n.circle').description)).toEqual(names);
  });

  it('writes CIR0, both op-code fields as luci does, and an empty buffers[0]', () => {
    expect(encodeOpcode(-2)).toEqual({ builtinCode: -2, deprecatedBuiltinCode: -2 });
    expect(encodeOpcode(126)).toEqual({ builtinCode: 126, deprecatedBuiltinCode: 126 });
    expect(encodeOpcode(127)).toEqual({ builtinCode: 127, deprecatedBuiltinCode: 127 });
    expect(encodeOpcode(205)).toEqual({ builtinCode: 205, deprecatedBuiltinCode: 127 });
    const tfl = read(write(sampleModel()), 'x');
    tfl.identifier = 'TFL3';
    const bytes = write(tfl);
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe('CIR0');
    const back = read(bytes, 'x');
    expect(back.buffers[0]).toEqual({ data: null, offset: 0, size: 0 });
    expect(back.operatorCodes[3]).toEqual({ code: -2, deprecatedBuiltinCode: -2, builtinCode: -2, customCode: null, version: 1 });
  });

  it('writes extended buffers (forced): data after the FlatBuffer, 16-aligned, offset/size set', () => {
    const m = sampleModel();
    m.buffers[1] = { data: f32([1, 2, 3, 4, 5]), offset: 0, size: 0 };
    const bytes = write(m, { extendedBuffers: true });
    const back = read(bytes, 'ext.circle');
    const external = back.buffers.filter((b) => b.offset > 1);
    expect(external.length).toBe(4);
    for (const b of back.buffers) {
      expect(b.data).toBeNull();
      if (b.offset > 1) {
        expect(b.offset % 16).toBe(0);
        expect(b.offset + b.size).toBeLessThanOrEqual(bytes.length);
      }
    }
    const b1 = back.buffers[1]!;
    expect(b1.size).toBe(20);
    expect(Array.from(new Float32Array(bytes.slice(b1.offset, b1.offset + b1.size).buffer))).toEqual([1, 2, 3, 4, 5]);
    // back to inline with the source bytes, equal to the inline write
    const inline = read(write(back, { sourceBytes: bytes }), 'in.circle');
    expect(inline).toEqual(read(write(m), 'in.circle'));
    // without the source bytes the external data cannot be written
    expect(() => write(back)).toThrow(/extended buffer/);
  });

  it('is decoded by flatc --json --strict-json', (ctx) => {
    if (!flatc) {
      ctx.skip('flatc is not installed (apt-get install flatbuffers-compiler); skipping the flatc decode check');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'circle-flatc-'));
    try {
      const m = everyOptionModel();
      m.subgraphs[0]!.tensors.push(tensor('u4', [2], { type: -1 }));
      for (const [name, bytes] of [['out.circle', write(m)], ['ext.circle', write(m, { extendedBuffers: true })]] as const) {
        writeFileSync(join(dir, name), bytes);
        execFileSync(flatc, ['--json', '--raw-binary', '--strict-json', '-o', dir, schema, '--', join(dir, name)], { stdio: 'pipe' });
        const json = JSON.parse(readFileSync(join(dir, name.replace('.circle', '.json')), 'utf8')) as {
          description: string;
          operator_codes: { deprecated_builtin_code: number; builtin_code?: string }[];
          subgraphs: { operators: { builtin_options_type?: string }[]; tensors: { type?: string }[] }[];
          metadata: { name: string }[];
        };
        expect(json.description).toBe('hand-built test model');
        expect(json.operator_codes[3]).toMatchObject({ deprecated_builtin_code: -2, builtin_code: 'INSTANCE_NORM' });
        expect(json.subgraphs[0]!.operators[3]!.builtin_options_type).toBe('InstanceNormOptions');
        expect(json.subgraphs[0]!.tensors.at(-1)!.type).toBe('UINT4');
        expect(json.metadata.map((x) => x.name)).toEqual(['min_runtime_version', 'ONE_unknown_table']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Multi-output operators on a backend boundary (issue 10, section 2): how circle-partitioner's
 * `produce_pgroups` and `merge_pgroups` (luci `PartitionPGroups.cpp`, `PartitionMerge.cpp`) treat
 * the virtual `*Out` nodes of Split, SplitV, Unpack, TopKV2, Unique, NonMaxSuppressionV4/V5,
 * Custom, If and While, and that our partition gives the same parts.
 *
 * The facts from ONE's source the expected results rest on:
 * 1. luci's importer creates a multi-output operator's node and then, right after it, one `*Out`
 *    node per output (`GraphBuilderMultiOutput::build`, `CircleIfGraphBuilder::build`,
 *    `CircleWhileGraphBuilder::build`); the operator node is named after output 0.
 * 2. `produce_pgroups` walks the nodes in creation order. For the operator, `append()` makes a
 *    PGroup holding it and its `*Out` nodes (the Outs are the PGroup's outputs) and sets
 *    `node2group[out] = group`. Then the walk reaches each `*Out` node: it is a virtual node, so
 *    `node2group[out] = default_group` overwrites the operator's group. A graph input
 *    (`CircleInput`) is recorded as `default_group` the same way.
 * 3. `merge_pgroups` merges a PGroup P into the producer PGroup G when they have the same group,
 *    an output of G is an input of P, and `is_input_same(P)`: all non-constant inputs of P have
 *    the same `group_of` (= `node2group`) and all inputs that are in a PGroup are in the same one.
 *
 * So, with default `cpu` and the multi-output operator X on `npu`: an `npu` ADD that reads an
 * output of X and a graph input sees `group_of` = cpu for both and merges into X's PGroup, though
 * neither X nor the ADD is on the default backend. An `npu` operator that reads an output of X
 * and a plain output of X's PGroup (group npu) does not merge.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFromRecipe } from '../chef';
import { read } from '../circle/read';
import type { CircleModel } from '../circle/model';
import { partition, type PartitionPlan } from './algorithm';
import { checkPartition, type CheckPart } from './check';
import { readConnJson } from './conn';
import { writePartition } from './output';
import { preparePartition } from './prepare';
import { parsePart } from './table';

/** `operand { ... }` of a recipe; `values` makes it a constant (explicit filler). */
function operand(name: string, type: string, dims: number[], values?: (number | boolean)[]): string {
  const filler = values ? ` filler { tag: "explicit" ${values.map((v) => `arg: "${String(v)}"`).join(' ')} }` : '';
  return `operand { name: "${name}" type: ${type} shape { ${dims.map((d) => `dim: ${d}`).join(' ')} }${filler} }`;
}

function operation(type: string, inputs: string[], outputs: string[], options = ''): string {
  return `operation { type: "${type}" ${inputs.map((x) => `input: "${x}"`).join(' ')} ${outputs.map((x) => `output: "${x}"`).join(' ')} ${options} }`;
}

const part = (lines: string) => `[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\n${lines}\n`;

interface Case {
  /** OPCODE key of the multi-output operator */
  opcode: string;
  /** recipe text: X reads graph inputs (and constants) and has outputs `o0`, `o1` (, ...) */
  recipe: string;
  /** the interpreter can run it: check the chained parts against the source */
  runnable: boolean;
}

/**
 * Every case has the same shape around the multi-output operator X (opcode `X=npu`, `ADD=npu`,
 * everything else on the default `cpu`):
 *
 *   X(graph inputs)      -> o0, o1        npu
 *   add = ADD(o0, ifm2)                   npu   reads an Out of X and a graph input
 *   low = <cpu op>(o1)                    cpu   reads the other Out of X
 *   ofm = SUB(add, low)                   cpu
 */
function caseRecipe(head: string[], x: string, tail: { low: string; lowOperands: string[]; ifm2: string; sub: string[] }, graphs = '', inputs: string[] = ['ifm1']): string {
  return [graphs, ...head, tail.ifm2, ...tail.lowOperands, x, operation('Add', ['o0', 'ifm2'], ['add']), tail.low, operation('Sub', tail.sub, ['ofm']), ...inputs.map((i) => `input: "${i}"`), 'input: "ifm2"', 'output: "ofm"'].join('\n');
}

const floatTail = (dims: number[], o1Dims = dims) => ({
  ifm2: operand('ifm2', 'FLOAT32', dims),
  lowOperands: [operand('two', 'FLOAT32', [1], [2]), operand('add', 'FLOAT32', dims), operand('low', 'FLOAT32', o1Dims), operand('ofm', 'FLOAT32', dims)],
  low: operation('Mul', ['o1', 'two'], ['low']),
  sub: ['add', 'low'],
});

/** the second output is int32: CAST it to float on cpu */
const castTail = (dims: number[], o1Dims: number[]) => ({
  ifm2: operand('ifm2', 'FLOAT32', dims),
  lowOperands: [operand('add', 'FLOAT32', dims), operand('low', 'FLOAT32', o1Dims), operand('ofm', 'FLOAT32', dims)],
  low: operation('Cast', ['o1'], ['low'], 'cast_options { in_data_type: INT32 out_data_type: FLOAT32 }'),
  sub: ['add', 'low'],
});

const BRANCH = (name: string, op: string, c: number) =>
  `graph { ${operand('x', 'FLOAT32', [4])} ${operand('c', 'FLOAT32', [1], [c])} ${operand('a', 'FLOAT32', [4])} ${operand('b', 'FLOAT32', [4])} ` +
  `${operation(op, ['x', 'c'], ['a'])} ${operation('Mul', ['x', 'c'], ['b'])} input: "x" output: "a" output: "b" name: "${name}" }`;

const CASES: Case[] = [
  {
    opcode: 'SPLIT',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [2, 4]), operand('dim', 'INT32', [], [0]), operand('o0', 'FLOAT32', [1, 4]), operand('o1', 'FLOAT32', [1, 4])],
      operation('Split', ['dim', 'ifm1'], ['o0', 'o1'], 'split_options { num_splits: 2 }'),
      floatTail([1, 4]),
    ),
    runnable: true,
  },
  {
    opcode: 'SPLIT_V',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [2, 4]), operand('sizes', 'INT32', [2], [1, 1]), operand('dim', 'INT32', [], [0]), operand('o0', 'FLOAT32', [1, 4]), operand('o1', 'FLOAT32', [1, 4])],
      operation('SplitV', ['ifm1', 'sizes', 'dim'], ['o0', 'o1'], 'split_v_options { num_splits: 2 }'),
      floatTail([1, 4]),
    ),
    runnable: true,
  },
  {
    opcode: 'UNPACK',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [2, 4]), operand('o0', 'FLOAT32', [4]), operand('o1', 'FLOAT32', [4])],
      operation('Unpack', ['ifm1'], ['o0', 'o1'], 'unpack_options { num: 2 axis: 0 }'),
      floatTail([4]),
    ),
    runnable: true,
  },
  {
    opcode: 'TOPK_V2',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [4]), operand('k', 'INT32', [], [2]), operand('o0', 'FLOAT32', [2]), operand('o1', 'INT32', [2])],
      operation('TopKV2', ['ifm1', 'k'], ['o0', 'o1']),
      castTail([2], [2]),
    ),
    runnable: false,
  },
  {
    opcode: 'UNIQUE',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [4]), operand('o0', 'FLOAT32', [4]), operand('o1', 'INT32', [4])],
      operation('Unique', ['ifm1'], ['o0', 'o1'], 'unique_options { idx_out_type: INT32 }'),
      castTail([4], [4]),
    ),
    runnable: false,
  },
  {
    opcode: 'NON_MAX_SUPPRESSION_V4',
    recipe: caseRecipe(
      [
        operand('boxes', 'FLOAT32', [6, 4]),
        operand('ifm1', 'FLOAT32', [6]),
        operand('max', 'INT32', [], [3]),
        operand('iou', 'FLOAT32', [], [0.5]),
        operand('score', 'FLOAT32', [], [0.1]),
        operand('o0', 'INT32', [3]),
        operand('o1', 'INT32', []),
      ],
      operation('NonMaxSuppressionV4', ['boxes', 'ifm1', 'max', 'iou', 'score'], ['o0', 'o1']),
      {
        ifm2: operand('ifm2', 'INT32', [3]),
        lowOperands: [operand('two', 'INT32', [], [2]), operand('add', 'INT32', [3]), operand('low', 'INT32', []), operand('ofm', 'INT32', [3])],
        low: operation('Mul', ['o1', 'two'], ['low']),
        sub: ['add', 'low'],
      },
      '',
      ['boxes', 'ifm1'],
    ),
    runnable: false,
  },
  {
    // three outputs; the first (selected_indices) is used by nobody and is no part output
    opcode: 'NON_MAX_SUPPRESSION_V5',
    recipe: caseRecipe(
      [
        operand('boxes', 'FLOAT32', [6, 4]),
        operand('ifm1', 'FLOAT32', [6]),
        operand('max', 'INT32', [], [3]),
        operand('iou', 'FLOAT32', [], [0.5]),
        operand('score', 'FLOAT32', [], [0.1]),
        operand('sigma', 'FLOAT32', [], [0]),
        operand('selected', 'INT32', [3]),
        operand('o0', 'FLOAT32', [3]),
        operand('o1', 'INT32', []),
      ],
      operation('NonMaxSuppressionV5', ['boxes', 'ifm1', 'max', 'iou', 'score', 'sigma'], ['selected', 'o0', 'o1']),
      castTail([3], []),
      '',
      ['boxes', 'ifm1'],
    ),
    runnable: false,
  },
  {
    opcode: 'CUSTOM',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [4]), operand('o0', 'FLOAT32', [4]), operand('o1', 'FLOAT32', [4])],
      'operation { type: "Custom" custom_code: "MyTwoOutputs" input: "ifm1" output: "o0" output: "o1" }',
      floatTail([4]),
    ),
    runnable: false,
  },
  {
    // IF reads two graph inputs (cond, ifm1): it has no producer PGroup itself
    opcode: 'IF',
    recipe: caseRecipe(
      [operand('cond', 'BOOL', [1]), operand('ifm1', 'FLOAT32', [4]), operand('o0', 'FLOAT32', [4]), operand('o1', 'FLOAT32', [4])],
      operation('If', ['cond', 'ifm1'], ['o0', 'o1'], 'if_options { then_subgraph_index: 1 else_subgraph_index: 2 }'),
      floatTail([4]),
      `${BRANCH('THEN', 'Add', 1)}\n${BRANCH('ELSE', 'Sub', 3)}`,
      ['cond', 'ifm1'],
    ),
    runnable: true,
  },
  {
    opcode: 'WHILE',
    recipe: caseRecipe(
      [operand('ifm1', 'FLOAT32', [4]), operand('ifm0', 'FLOAT32', [1]), operand('o1', 'FLOAT32', [1]), operand('o0', 'FLOAT32', [4])],
      operation('While', ['ifm0', 'ifm1'], ['o1', 'o0'], 'while_options { cond_subgraph_index: 1 body_subgraph_index: 2 }'),
      floatTail([4], [1]),
      [
        `graph { ${operand('i', 'FLOAT32', [1])} ${operand('x', 'FLOAT32', [4])} ${operand('ten', 'FLOAT32', [1], [3])} ${operand('go', 'BOOL', [1])} ` +
          `${operation('Less', ['i', 'ten'], ['go'])} input: "i" input: "x" output: "go" name: "COND" }`,
        `graph { ${operand('i', 'FLOAT32', [1])} ${operand('x', 'FLOAT32', [4])} ${operand('one', 'FLOAT32', [1], [1])} ${operand('j', 'FLOAT32', [1])} ${operand('y', 'FLOAT32', [4])} ` +
          `${operation('Add', ['i', 'one'], ['j'])} ${operation('Mul', ['x', 'one'], ['y'])} input: "i" input: "x" output: "j" output: "y" name: "BODY" }`,
      ].join('\n'),
      ['ifm0', 'ifm1'],
    ),
    runnable: true,
  },
];

function planOf(model: CircleModel, text: string, file = 'model.circle'): PartitionPlan {
  const prepared = preparePartition(model, file);
  const parsed = parsePart(text, 'x.part', { model: prepared });
  expect(parsed.table, JSON.stringify(parsed.diagnostics)).not.toBeNull();
  return partition(prepared, parsed.table!);
}

/** `backend{node, node}` per part, node = first output tensor name of the operator */
function summary(model: CircleModel, p: PartitionPlan): string[] {
  const g = model.subgraphs[0]!;
  return p.parts.map((x) => `${x.backend}{${x.operators.map((op) => g.tensors[g.operators[op]!.outputs[0]!]!.name).join(', ')}}`);
}

describe('a multi-output operator on npu (default cpu) whose output meets a graph input in an npu ADD', () => {
  for (const c of CASES) {
    it(`${c.opcode}: 3 parts, the ADD merged into the ${c.opcode} part`, () => {
      const model = buildFromRecipe(c.recipe, `${c.opcode}.recipe`);
      const p = planOf(model, part(`${c.opcode}=npu\nADD=npu`));
      // ONE: the ADD's inputs o0 (an Out node) and ifm2 (a graph input) both have group_of =
      // default, and only o0 is in a PGroup (X's), whose group is npu like the ADD's: merged.
      // The cpu op reading o1 cannot merge into the npu PGroup; SUB reads `add` (group npu) and
      // `low` (group cpu): different groups, not merged. (Before this rule we made 4 parts.)
      // The first output of X is the op's node name (GraphBuilderMultiOutput names it after output 0).
      const first = model.subgraphs[0]!.tensors[model.subgraphs[0]!.operators[0]!.outputs[0]!]!.name;
      expect(summary(model, p)).toEqual([`npu{${first}, add}`, 'cpu{low}', 'cpu{ofm}']);
      // o0 is used only inside the part: cleanup drops it from the outputs; an unused Out (NMS V5's
      // selected_indices) is dropped too
      const inputs = model.subgraphs[0]!.inputs.map((t) => model.subgraphs[0]!.tensors[t]!.name).filter((n) => n !== 'ifm2');
      expect(p.parts.map((x) => [x.fileName, x.inputs, x.outputs])).toEqual([
        ['model.00001_npu.circle', [...inputs, 'ifm2'], ['o1', 'add']],
        ['model.00002_cpu.circle', ['o1'], ['low']],
        ['model.00003_cpu.circle', ['add', 'low'], ['ofm']],
      ]);
    });
  }

  for (const c of CASES.filter((x) => x.runnable)) {
    it(`${c.opcode}: the chained parts, read back from their bytes, compute what the source does`, () => {
      const model = buildFromRecipe(c.recipe, `${c.opcode}.recipe`);
      const prepared = preparePartition(model, 'model.circle');
      const plan = partition(prepared, parsePart(part(`${c.opcode}=npu\nADD=npu`), 'x.part').table!);
      const files = writePartition(prepared, plan).files;
      const conn = readConnJson(new TextDecoder().decode(files.find((f) => f.name.endsWith('.conn.json'))!.bytes));
      const parts: CheckPart[] = conn.parts.map((x) => ({ ...x, model: read(files.find((f) => f.name === x.file)!.bytes, x.file) }));
      const result = checkPartition(model, parts, { seed: 3 });
      expect(result.problem).toBeUndefined();
      expect(result.outputs.map((o) => `${o.name}:${o.ok}`)).toEqual(['ofm:true']);
    });
  }

  it('the same models with the multi-output operator on the default backend: X, ADD and the cpu op merge as before', () => {
    for (const c of CASES) {
      const model = buildFromRecipe(c.recipe, `${c.opcode}.recipe`);
      const p = planOf(model, part('ADD=npu'));
      // X is cpu now: the npu ADD stays alone; `low` (cpu, reads only o1: one PGroup) merges
      // into X; SUB reads add (npu) and low (cpu): not merged
      const first = model.subgraphs[0]!.tensors[model.subgraphs[0]!.operators[0]!.outputs[0]!]!.name;
      expect(summary(model, p), c.opcode).toEqual([`cpu{${first}, low}`, 'npu{add}', 'cpu{ofm}']);
    }
  });
});

describe('an npu operator reading an Out node and a plain output of the same npu PGroup is not merged', () => {
  // default cpu: m = MUL(ifm1) npu; X(m) npu merges into m's PGroup (its only input m has group
  // npu); y = ADD(o0, m) npu: o0 has group_of default (cpu), m has npu -> is_input_same fails,
  // although both come from the same npu PGroup. ONE: 2 npu parts.
  it('Split', () => {
    const recipe = [
      operand('ifm1', 'FLOAT32', [2, 4]),
      operand('two', 'FLOAT32', [1], [2]),
      operand('dim', 'INT32', [], [0]),
      operand('m', 'FLOAT32', [2, 4]),
      operand('o0', 'FLOAT32', [1, 4]),
      operand('o1', 'FLOAT32', [1, 4]),
      operand('y', 'FLOAT32', [2, 4]),
      operation('Mul', ['ifm1', 'two'], ['m']),
      operation('Split', ['dim', 'm'], ['o0', 'o1'], 'split_options { num_splits: 2 }'),
      operation('Add', ['o0', 'm'], ['y']),
      'input: "ifm1"',
      'output: "y"',
      'output: "o1"',
    ].join('\n');
    const model = buildFromRecipe(recipe, 'split.recipe');
    const p = planOf(model, part('MUL=npu\nSPLIT=npu\nADD=npu'));
    expect(summary(model, p)).toEqual(['npu{m, o0}', 'npu{y}']);
    expect(p.parts.map((x) => [x.inputs, x.outputs])).toEqual([
      [['ifm1'], ['m', 'o0', 'o1']],
      [['o0', 'm'], ['y']],
    ]);
  });

  it('a Custom operator with one output (luci gives every custom op CircleCustomOut nodes)', () => {
    const recipe = [
      operand('ifm1', 'FLOAT32', [4]),
      operand('two', 'FLOAT32', [1], [2]),
      operand('m', 'FLOAT32', [4]),
      operand('c', 'FLOAT32', [4]),
      operand('y', 'FLOAT32', [4]),
      operation('Mul', ['ifm1', 'two'], ['m']),
      'operation { type: "Custom" custom_code: "MyOp" input: "m" output: "c" }',
      operation('Add', ['c', 'm'], ['y']),
      'input: "ifm1"',
      'output: "y"',
    ].join('\n');
    const model = buildFromRecipe(recipe, 'custom.recipe');
    expect(summary(model, planOf(model, part('MUL=npu\nCUSTOM=npu\nADD=npu')))).toEqual(['npu{m, c}', 'npu{y}']);
    // on the default backend every group_of is cpu: one part
    expect(summary(model, planOf(model, part('')))).toEqual(['cpu{m, c, y}']);
  });
});

describe('the Part_Split_Add_000 recipe (ONE) with our .part files', () => {
  const model = buildFromRecipe(readFileSync('test/fixtures/one/recipes/Part_Split_Add_000/test.recipe', 'utf8'), 'Part_Split_Add_000.recipe');
  it('SPLIT and ADD on the non-default backend: one part (ADD reads two Outs of the Split, both group_of default)', () => {
    expect(summary(model, planOf(model, part('SPLIT=npu\nADD=npu')))).toEqual(['npu{split1, ofm}']);
  });
});

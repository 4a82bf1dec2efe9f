import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import type { CliIO } from './io';
import { buildFromRecipe } from '../core/chef';
import { write } from '../core/circle/write';
import { PASS_NAMES } from '../core/optimize';

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
  };
  return io;
}

async function run(...argv: string[]) {
  const io = capture();
  const code = await main(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

const COMMANDS = ['inspect', 'chef', 'partition', 'optimize', 'systrace'];

describe('npu-studio (dispatch)', () => {
  it('a folder given for a file is refused by name (exit 1, no stack), by every command that reads one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'npu-folder-'));
    try {
      const cases: string[][] = [
        ['inspect', dir],
        ['systrace', dir],
        ['chef', dir, join(dir, 'out.circle')],
        ['optimize', dir, join(dir, 'out.circle'), '--passes', PASS_NAMES[0]!],
        ['diff-loadable', dir, dir],
        ['run-loadable', dir],
        ['run', dir, '--caffemodel', dir, '--out', join(dir, 'o.npz')],
        ['compile', '--prototxt', dir, '--caffemodel', dir, '--out', join(dir, 'o.nvdla')],
        ['partition', '--part_file', dir, '--input_file', dir],
      ];
      for (const argv of cases) {
        const r = await run(...argv);
        expect(r.err, argv.join(' ')).toBe(`npu-studio ${argv[0]}: ${dir}: a folder, not a file\n`);
        expect(r.code, argv.join(' ')).toBe(1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help and -h print the command list on stdout and exit 0; no command is a usage error on stderr', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await run(flag);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out.split('\n')[0]).toBe('usage: npu-studio <command> [options]');
      for (const c of COMMANDS) expect(r.out).toContain(`\n  ${c} `);
    }
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.out).toBe('');
    expect(none.err).toBe((await run('--help')).out);
  });

  it('an unknown command exits 2 naming it', async () => {
    const r = await run('frobnicate', 'x');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^npu-studio: unknown command 'frobnicate'\nusage: npu-studio <command>/);
  });

  it('COMMAND --help prints that command\'s usage on stdout and exits 0, whatever else is given', async () => {
    const usages: string[] = [];
    for (const c of COMMANDS) {
      const r = await run(c, '--no-such-option', '--help');
      expect({ c, code: r.code, err: r.err }).toEqual({ c, code: 0, err: '' });
      expect(r.out.startsWith(`usage: npu-studio ${c} `)).toBe(true);
      usages.push(r.out);
    }
    expect(new Set(usages).size).toBe(COMMANDS.length);
  });
});

describe('usage errors: exit 2, the command and the problem on the first line, its usage after', () => {
  // [argv, first line of stderr]
  const cases: [string[], string][] = [
    [['chef', 'a.recipe', 'b.circle', '--force'], 'npu-studio chef: unknown option --force'],
    [['chef', 'a.recipe', '-o', 'b.circle'], 'npu-studio chef: unknown option -o'],
    [['chef', 'a.recipe'], 'npu-studio chef: needs a recipe and an output file'],
    [['optimize', 'a.circle', 'b.circle', '--passes'], 'npu-studio optimize: option --passes needs a value'],
    [
      ['optimize', 'a.circle', 'b.circle', '--passes', '--no-origins'],
      "npu-studio optimize: option --passes needs a value, not the option --no-origins (a value that starts with '-' is written --passes=--no-origins)",
    ],
    [['optimize', 'a.circle', 'b.circle', '--passes=fold_constants', '--no-origins=yes'], 'npu-studio optimize: option --no-origins takes no value'],
    [['optimize', 'a.circle', 'b.circle', '--passes', 'nope'], `npu-studio optimize: unknown pass nope (known passes: ${PASS_NAMES.join(', ')})`],
    [['systrace', 'trace.html', '--total_times'], 'npu-studio systrace: unknown option --total_times'],
    [['systrace', 'trace.html', '--json=1'], 'npu-studio systrace: option --json takes no value'],
    [['systrace'], 'npu-studio systrace: the TRACE file is missing'],
    [['partition', '--part_file'], 'npu-studio partition: option --part_file needs a value'],
    [['partition', '--part-file', 'x.part', '--input_file', 'x.circle'], 'npu-studio partition: unknown option --part-file'],
    [['partition', '--part_file', 'x.part'], 'npu-studio partition: --input_file is required'],
    [['partition', '--part_file', 'x.part', '--input_file', 'x.circle', 'extra'], 'npu-studio partition: unexpected argument extra'],
    [['partition', 'x.part', 'x.circle'], 'npu-studio partition: needs --part_file and --input_file (or the positional form: PART CIRCLE DIR)'],
    [['partition', '--part_file=x.part', '--input_file=x.circle', '--seed', 'one'], 'npu-studio partition: --seed needs an integer'],
    [['inspect', 'a.circle', '--origins=all'], 'npu-studio inspect: option --origins takes no value'],
  ];
  it.each(cases)('%j', async (argv, first) => {
    const r = await run(...argv);
    const name = argv[0]!;
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = r.err.split('\n');
    expect(lines[0]).toBe(first);
    expect(lines[1]).toMatch(new RegExp(`^usage: npu-studio ${name} `));
  });
});

describe('option spellings the README documents are all accepted', () => {
  it("partition: circle-partitioner's --name value and --name=value forms and its older positional form write the same files", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-main-'));
    try {
      const recipe = readFileSync('test/fixtures/one/recipes/Part_While_000/test.recipe', 'utf8');
      const part = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMAXIMUM=npu\n';
      const forms = {
        spaced: ['--part_file', 'w.part', '--input_file', 'w.circle', '--work_path', '@'],
        equals: ['--part_file=w.part', '--input_file=w.circle', '--work_path=@'],
        positional: ['w.part', 'w.circle', '@'],
        // `--` ends the options: what follows is positional even when it looks like one
        terminated: ['--', 'w.part', 'w.circle', '@'],
      };
      const written: Record<string, string[]> = {};
      for (const [form, args] of Object.entries(forms)) {
        const work = join(dir, form);
        mkdirSync(work);
        writeFileSync(join(work, 'w.circle'), write(buildFromRecipe(recipe, 'w')));
        writeFileSync(join(work, 'w.part'), part);
        const r = await run('partition', ...args.map((a) => a.replace('@', work)));
        expect({ form, code: r.code, err: r.err }).toEqual({ form, code: 0, err: '' });
        written[form] = readdirSync(work).sort();
      }
      expect(written.equals).toEqual(written.spaced);
      expect(written.positional).toEqual(written.spaced);
      expect(written.terminated).toEqual(written.spaced);
      expect(written.spaced).toContain('w.conn.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('partition --version prints the compatibility line (circle-partitioner has --version)', async () => {
    const r = await run('partition', '--version');
    expect(r).toEqual({ code: 0, out: 'npu-studio partition (circle-partitioner compatible)\n', err: '' });
  });
});

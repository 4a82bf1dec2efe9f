import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFromRecipe } from '../chef';
import { read } from './read';
import { write } from './write';
import { summarize, toGraph, toGraphPack } from './graph';
import { packGraph } from '../graph/pack';
import { packContents } from '../graph/pack.test-util';
import { operatorType } from './names';
import { comparable } from './testing';

const root = join(__dirname, '..', '..', '..');
const recipesDir = join(root, 'test', 'fixtures', 'one', 'recipes');
const schema = join(root, 'schemas', 'circle_schema.fbs');
const recipes = existsSync(recipesDir) ? readdirSync(recipesDir).filter((n) => existsSync(join(recipesDir, n, 'test.recipe'))) : [];
const flatc = ['/usr/bin/flatc', '/usr/local/bin/flatc'].find((p) => existsSync(p));

/** chef output per recipe, built once (one recipe fills 26 MB of weights). */
const builtCache = new Map<string, ReturnType<typeof buildFromRecipe>>();
function build(name: string) {
  let m = builtCache.get(name);
  if (!m) {
    m = buildFromRecipe(readFileSync(join(recipesDir, name, 'test.recipe'), 'utf8'), `${name}/test.recipe`);
    builtCache.set(name, m);
  }
  return m;
}

describe('every ONE recipe', () => {
  it('has the fixture recipes', () => {
    expect(recipes.length).toBeGreaterThanOrEqual(25);
  });

  it.each(recipes)('%s: chef -> write -> read -> write -> read is deep-equal, graphs are consistent', { timeout: 30_000 }, (name) => {
    const built = build(name);
    const bytes = write(built);
    const first = read(bytes, `${name}.circle`);
    const second = read(write(first), `${name}.circle`);
    expect(comparable(second)).toEqual(comparable(first));
    // what chef built is what we read (op types, tensor names)
    expect(first.subgraphs.map((sg) => sg.tensors.map((t) => t.name))).toEqual(built.subgraphs.map((sg) => sg.tensors.map((t) => t.name)));
    expect(first.subgraphs.map((sg) => sg.operators.map((op) => operatorType(first, op.opcodeIndex)))).toEqual(
      built.subgraphs.map((sg) => sg.operators.map((op) => operatorType(built, op.opcodeIndex))),
    );
    const summary = summarize(first, `${name}.circle`);
    first.subgraphs.forEach((sg, i) => {
      const g = toGraph(first, i);
      expect(g.stats).toEqual(summary.graphs[i]!.stats);
      expect(g.stats.nodes).toBe(sg.operators.length);
      expect(g.stats.edges).toBe(g.edges.length);
      for (const e of g.edges) {
        expect(g.nodes[e.from]).toBeDefined();
        expect(g.nodes[e.to]).toBeDefined();
      }
      for (const n of g.nodes) if (n.kind === 'op') expect(n.type).not.toMatch(/^Unknown/);
      // the view's pack, written straight from the model, says what the Graph's pack says
      expect(packContents(toGraphPack(first, i))).toEqual(packContents(packGraph(g)));
    });
  });

  it('recipe-built models are decoded by flatc --json', (ctx) => {
    if (!flatc) {
      ctx.skip('flatc is not installed (apt-get install flatbuffers-compiler); skipping the flatc decode check');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'circle-recipes-'));
    try {
      const files: string[] = [];
      for (const name of recipes) {
        const bytes = write(build(name));
        // flatc prints weights as JSON numbers: keep the check to the models of reasonable size
        if (bytes.length > 4 << 20) continue;
        const file = join(dir, `${name}.circle`);
        writeFileSync(file, bytes);
        files.push(file);
      }
      expect(files.length).toBeGreaterThanOrEqual(recipes.length - 2);
      execFileSync(flatc, ['--json', '--raw-binary', '--strict-json', '-o', dir, schema, '--', ...files], { stdio: 'pipe' });
      for (const f of files) expect(existsSync(f.replace(/\.circle$/, '.json'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * `npu-studio chef RECIPE OUT.circle`: builds a circle model from a ONE recipe (tflchef text
 * format) with core's chef and writes it with core's circle writer.
 */
import { writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { cookRecipe } from '../core/chef';
import { describeError } from '../core/errors';
import { write } from '../core/circle/write';
import type { Command } from './command';
import { EXIT_OK, UsageError, parseOptions } from './io';

export const chefCommand: Command = {
  name: 'chef',
  usage: 'npu-studio chef RECIPE OUT.circle',
  async run(argv, io) {
    const { positionals } = parseOptions(argv, {});
    if (positionals.length !== 2) throw new UsageError(positionals.length < 2 ? 'needs a recipe and an output file' : 'takes exactly two files');
    const [recipe, out] = positionals as [string, string];
    const text = readInput(recipe, 'utf8');
    const { model, diagnostics } = cookRecipe(text, recipe);
    for (const d of diagnostics) io.err(`npu-studio chef: ${d.severity}: ${describeError({ ...d, kind: 'semantic' })}\n`);
    const bytes = write(model);
    writeFileSync(out, bytes);
    const ops = model.subgraphs.reduce((a, g) => a + g.operators.length, 0);
    const tensors = model.subgraphs.reduce((a, g) => a + g.tensors.length, 0);
    io.out(`${out}: ${bytes.length} bytes, ${model.subgraphs.length} subgraph(s), ${ops} operator(s), ${tensors} tensor(s)\n`);
    return EXIT_OK;
  },
};

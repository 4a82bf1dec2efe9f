#!/usr/bin/env -S npx tsx
/**
 * Regenerates src/core/kernels/generated/kernels-wasm.ts (the kernel module's bytes, base64) and
 * kernels.wat (its text, for reading) from src/core/kernels/wat/*.ts, assembling with wabt.
 * The outputs are committed; run `npx tsx scripts/gen-kernels.ts` after changing the text.
 * `test/kernels-generated.test.ts` fails when the committed bytes are out of date (the assembly
 * itself is scripts/kernels-assemble.ts: it uses Node and wabt, so it stays out of core).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleKernelModules } from './kernels-assemble';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src/core/kernels/generated');
const { ts, wat } = await assembleKernelModules();
writeFileSync(join(out, 'kernels-wasm.ts'), ts);
writeFileSync(join(out, 'kernels.wat'), wat);
console.log('generated: src/core/kernels/generated/kernels-wasm.ts, kernels.wat');

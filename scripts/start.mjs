#!/usr/bin/env node
// `npm start`: makes the bundled samples (from the recipes in test/fixtures) and starts the
// studio on localhost with a sample model already open.
import { spawn, spawnSync } from 'node:child_process';

const sample = process.env.NPU_STUDIO_SAMPLE || 'resnet_like_1000.circle';
const port = process.env.PORT || '5173';

const made = spawnSync('node', ['scripts/make-samples.mjs'], { stdio: 'inherit' });
if (made.status !== 0) process.exit(made.status ?? 1);

console.log(`\nNPU Studio: http://localhost:${port}/?sample=${sample}\n`);
const vite = spawn('npx', ['vite', '--port', port, '--host', '127.0.0.1'], {
  stdio: 'inherit',
  env: { ...process.env, NPU_STUDIO_SAMPLE: sample },
});
vite.on('exit', (code) => process.exit(code ?? 0));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => vite.kill(sig));

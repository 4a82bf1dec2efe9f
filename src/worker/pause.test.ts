import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pause } from './pause';

describe('pause', () => {
  it('resolves in a later task, after the microtasks already queued, in the order asked', async () => {
    const order: string[] = [];
    const paused = Promise.all(
      [0, 1, 2].map(async (i) => {
        await pause();
        order.push(`a${i}`);
        await pause();
        order.push(`b${i}`);
      }),
    );
    void Promise.resolve().then(() => order.push('microtask'));
    await paused;
    expect(order).toEqual(['microtask', 'a0', 'a1', 'a2', 'b0', 'b1', 'b2']);
  });

  it('a waiting pause keeps a Node process alive until it resolves, and an idle one does not keep it', () => {
    // the module's one channel is held only while a pause waits: without that the process below
    // would end with its top-level await unsettled (exit 13), or never end
    const url = pathToFileURL(join(__dirname, 'pause.ts')).href;
    const script = `const { pause } = await import(${JSON.stringify(url)}); for (let i = 0; i < 3; i++) await pause(); console.log('resumed');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: r.status, out: r.stdout.trim(), timedOut: r.error !== undefined }).toEqual({ status: 0, out: 'resumed', timedOut: false });
  });
});

import { describe, expect, it } from 'vitest';
import { untilCrash } from './workers';

describe('model worker calls across a crash', () => {
  it('a call the dead worker never answers rejects with the crash; answered calls are untouched', async () => {
    let crash!: (e: Error) => void;
    const crashed = new Promise<never>((_, reject) => {
      crash = reject;
    });
    crashed.catch(() => {});
    const remote = {
      answer: (x: number) => Promise.resolve(x * 2),
      never: () => new Promise<number>(() => {}),
      name: 'model',
    };
    const api = untilCrash(remote, crashed);
    await expect(api.answer(21)).resolves.toBe(42);
    expect(api.name).toBe('model');
    const pending = api.never();
    crash(new Error('the model worker stopped (simulated crash) before it answered'));
    await expect(pending).rejects.toThrow('before it answered');
    // a call made after the crash on the old worker's api fails at once too
    await expect(api.never()).rejects.toThrow('before it answered');
  });
});

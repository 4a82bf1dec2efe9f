import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    pool: 'threads',
    // one worker per core: Vitest's default outside watch mode is cores - 1, a single worker on the
    // 2-core CI machine (unit stage 308 s there; 176 s with two, the same tests passing)
    maxWorkers: '100%',
  },
});

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDocument } from '../document';
import { FormatError } from '../errors';
import { binaryOffset } from './document';

describe('systrace document', () => {
  it('refuses a binary file named .trace.txt with the byte that shows it, instead of an empty profile', async () => {
    const bytes = new Uint8Array(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 73 + 11) & 255;
    const err = await openDocument([{ name: 'capture.trace.txt', bytes }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormatError);
    expect((err as FormatError).info).toMatchObject({ kind: 'unsupported', file: 'capture.trace.txt' });
    expect((err as FormatError).info.message).toMatch(/binary file .* not a systrace capture/);
    expect(binaryOffset(new TextEncoder().encode('# tracer: nop\n\x1b[0m ok\n'))).toBe(-1);
    expect(binaryOffset(new Uint8Array([0x23, 0x20, 0x00]))).toBe(2);
  });

  it('every text capture of the fixtures still opens', async () => {
    const dir = 'test/fixtures/systrace';
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(txt|html)$/.test(f) && !/README|SOURCE/.test(f));
    expect(files.length).toBeGreaterThan(0);
    const refused: string[] = [];
    for (const f of files) {
      const bytes = new Uint8Array(readFileSync(join(dir, f)));
      if (binaryOffset(bytes) >= 0) refused.push(f);
    }
    expect(refused).toEqual([]);
  });
});

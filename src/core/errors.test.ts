import { describe, expect, it } from 'vitest';
import { describeError, FormatError, toErrorInfo } from './errors';

describe('toErrorInfo keeps the kind of an error', () => {
  it('a FormatError speaks about the file, with its place', () => {
    const info = toErrorInfo(new FormatError({ kind: 'truncated', file: 'm.circle', offset: 12, message: 'the file ends inside a table' }), 'other');
    expect(info).toEqual({ kind: 'truncated', file: 'm.circle', offset: 12, message: 'the file ends inside a table' });
  });

  it('anything else thrown is internal and says so, whatever its class (a RangeError is not a corrupt file)', () => {
    const thrown: unknown[] = [new RangeError('offset is outside the bounds of the DataView'), new TypeError("reading 'shape' of undefined"), new Error('pass broke'), 'a string'];
    const kinds = thrown.map((e) => toErrorInfo(e, 'm.circle'));
    expect(kinds.filter((i) => i.kind !== 'internal' || !i.message.startsWith('internal error in NPU Studio, not a problem with the file'))).toEqual([]);
    expect(kinds[0]!.message).toContain('RangeError: offset is outside the bounds of the DataView');
    expect(kinds[2]!.message).toMatch(/: pass broke$/);
    expect(describeError(kinds[1]!)).toMatch(/^m\.circle: internal error in NPU Studio/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { parseCalibrationTable, scaleOfRange } from './table';

const fixture = join(__dirname, '../../../../test/fixtures/nvdla/golden/lenet_calib_example.json');

describe('calibration table', () => {
  it('reads the LeNet example: scale means [-127 s, 127 s], so the tensor scale is s again', () => {
    const t = parseCalibrationTable(readFileSync(fixture, 'utf8'), 'lenet_calib_example.json');
    expect(Object.keys(t.entries)).toEqual(['data', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
    for (const e of Object.values(t.entries)) {
      expect(e.scale).not.toBeNull();
      expect(scaleOfRange(e.min, e.max)).toBe(Math.fround(Math.fround(e.scale! * 127) / 127));
    }
  });

  it('min/max entries give max(|min|,|max|)/127 in float32', () => {
    const t = parseCalibrationTable('{"x": {"min": -3, "max": 1.5}}', 'c.json');
    expect(t.entries.x).toEqual({ scale: null, min: -3, max: 1.5 });
    expect(scaleOfRange(-3, 1.5)).toBe(Math.fround(3 / 127));
  });

  it('says what is wrong, with the place', () => {
    const err = (text: string) => {
      try {
        parseCalibrationTable(text, 'c.json');
      } catch (e) {
        expect(e).toBeInstanceOf(FormatError);
        return (e as FormatError).info;
      }
      throw new Error('no error');
    };
    expect(err('{"a": {"offset": 0}}').message).toContain("'a'");
    expect(err('[1]').kind).toBe('semantic');
    expect(err('{"a": {"scale": "x"}}').path).toBe('a.scale');
    const syntax = err('{\n "a": {"scale": 1,}\n}');
    expect(syntax.kind).toBe('syntax');
    expect(syntax.line).toBe(2);
  });

  it('any text gives a table or a FormatError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          parseCalibrationTable(text, 'c.json');
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
        }
      }),
    );
  });
});

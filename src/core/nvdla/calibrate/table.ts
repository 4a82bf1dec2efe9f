/**
 * The `--calibtable` JSON of nvdla_compiler (nvdla.md section 8.1; `ParseTest.cpp`
 * `parseTensorScales`): an object keyed by network input tensor names and Caffe layer names,
 * each value holding `scale`, or `min` and `max`. A scale s means the range [-127 s, 127 s].
 */
import { FormatError } from '../../errors';

export interface CalibrationEntry {
  /** as written (`scale`, else null) */
  scale: number | null;
  min: number;
  max: number;
}

export interface CalibrationTable {
  file: string;
  entries: Record<string, CalibrationEntry>;
}

const f32 = Math.fround;

function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse a calibration table; numbers are read as float32 (rapidjson `GetFloat`). */
export function parseCalibrationTable(text: string, file: string): CalibrationTable {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(message);
    const at = m ? lineColumnOf(text, Number(m[1])) : {};
    throw new FormatError({ kind: 'syntax', file, ...at, message: `the calibration table is not valid JSON (${message})` });
  }
  if (!isRecord(doc)) {
    throw new FormatError({ kind: 'semantic', file, message: 'a calibration table is a JSON object keyed by tensor and layer names' });
  }
  const entries: Record<string, CalibrationEntry> = {};
  for (const [name, value] of Object.entries(doc)) {
    if (!isRecord(value)) {
      throw new FormatError({ kind: 'semantic', file, path: name, message: `the entry for '${name}' is not an object with "scale" or "min"/"max"` });
    }
    const num = (k: string): number | null => {
      const v = value[k];
      if (v === undefined) return null;
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new FormatError({ kind: 'semantic', file, path: `${name}.${k}`, message: `"${k}" of '${name}' is not a finite number` });
      }
      return f32(v);
    };
    const scale = num('scale');
    const min = num('min');
    const max = num('max');
    if (scale !== null) entries[name] = { scale, min: f32(scale * -127), max: f32(scale * 127) };
    else if (min !== null && max !== null) entries[name] = { scale: null, min, max };
    else {
      // upstream: "Atleast 1 of scale or min-max should be specified for <name>"
      throw new FormatError({ kind: 'semantic', file, path: name, message: `at least one of "scale" or "min" and "max" must be given for '${name}'` });
    }
  }
  return { file, entries };
}

/**
 * `Tensor::setChannelDynamicRange(-1, min, max)`: the per-channel scale max(|min|, |max|) / 127,
 * divided in double precision and stored as float32.
 */
export function scaleOfRange(min: number, max: number): number {
  return f32(Math.max(Math.abs(f32(min)), Math.abs(f32(max))) / 127);
}

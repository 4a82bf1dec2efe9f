import { describe, it, expect } from 'vitest';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseFbs } from './fbs-schema';
import { CIRCLE_SCHEMA } from './schema-table';

const root = join(__dirname, '..', '..', '..');
const schemaPath = join(root, 'schemas', 'circle_schema.fbs');
const tablePath = join(__dirname, 'schema-table.ts');

function render(): string {
  const table = parseFbs(readFileSync(schemaPath, 'utf8'));
  return [
    '// Generated from schemas/circle_schema.fbs by fbs-schema.ts (see schema-table.test.ts). Do not edit;',
    '// regenerate with: UPDATE_SCHEMA_TABLE=1 npx vitest run src/core/circle/schema-table.test.ts',
    "import type { SchemaTable } from './fbs-schema';",
    '',
    `export const CIRCLE_SCHEMA: SchemaTable = ${JSON.stringify(table)};`,
    '',
  ].join('\n');
}

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

describe('schema table', () => {
  it('is current with schemas/circle_schema.fbs', () => {
    const text = render();
    if (process.env.UPDATE_SCHEMA_TABLE) writeFileSync(tablePath, text);
    expect(readFileSync(tablePath, 'utf8')).toBe(text);
  });

  it('agrees with the slots flatc gave every field of every table', () => {
    const dir = join(__dirname, 'generated', 'circle');
    let checked = 0;
    for (const f of readdirSync(dir)) {
      const src = readFileSync(join(dir, f), 'utf8');
      const cls = /export class (\w+) \{/.exec(src)?.[1];
      if (!cls || !CIRCLE_SCHEMA.tables[cls]) continue;
      const def = CIRCLE_SCHEMA.tables[cls]!;
      const re = /static add(\w+)\(builder:flatbuffers\.Builder, \w+:[^)]*\) \{\n\s*builder\.addField\w+\((\d+),/g;
      const live = def.fields.filter((x) => !x.deprecated);
      let m: RegExpExecArray | null;
      let n = 0;
      while ((m = re.exec(src))) {
        const name = m[1]!;
        const slot = Number(m[2]);
        const field = live.find((x) => camel(x.name).toLowerCase() === name.toLowerCase());
        const typeField = live.find((x) => x.type.kind === 'union' && (camel(x.name) + 'Type').toLowerCase() === name.toLowerCase());
        if (field) expect(field.slot, `${cls}.${name}`).toBe(slot);
        else if (typeField) expect(typeField.slot - 1, `${cls}.${name}`).toBe(slot);
        else throw new Error(`no schema field for ${cls}.add${name}`);
        n++;
        checked++;
      }
      const expected = live.reduce((a, x) => a + (x.type.kind === 'union' ? 2 : 1), 0);
      expect(n, cls).toBe(expected);
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('has the circle extensions', () => {
    expect(CIRCLE_SCHEMA.enums.TensorType!.values.UINT4).toBe(-1);
    expect(CIRCLE_SCHEMA.enums.BuiltinOperator!.values.INSTANCE_NORM).toBe(-2);
    expect(CIRCLE_SCHEMA.unions.BuiltinOptions!['254']).toBe('InstanceNormOptions');
    expect(CIRCLE_SCHEMA.unions.BuiltinOptions!['248']).toBe('RunModelOptions');
    expect(CIRCLE_SCHEMA.tables.Conv2DOptions!.fields.find((f) => f.name === 'dilation_w_factor')!.default).toBe(1);
  });
});

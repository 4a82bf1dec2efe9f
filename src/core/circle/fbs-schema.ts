/**
 * A small parser for the subset of the FlatBuffers schema language that circle_schema.fbs uses
 * (enums, unions, tables; no structs, no includes). It turns the schema into `SchemaTable`, the
 * plain description that the checked reader and the generic table writer walk.
 *
 * The committed `schema-table.ts` is this parser's output for `schemas/circle_schema.fbs`;
 * `schema-table.test.ts` checks that it is current (and rewrites it with UPDATE_SCHEMA_TABLE=1).
 */

export type ScalarType = 'bool' | 'byte' | 'ubyte' | 'short' | 'ushort' | 'int' | 'uint' | 'long' | 'ulong' | 'float' | 'double';

/** One field type: a scalar, an enum over a scalar, a string, a table or a union. */
export interface SchemaFieldType {
  kind: 'scalar' | 'enum' | 'string' | 'table' | 'union';
  /** scalar base type (for scalars and enums) */
  base?: ScalarType;
  /** enum / table / union name */
  ref?: string;
}

export interface SchemaField {
  name: string;
  /** vtable slot of the value (a union's type byte sits at slot - 1) */
  slot: number;
  type: SchemaFieldType;
  vector: boolean;
  /** scalar default (enum defaults resolved to numbers) */
  default: number | boolean;
  deprecated: boolean;
}

export interface SchemaTableDef {
  name: string;
  fields: SchemaField[];
  /** number of vtable slots (deprecated fields and union type bytes included) */
  slots: number;
}

export interface SchemaTable {
  enums: Record<string, { base: ScalarType; values: Record<string, number> }>;
  /** union name -> member table names by type id (0 = NONE is absent) */
  unions: Record<string, Record<string, string>>;
  tables: Record<string, SchemaTableDef>;
}

const SCALAR_ALIASES: Record<string, ScalarType> = {
  bool: 'bool', byte: 'byte', int8: 'byte', ubyte: 'ubyte', uint8: 'ubyte', short: 'short', int16: 'short',
  ushort: 'ushort', uint16: 'ushort', int: 'int', int32: 'int', uint: 'uint', uint32: 'uint', long: 'long',
  int64: 'long', ulong: 'ulong', uint64: 'ulong', float: 'float', float32: 'float', double: 'double', float64: 'double',
};

export function parseFbs(text: string): SchemaTable {
  const src = text.replace(/\/\/[^\n]*/g, '');
  const tokens = src.match(/"[^"]*"|[A-Za-z_][A-Za-z0-9_.]*|-?[0-9][0-9.eE+-]*|[{}[\]():;=,]/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => {
    const t = tokens[i++];
    if (t === undefined) throw new Error('unexpected end of schema');
    return t;
  };
  const expect = (t: string) => {
    const got = next();
    if (got !== t) throw new Error(`schema: expected '${t}' but found '${got}' (token ${i})`);
  };
  const enums: SchemaTable['enums'] = {};
  const unions: SchemaTable['unions'] = {};
  type RawField = { name: string; type: string; vector: boolean; def: string | null; deprecated: boolean };
  const rawTables: { name: string; fields: RawField[] }[] = [];

  const skipAttributes = (): string[] => {
    const attrs: string[] = [];
    if (peek() !== '(') return attrs;
    next();
    while (peek() !== ')') {
      const t = next();
      if (t !== ',' && t !== ':') attrs.push(t);
    }
    next();
    return attrs;
  };

  while (i < tokens.length) {
    const t = next();
    if (t === 'namespace' || t === 'file_identifier' || t === 'file_extension' || t === 'root_type' || t === 'attribute' || t === 'include') {
      while (next() !== ';');
    } else if (t === 'enum') {
      const name = next();
      expect(':');
      const base = SCALAR_ALIASES[next()];
      if (!base) throw new Error(`schema: enum ${name} has an unknown base type`);
      skipAttributes();
      expect('{');
      const values: Record<string, number> = {};
      let value = 0;
      while (peek() !== '}') {
        const member = next();
        if (peek() === '=') {
          next();
          value = Number(next());
        }
        values[member] = value;
        value++;
        if (peek() === ',') next();
      }
      next();
      enums[name] = { base, values };
    } else if (t === 'union') {
      const name = next();
      skipAttributes();
      expect('{');
      const members: Record<string, string> = {};
      let value = 1;
      while (peek() !== '}') {
        const member = next();
        if (peek() === '=') {
          next();
          value = Number(next());
        }
        members[String(value)] = member;
        value++;
        if (peek() === ',') next();
      }
      next();
      unions[name] = members;
    } else if (t === 'table' || t === 'struct') {
      if (t === 'struct') throw new Error('schema: structs are not supported');
      const name = next();
      skipAttributes();
      expect('{');
      const fields: RawField[] = [];
      while (peek() !== '}') {
        const fname = next();
        expect(':');
        let vector = false;
        let type = next();
        if (type === '[') {
          vector = true;
          type = next();
          expect(']');
        }
        let def: string | null = null;
        if (peek() === '=') {
          next();
          def = next();
        }
        const attrs = skipAttributes();
        expect(';');
        fields.push({ name: fname, type, vector, def, deprecated: attrs.includes('deprecated') });
      }
      next();
      rawTables.push({ name, fields });
    } else {
      throw new Error(`schema: unexpected token '${t}'`);
    }
  }

  const tables: SchemaTable['tables'] = {};
  for (const raw of rawTables) {
    let slot = 0;
    const fields: SchemaField[] = [];
    for (const f of raw.fields) {
      let type: SchemaFieldType;
      const scalar = SCALAR_ALIASES[f.type];
      if (scalar) type = { kind: 'scalar', base: scalar };
      else if (f.type === 'string') type = { kind: 'string' };
      else if (enums[f.type]) type = { kind: 'enum', base: enums[f.type]!.base, ref: f.type };
      else if (unions[f.type]) type = { kind: 'union', ref: f.type };
      else if (rawTables.some((r) => r.name === f.type)) type = { kind: 'table', ref: f.type };
      else throw new Error(`schema: unknown type ${f.type} of ${raw.name}.${f.name}`);
      if (type.kind === 'union') slot++; // the _type byte
      let def: number | boolean = type.base === 'bool' ? false : 0;
      if (f.def !== null) {
        if (f.def === 'true' || f.def === 'false') def = f.def === 'true';
        else if (type.kind === 'enum' && !/^-?[0-9]/.test(f.def)) {
          const v = enums[type.ref!]!.values[f.def];
          if (v === undefined) throw new Error(`schema: unknown default ${f.def} of ${raw.name}.${f.name}`);
          def = v;
        } else def = Number(f.def);
      }
      fields.push({ name: f.name, slot, type, vector: f.vector, default: def, deprecated: f.deprecated });
      slot++;
    }
    tables[raw.name] = { name: raw.name, fields, slots: slot };
  }
  return { enums, unions, tables };
}

/**
 * Readers for the reference decodes beside the NVDLA fixtures (test/fixtures/nvdla/README.md):
 * the `.summary.txt` (written by the shared `summ.py`) and the `.ops.json` (by `decode_ops.py`),
 * each turned into a flat map `path -> value` so a test can compare them field by field with
 * what the studio decodes and report every path that differs.
 *
 * Values are normalised, not formatted: Python literals become JSON (`('CONV', 3, 2)` ->
 * `["CONV",3,2]`), numbers compare as numbers (`127.0` = `127`).
 */

export type Flat = Map<string, unknown>;

/** `[('tb-0', 0), ('tb-2', 4096)]` -> `[["tb-0",0],["tb-2",4096]]`; plain words stay strings. */
export function pyValue(text: string): unknown {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(t)) return Number(t);
  if (/^[[{(]/.test(t)) {
    const json = t.replace(/'/g, '"').replace(/\(/g, '[').replace(/\)/g, ']').replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false');
    return JSON.parse(json);
  }
  return t;
}

/** `key=value key=value` with values that may be bracketed lists containing spaces. */
function keyValues(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  while (i < text.length) {
    while (text[i] === ' ') i++;
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const key = text.slice(i, eq);
    let j = eq + 1;
    let depth = 0;
    while (j < text.length && !(depth === 0 && text[j] === ' ')) {
      if ('[({'.includes(text[j]!)) depth++;
      if ('])}'.includes(text[j]!)) depth--;
      j++;
    }
    out.push([key, text.slice(eq + 1, j)]);
    i = j;
  }
  return out;
}

/** Splits `a, b, (c, d)` at top-level commas. */
function topLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ('[({'.includes(c)) depth++;
    else if ('])}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (text.slice(start).trim()) out.push(text.slice(start).trim());
  return out;
}

function flattenInto(out: Flat, prefix: string, v: unknown): void {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) flattenInto(out, `${prefix}.${k}`, x);
  } else out.set(prefix, v);
}

/** Parses a `.summary.txt` into `path -> value` (paths as in `summaryOf` of the test). */
export function parseSummary(text: string): Flat {
  const out: Flat = new Map();
  let task = -1;
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    let m: RegExpExecArray | null;
    if (!line || line.startsWith('## ')) continue;
    if ((m = /^version (.*)$/.exec(line))) flattenInto(out, 'version', pyValue(m[1]!));
    else if ((m = /^tasks: (\d+)$/.exec(line))) out.set('tasks', Number(m[1]));
    else if ((m = /^ {2}task (.*)$/.exec(line))) {
      task++;
      for (const [k, v] of keyValues(m[1]!.replace(/addr_list\(len=\d+\)=/, 'addr_list='))) out.set(`task[${task}].${k}`, pyValue(v));
    } else if ((m = /^ {4}network_desc: (.*)$/.exec(line))) flattenInto(out, `task[${task}].network_desc`, pyValue(m[1]!));
    else if ((m = /^ {4}op slots: (\d+)$/.exec(line))) out.set(`task[${task}].slots`, Number(m[1]));
    else if ((m = /^ {6}(\d+):(\w+)\(idx=(-?\d+),deps=(\d+),cons=(\[.*\]),fused=(-?\d+)\)$/.exec(line))) {
      const p = `task[${task}].slot[${m[1]}]`;
      out.set(`${p}.type`, m[2]);
      out.set(`${p}.idx`, Number(m[3]));
      out.set(`${p}.deps`, Number(m[4]));
      out.set(`${p}.cons`, pyValue(m[5]!));
      out.set(`${p}.fused`, Number(m[6]));
    } else if ((m = /^ {4}emu network_desc: (.*)$/.exec(line))) {
      for (const [k, v] of keyValues(m[1]!)) out.set(`task[${task}].emu.${k}`, pyValue(v));
    } else if ((m = /^ {4}emu op0: op_type=(\d+) \(\w+\) (.*)$/.exec(line))) {
      out.set(`task[${task}].emu.op0.op_type`, Number(m[1]));
      for (const [k, v] of keyValues(m[2]!)) out.set(`task[${task}].emu.op0.${k}`, pyValue(v));
    } else if ((m = /^ {4}emu (src|dst): (.*)$/.exec(line))) {
      for (const [k, v] of keyValues(m[2]!)) out.set(`task[${task}].emu.${m[1]}.${k}`, pyValue(v));
    } else if ((m = /^(memory_list|address_list): (\d+) entries$/.exec(line))) out.set(m[1]!, Number(m[2]));
    else if ((m = /^ {2}mem (.*)$/.exec(line))) {
      const kv = keyValues(m[1]!);
      const id = kv.find(([k]) => k === 'id')![1];
      for (const [k, v] of kv) out.set(`mem[${id}].${k}`, pyValue(v));
    } else if ((m = /^ {2}addr (.*)$/.exec(line))) {
      const kv = keyValues(m[1]!);
      const id = kv.find(([k]) => k === 'id')![1];
      for (const [k, v] of kv) out.set(`addr[${id}].${k}`, pyValue(v));
    } else if ((m = /^event_list: (\d+) entries: ?(.*)$/.exec(line))) {
      out.set('event_list', Number(m[1]));
      for (const e of topLevel(m[2]!)) {
        const x = /^(\d+):(\w+)\(t=(\d+),v=(\d+)\)$/.exec(e)!;
        out.set(`event[${x[1]}]`, [x[2], Number(x[3]), Number(x[4])]);
      }
    } else if ((m = /^submit_list: (\d+):? ?(.*)$/.exec(line))) {
      out.set('submit_list', Number(m[1]));
      for (const s of topLevel(m[2]!)) {
        const x = /^(\d+):(\[.*\])$/.exec(s)!;
        out.set(`submit[${x[1]}]`, pyValue(x[2]!));
      }
    } else if ((m = /^tensor_desc_list: (\d+)$/.exec(line))) out.set('tensor_desc_list', Number(m[1]));
    else if ((m = /^ {2}td (.*)$/.exec(line))) {
      const kv = keyValues(m[1]!);
      const id = kv.find(([k]) => k === 'id')![1];
      for (const [k, v] of kv) out.set(`td[${id}].${k}`, pyValue(v));
    } else if ((m = /^blobs: (\d+)$/.exec(line))) out.set('blobs', Number(m[1]));
    else if ((m = /^ {2}blob (\S+) (.*)$/.exec(line))) {
      for (const [k, v] of keyValues(m[2]!)) out.set(`blob[${m[1]}].${k}`, pyValue(v));
    } else if ((m = /^reloc_list: (\d+):? ?(.*)$/.exec(line))) {
      out.set('reloc_list', Number(m[1]));
      topLevel(m[2]!).forEach((r, i) => {
        for (const [k, v] of keyValues(r.slice(1, -1).replace(/,/g, ' '))) out.set(`reloc[${i}].${k}`, pyValue(v));
      });
    } else throw new Error(`summary line not understood: ${line}`);
  }
  return out;
}

/** Flattens a `.ops.json` into `task[i].<path>` -> value, leaving out the tool's own keys. */
export function flattenOps(json: unknown): Flat {
  const out: Flat = new Map();
  const doc = json as { tasks: { id: number; interface: string; ops: Record<string, unknown>[]; network_desc: unknown; luts?: unknown[]; note?: string }[] };
  doc.tasks.forEach((t, ti) => {
    const p = `task[${ti}]`;
    out.set(`${p}.interface`, t.interface);
    flattenInto(out, `${p}.network_desc`, t.network_desc);
    if (t.note) out.set(`${p}.note`, t.note);
    t.ops.forEach((op, si) => {
      for (const [k, v] of Object.entries(op)) {
        if (k === 'slot') continue;
        if (k === 'common') {
          const { op_type_name: _, ...rest } = v as Record<string, unknown>;
          flattenArrays(out, `${p}.slot[${si}].common`, rest);
        } else flattenArrays(out, `${p}.slot[${si}].${k}`, v);
      }
    });
    (t.luts ?? []).forEach((l, li) => flattenArrays(out, `${p}.lut[${li}]`, l));
  });
  return out;
}

/** Like flattenInto, but arrays become `.0`, `.1`, ... (as the studio's field paths). */
function flattenArrays(out: Flat, prefix: string, v: unknown): void {
  if (Array.isArray(v)) v.forEach((x, i) => flattenArrays(out, `${prefix}.${i}`, x));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v as Record<string, unknown>)) flattenArrays(out, `${prefix}.${k}`, x);
  else out.set(prefix, v);
}

/** Every path of `expected` compared with `actual`: one line per difference. */
export function compareFlat(expected: Flat, actual: Flat, opts: { onlyExpected?: boolean } = {}): string[] {
  const bad: string[] = [];
  for (const [k, v] of expected) {
    if (!actual.has(k)) {
      bad.push(`${k}: expected ${JSON.stringify(v)}, missing`);
      continue;
    }
    const a = actual.get(k);
    if (!sameValue(v, a)) bad.push(`${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(a)}`);
  }
  if (!opts.onlyExpected) for (const k of actual.keys()) if (!expected.has(k)) bad.push(`${k}: not in the reference (got ${JSON.stringify(actual.get(k))})`);
  return bad;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return JSON.stringify(a) === JSON.stringify(b);
}

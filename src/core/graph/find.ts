/**
 * Find over one graph, with Netron's tokens and a few of our own (viewers.md section 2):
 *
 *   conv relu          terms are ANDed; a plain term matches (case-insensitive) a substring of
 *                      the node name, the op type or an input/output tensor name, or equals a
 *                      dtype (`float32`), a shape (`1,3,224,224` or `[1,3,224,224]`), a full
 *                      tensor type (`float32[1,3]`) or, for a number, a single dimension (`224`)
 *   "conv1"            quoted: the whole text must equal one of those (no substrings)
 *   /^conv\d+$/i       a regular expression over name, type and tensor names (always
 *                      case-insensitive)
 *   [CONV_2D]          exact op type
 *   stride_w=2         attribute predicate: `=`, `!=`, `<`, `<=`, `>`, `>=` (numbers compare as
 *   channels>64        numbers; `=` on text is case-insensitive equality)
 *   @acl_cl            backend of the node (when the index was built with backends)
 *   #12                origin id of the node (when the index was built with origins)
 *
 * The index keeps lowercase copies of every haystack, so a query is one pass over the nodes.
 * Results come in node order, capped, with the total count.
 */
import type { Graph } from './model';

export type FindField = 'name' | 'type' | 'tensor' | 'dtype' | 'shape' | 'dimension' | 'attribute' | 'backend' | 'origin';

export interface FindMatch {
  field: FindField;
  /** the matched text as shown (original case) */
  text: string;
}

export interface FindResult {
  /** index into Graph.nodes */
  node: number;
  /** what the first term matched */
  field: FindField;
  text: string;
  /** one match per term, in query order */
  matches: FindMatch[];
}

export interface FindResults {
  results: FindResult[];
  /** matching nodes, including those past the cap */
  total: number;
  /** set when the query cannot be used (e.g. a bad regular expression); results are empty */
  error?: string;
}

export const FIND_LIMIT = 1000;

export interface FindIndex {
  size: number;
  name: string[];
  nameLower: string[];
  type: string[];
  typeLower: string[];
  /** ports of node i: portStart[i] .. portStart[i+1] */
  portStart: Int32Array;
  label: string[];
  labelLower: string[];
  /** full tensor type, lowercase (`float32[1,3]`) */
  typeText: string[];
  dtype: string[];
  /** shape without brackets and spaces (`1,3`), null when unknown */
  shape: (string | null)[];
  /** attributes of node i: attrStart[i] .. attrStart[i+1] */
  attrStart: Int32Array;
  attrName: string[];
  attrValue: string[];
  /** backend per node, lowercase ('' when none) */
  backend: string[];
  /** origin ids per node */
  origins: (readonly number[] | undefined)[];
}

/** Facts about nodes that live outside the Graph (partition plan, origin table). */
export interface FindExtras {
  /** backend name per node index (e.g. from a PartitionPlan) */
  backends?: readonly (string | undefined)[];
  /** origin ids per node index */
  origins?: readonly (readonly number[] | undefined)[];
}

export type FindTerm =
  | { kind: 'text'; text: string }
  | { kind: 'exact'; text: string }
  | { kind: 'regex'; re: RegExp }
  | { kind: 'op'; text: string }
  | { kind: 'shape'; text: string }
  | { kind: 'attr'; name: string; op: '=' | '!=' | '<' | '<=' | '>' | '>='; value: string }
  | { kind: 'backend'; text: string }
  | { kind: 'origin'; id: number };

function splitType(t: string): { dtype: string; shape: string | null } {
  const i = t.indexOf('[');
  if (i < 0) return { dtype: t.trim().toLowerCase(), shape: null };
  const j = t.lastIndexOf(']');
  const shape = t.slice(i + 1, j < i ? t.length : j);
  return { dtype: t.slice(0, i).trim().toLowerCase(), shape: shape.includes(' ') ? shape.replace(/\s+/g, '') : shape };
}

export function buildFindIndex(graph: Graph, extras: FindExtras = {}): FindIndex {
  const n = graph.nodes.length;
  const index: FindIndex = {
    size: n,
    name: [],
    nameLower: [],
    type: [],
    typeLower: [],
    portStart: new Int32Array(n + 1),
    label: [],
    labelLower: [],
    typeText: [],
    dtype: [],
    shape: [],
    attrStart: new Int32Array(n + 1),
    attrName: [],
    attrValue: [],
    backend: [],
    origins: [],
  };
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i];
    index.name.push(node.name);
    index.nameLower.push(node.name.toLowerCase());
    index.type.push(node.type);
    index.typeLower.push(node.type.toLowerCase());
    for (const ports of [node.inputs, node.outputs]) {
      for (const p of ports) {
        if (p.tensor < 0 && !p.label) continue;
        const { dtype, shape } = splitType(p.type);
        index.label.push(p.label);
        index.labelLower.push(p.label.toLowerCase());
        index.typeText.push((p.type.includes(' ') ? p.type.replace(/\s+/g, '') : p.type).toLowerCase());
        index.dtype.push(dtype);
        index.shape.push(shape);
      }
    }
    index.portStart[i + 1] = index.label.length;
    for (const a of node.attributes) {
      index.attrName.push(a.name.toLowerCase());
      index.attrValue.push(a.value);
    }
    index.attrStart[i + 1] = index.attrName.length;
    index.backend.push((extras.backends?.[i] ?? '').toLowerCase());
    index.origins.push(extras.origins?.[i]);
  }
  return index;
}

/** Splits a query into terms; a bad regular expression gives an error sentence. */
export function parseQuery(query: string): { terms: FindTerm[]; error?: string } {
  const terms: FindTerm[] = [];
  let i = 0;
  const q = query;
  while (i < q.length) {
    const c = q[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const j = q.indexOf('"', i + 1);
      const text = q.slice(i + 1, j < 0 ? q.length : j);
      i = j < 0 ? q.length : j + 1;
      if (text) terms.push({ kind: 'exact', text: text.toLowerCase() });
      continue;
    }
    if (c === '/' && q.length > i + 1) {
      // up to the next unescaped '/', then flags
      let j = i + 1;
      while (j < q.length && q[j] !== '/') j += q[j] === '\\' ? 2 : 1;
      if (j < q.length) {
        let k = j + 1;
        while (k < q.length && /[a-z]/i.test(q[k])) k++;
        const body = q.slice(i + 1, j);
        const flags = q.slice(j + 1, k).replace(/[gyi]/g, '');
        try {
          terms.push({ kind: 'regex', re: new RegExp(body, `${flags}i`) });
        } catch (e) {
          return { terms: [], error: `Bad regular expression /${body}/: ${e instanceof Error ? e.message : String(e)}` };
        }
        i = k;
        continue;
      }
    }
    if (c === '[') {
      const j = q.indexOf(']', i + 1);
      if (j > 0) {
        const body = q.slice(i + 1, j).trim();
        i = j + 1;
        if (/^[\d,\s?-]*$/.test(body)) terms.push({ kind: 'shape', text: body.replace(/\s+/g, '') });
        else terms.push({ kind: 'op', text: body.toLowerCase() });
        continue;
      }
    }
    let j = i;
    while (j < q.length && !/\s/.test(q[j])) j++;
    const word = q.slice(i, j);
    i = j;
    if (word.length > 1 && word[0] === '@') {
      terms.push({ kind: 'backend', text: word.slice(1).toLowerCase() });
      continue;
    }
    if (/^#\d+$/.test(word)) {
      terms.push({ kind: 'origin', id: Number(word.slice(1)) });
      continue;
    }
    const attr = /^([A-Za-z_][\w.]*)(!=|<=|>=|=|<|>)(.+)$/.exec(word);
    if (attr) {
      terms.push({ kind: 'attr', name: attr[1].toLowerCase(), op: attr[2] as '=' | '!=' | '<' | '<=' | '>' | '>=', value: attr[3] });
      continue;
    }
    terms.push({ kind: 'text', text: word.toLowerCase() });
  }
  return { terms };
}

function compare(op: '=' | '!=' | '<' | '<=' | '>' | '>=', actual: string, wanted: string): boolean {
  const a = Number(actual);
  const b = Number(wanted);
  const numeric = actual.trim() !== '' && wanted.trim() !== '' && Number.isFinite(a) && Number.isFinite(b);
  if (op === '=') return numeric ? a === b : actual.toLowerCase() === wanted.toLowerCase();
  if (op === '!=') return numeric ? a !== b : actual.toLowerCase() !== wanted.toLowerCase();
  if (!numeric) return false;
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

function hasDim(shape: string, dim: string): boolean {
  let from = 0;
  for (;;) {
    const k = shape.indexOf(dim, from);
    if (k < 0) return false;
    const end = k + dim.length;
    if ((k === 0 || shape[k - 1] === ',') && (end === shape.length || shape[end] === ',')) return true;
    from = k + 1;
  }
}

function matchTerm(ix: FindIndex, i: number, t: FindTerm): FindMatch | null {
  const p0 = ix.portStart[i];
  const p1 = ix.portStart[i + 1];
  switch (t.kind) {
    case 'text': {
      const s = t.text;
      if (ix.nameLower[i].includes(s)) return { field: 'name', text: ix.name[i] };
      if (ix.typeLower[i].includes(s)) return { field: 'type', text: ix.type[i] };
      for (let p = p0; p < p1; p++) if (ix.labelLower[p].includes(s)) return { field: 'tensor', text: ix.label[p] };
      for (let p = p0; p < p1; p++) if (ix.dtype[p] === s) return { field: 'dtype', text: ix.dtype[p] };
      const bare = s.replace(/^\[|\]$/g, '');
      for (let p = p0; p < p1; p++) {
        if (ix.shape[p] === bare && bare !== '') return { field: 'shape', text: `[${bare}]` };
        if (ix.typeText[p] === s) return { field: 'shape', text: ix.typeText[p] };
      }
      if (/^\d+$/.test(s)) {
        for (let p = p0; p < p1; p++) {
          const sh = ix.shape[p];
          if (sh !== null && hasDim(sh, s)) return { field: 'dimension', text: s };
        }
      }
      return null;
    }
    case 'exact': {
      const s = t.text;
      if (ix.nameLower[i] === s) return { field: 'name', text: ix.name[i] };
      if (ix.typeLower[i] === s) return { field: 'type', text: ix.type[i] };
      for (let p = p0; p < p1; p++) if (ix.labelLower[p] === s) return { field: 'tensor', text: ix.label[p] };
      for (let p = p0; p < p1; p++) {
        if (ix.dtype[p] === s) return { field: 'dtype', text: ix.dtype[p] };
        if (ix.typeText[p] === s.replace(/\s+/g, '')) return { field: 'shape', text: ix.typeText[p] };
      }
      const bare = s.replace(/\s+/g, '').replace(/^\[|\]$/g, '');
      for (let p = p0; p < p1; p++) if (ix.shape[p] === bare && /^[\d,?-]+$/.test(bare)) return { field: 'shape', text: `[${bare}]` };
      return null;
    }
    case 'regex': {
      const re = t.re;
      if (re.test(ix.name[i])) return { field: 'name', text: ix.name[i] };
      if (re.test(ix.type[i])) return { field: 'type', text: ix.type[i] };
      for (let p = p0; p < p1; p++) if (re.test(ix.label[p])) return { field: 'tensor', text: ix.label[p] };
      return null;
    }
    case 'op':
      return ix.typeLower[i] === t.text ? { field: 'type', text: ix.type[i] } : null;
    case 'shape':
      for (let p = p0; p < p1; p++) if (ix.shape[p] === t.text) return { field: 'shape', text: `[${t.text}]` };
      return null;
    case 'attr':
      for (let a = ix.attrStart[i]; a < ix.attrStart[i + 1]; a++) {
        if (ix.attrName[a] === t.name && compare(t.op, ix.attrValue[a], t.value)) {
          return { field: 'attribute', text: `${t.name}=${ix.attrValue[a]}` };
        }
      }
      return null;
    case 'backend':
      return ix.backend[i] !== '' && ix.backend[i] === t.text ? { field: 'backend', text: ix.backend[i] } : null;
    case 'origin': {
      const o = ix.origins[i];
      return o && o.includes(t.id) ? { field: 'origin', text: `#${t.id}` } : null;
    }
  }
}

/** Nodes matching every term of `query`, in node order; at most `limit` results, with the total. */
export function find(index: FindIndex, query: string, limit = FIND_LIMIT): FindResults {
  const { terms, error } = parseQuery(query);
  if (error) return { results: [], total: 0, error };
  if (terms.length === 0) return { results: [], total: 0 };
  const results: FindResult[] = [];
  let total = 0;
  const matches: FindMatch[] = [];
  for (let i = 0; i < index.size; i++) {
    matches.length = 0;
    let ok = true;
    for (const t of terms) {
      const m = matchTerm(index, i, t);
      if (!m) {
        ok = false;
        break;
      }
      matches.push(m);
    }
    if (!ok) continue;
    total++;
    if (results.length < limit) results.push({ node: i, field: matches[0].field, text: matches[0].text, matches: matches.slice() });
  }
  return { results, total };
}

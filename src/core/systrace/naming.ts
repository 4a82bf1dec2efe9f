/**
 * Trace mark names (AOSP `parser/naming.py`): the `[NN_<layer>_<phase>]` tag, the `[SW]` and
 * `[SUB]` markers, and the translation of automatic HIDL marks to a layer and phase.
 */

export const MARKER_SWITCH = '[SW]';
export const MARKER_SUBTRACT = '[SUB]';

/**
 * Upstream's tag regex `B\|\d+\|.*\[([^]]+)\]\[?([^]])\]?` (searched, not anchored), in linear
 * time: the last bracketed group after the first `B|<digits>|` that is followed by one more
 * character other than `]`. Returns the text inside the brackets, or null.
 */
export function matchTag(mark: string): string | null {
  const pre = /B\|\d+\|/.exec(mark);
  if (!pre) return null;
  const from = pre.index + pre[0].length;
  // nextClose[i] = index of the first ']' at or after i
  const n = mark.length;
  let nextClose = -1;
  const closeAt = new Int32Array(n + 1);
  closeAt[n] = -1;
  for (let i = n - 1; i >= from; i--) {
    if (mark.charCodeAt(i) === 93) nextClose = i;
    closeAt[i] = nextClose;
  }
  for (let o = n - 1; o >= from; o--) {
    if (mark.charCodeAt(o) !== 91) continue;
    const c = o + 1 <= n - 1 ? closeAt[o + 1]! : -1;
    if (c < 0 || c === o + 1) continue;
    if (c + 1 < n && mark.charCodeAt(c + 1) !== 93) return mark.slice(o + 1, c);
  }
  return null;
}

/**
 * `translate_hidl_mark_to_nn_and_tag`: `NN_<layer>_<phase>` for a mark without a tag. The layer
 * rules are tried in upstream's order (client, server, passthrough, getCapabilities /
 * getSupportedOperations, no `HIDL` at all); a `HIDL` mark that none of them names has no layer:
 * upstream stops with an AssertionError there, and this returns null.
 */
export function translateHidlMark(mark: string): string | null {
  let layer: string | null = null;
  if (mark.includes('::client')) layer = mark.includes('notify') ? 'LX' : 'LI';
  else if (mark.includes('::server')) layer = mark.includes('notify') ? 'LX' : 'LD';
  else if (mark.includes('::passthrough')) layer = 'LI';
  else if (mark.includes('getCapabilities') || mark.includes('getSupportedOperations')) layer = 'LD';
  else if (!mark.includes('HIDL')) layer = 'LX';
  if (layer === null) return null;
  let phase: string;
  if (mark.includes('IAllocator')) phase = 'PU';
  else if (mark.includes('getCapabilities')) phase = 'PI';
  else if (mark.includes('prepareModel') || mark.includes('getSupportedOperations')) phase = 'PC';
  else if (mark.includes('IPreparedModelCallback')) phase = 'PC';
  else if (mark.includes('execute') || mark.includes('IExecutionCallback')) phase = 'PE';
  else phase = 'PI';
  return `NN_${layer}_${phase}`;
}

export interface ParsedTag {
  tag: string;
  layer: string;
  phase: string;
  /** true when the mark had no `[NN_..]` tag and was translated as a HIDL mark */
  hidl: boolean;
}

export interface TagError {
  tag: string;
  /** `parts`: the tag does not split into three (ValueError upstream); `hidl`: a HIDL mark with no layer (AssertionError) */
  kind: 'parts' | 'hidl';
  error: string;
}

/** Tag of a `B` mark, or why upstream cannot read it. */
const parsedTags = new Map<string, ParsedTag | TagError>();

export function parseTag(mark: string): ParsedTag | TagError {
  const cached = parsedTags.get(mark);
  if (cached !== undefined) return cached;
  const r = computeTag(mark);
  if (parsedTags.size > 100_000) parsedTags.clear();
  parsedTags.set(mark, r);
  return r;
}

function computeTag(mark: string): ParsedTag | TagError {
  const t = matchTag(mark);
  const tag = t ?? translateHidlMark(mark);
  if (tag === null) {
    return {
      tag: '',
      kind: 'hidl',
      error: `the HIDL mark "${mark.slice(0, 120)}" names no side (::client, ::server or ::passthrough), so it has no layer; upstream stops with an AssertionError`,
    };
  }
  const parts = tag.split('_');
  if (parts.length !== 3) {
    return {
      tag,
      kind: 'parts',
      error: `the tag [${tag}] does not have the form NN_<layer>_<phase> (${parts.length} parts); upstream stops with a ValueError`,
    };
  }
  return { tag, layer: parts[1]!, phase: parts[2]!, hidl: t === null };
}

/**
 * `get_function_name_from_mark`: the third `|`-separated field; for a `[NN_` mark, the text after
 * the first `]` once `[SUB]` / `[SW]` are removed, up to the next `]`, without `[`. Null where
 * upstream raises an IndexError (fewer than two `|`, or `[NN_` with no `]`).
 */
export function upstreamFunctionName(mark: string): string | null {
  const fields = mark.split('|');
  if (fields.length < 3) return null;
  let f = fields[2]!;
  if (f.includes('[NN_')) {
    f = f.split(MARKER_SUBTRACT).join('').split(MARKER_SWITCH).join('');
    const pieces = f.split(']');
    if (pieces.length < 2) return null;
    f = pieces[1]!.split('[').join('');
  }
  return f;
}

/** The function name of a mark for display: upstream's where it has one, else the text after `B|pid|`. */
const functionNames = new Map<string, string>();

export function functionName(mark: string): string {
  const cached = functionNames.get(mark);
  if (cached !== undefined) return cached;
  const name = upstreamFunctionName(mark) ?? mark.replace(/^[BE]\|\d*\|?/, '');
  if (functionNames.size > 100_000) functionNames.clear();
  functionNames.set(mark, name);
  return name;
}

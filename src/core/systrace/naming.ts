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

/** `translate_hidl_mark_to_nn_and_tag`: `NN_<layer>_<phase>` for a HIDL (or any untagged) mark. */
export function translateHidlMark(mark: string): string {
  let layer: string;
  if (mark.includes('::client')) layer = mark.includes('notify') ? 'LX' : 'LI';
  else if (mark.includes('::server')) layer = mark.includes('notify') ? 'LX' : 'LD';
  else if (mark.includes('::passthrough')) layer = 'LI';
  else if (mark.includes('getCapabilities') || mark.includes('getSupportedOperations')) layer = 'LD';
  else layer = 'LX';
  if (!mark.includes('HIDL')) layer = 'LX';
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

/** Tag of a `B` mark; `null` layer/phase with an error text when the tag has not three parts. */
const parsedTags = new Map<string, ParsedTag | { error: string; tag: string }>();

export function parseTag(mark: string): ParsedTag | { error: string; tag: string } {
  const cached = parsedTags.get(mark);
  if (cached !== undefined) return cached;
  const r = computeTag(mark);
  if (parsedTags.size > 100_000) parsedTags.clear();
  parsedTags.set(mark, r);
  return r;
}

function computeTag(mark: string): ParsedTag | { error: string; tag: string } {
  const t = matchTag(mark);
  const tag = t ?? translateHidlMark(mark);
  const parts = tag.split('_');
  if (parts.length !== 3) {
    return {
      tag,
      error: `the tag [${tag}] does not have the form NN_<layer>_<phase> (${parts.length} parts); upstream stops with a ValueError`,
    };
  }
  return { tag, layer: parts[1]!, phase: parts[2]!, hidl: t === null };
}

/** `get_function_name_from_mark`: the text after the tag, markers and `B|pid|` removed. */
const functionNames = new Map<string, string>();

export function functionName(mark: string): string {
  const cached = functionNames.get(mark);
  if (cached !== undefined) return cached;
  const name = computeFunctionName(mark);
  if (functionNames.size > 100_000) functionNames.clear();
  functionNames.set(mark, name);
  return name;
}

function computeFunctionName(mark: string): string {
  let rest = mark.replace(/^B\|\d+\|/, '');
  rest = rest.split(MARKER_SWITCH).join('').split(MARKER_SUBTRACT).join('');
  const t = matchTag(`B|0|${rest}`);
  if (t !== null) {
    const i = rest.lastIndexOf(`[${t}]`);
    if (i >= 0) return rest.slice(i + t.length + 2);
  }
  return rest;
}

/**
 * The shape of an engine pass: a function from one engine graph to a new one (the input is never
 * changed), with a summary of what it changed so the pass timeline can highlight it. A pass with
 * nothing to do (`unchanged`) hands back its input itself: two stages then share one graph, which
 * is safe because no pass edits its input and no later step edits a stage's graph.
 */
import type { NvdlaDiagnostic } from '../../network/model';
import { cloneEngineGraph } from '../graph';
import type { PassContext } from '../graph-state';
import type { EngineGraph } from '../model';

export interface PassChanges {
  /** node ids removed, added, or whose parameters changed */
  removed: string[];
  added: string[];
  changed: string[];
  /** one line per notable change, for people */
  notes: string[];
}

export interface PassResult {
  graph: EngineGraph;
  changes: PassChanges;
  diagnostics: NvdlaDiagnostic[];
}

export interface EnginePass {
  /** nvdla_compiler's name for the pass (Compiler.cpp) */
  name: string;
  run(input: EngineGraph, ctx: PassContext): PassResult;
}

export function noChanges(): PassChanges {
  return { removed: [], added: [], changed: [], notes: [] };
}

/** run `edit` on a copy of `input` and report the node ids that appeared and disappeared */
export function editCopy(input: EngineGraph, edit: (g: EngineGraph, changes: PassChanges, diagnostics: NvdlaDiagnostic[]) => void): PassResult {
  const graph = cloneEngineGraph(input);
  const changes = noChanges();
  const diagnostics: NvdlaDiagnostic[] = [];
  edit(graph, changes, diagnostics);
  const before = new Set(input.nodes.map((n) => n.id));
  const after = new Set(graph.nodes.map((n) => n.id));
  for (const id of before) if (!after.has(id) && !changes.removed.includes(id)) changes.removed.push(id);
  for (const id of after) if (!before.has(id) && !changes.added.includes(id)) changes.added.push(id);
  return { graph, changes, diagnostics };
}

/** a pass with nothing to do: its input as its result, without a copy */
export function unchanged(input: EngineGraph, note: string): PassResult {
  return { graph: input, changes: { ...noChanges(), notes: [note] }, diagnostics: [] };
}

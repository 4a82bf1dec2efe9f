/**
 * TRAIN / TEST phase selection: Caffe's Net::FilterNet with StateMeetsRule. A layer with
 * `include` rules is kept when the state meets at least one of them; otherwise it is kept unless
 * the state meets one of its `exclude` rules. A rule is met when its phase (if set) equals the
 * state's, the level lies within min_level / max_level, every `stage` is among the state's stages
 * and no `not_stage` is.
 */
import { FormatError } from '../errors';
import { messages, strings, type ProtoMessage } from './proto';
import type { SourceLocation } from './upgrade';

export type Phase = 'TRAIN' | 'TEST';

export interface NetState {
  phase: Phase;
  level?: number;
  stages?: string[];
}

export function stateMeetsRule(state: NetState, rule: ProtoMessage): boolean {
  if (rule.phase !== undefined && rule.phase !== state.phase) return false;
  const level = state.level ?? 0;
  if (typeof rule.min_level === 'number' && level < rule.min_level) return false;
  if (typeof rule.max_level === 'number' && level > rule.max_level) return false;
  const stages = new Set(state.stages ?? []);
  for (const s of strings(rule, 'stage')) if (!stages.has(s)) return false;
  for (const s of strings(rule, 'not_stage')) if (stages.has(s)) return false;
  return true;
}

export interface FilteredNet {
  net: ProtoMessage;
  layerSources: SourceLocation[];
  /** names of the layers left out by the phase rules */
  excluded: string[];
}

export function filterNet(net: ProtoMessage, layerSources: SourceLocation[], state: NetState, file: string): FilteredNet {
  const kept: ProtoMessage[] = [];
  const sources: SourceLocation[] = [];
  const excluded: string[] = [];
  messages(net, 'layer').forEach((layer, i) => {
    const include = messages(layer, 'include');
    const exclude = messages(layer, 'exclude');
    if (include.length > 0 && exclude.length > 0) {
      throw new FormatError({ kind: 'semantic', file, ...(layerSources[i] ?? {}), message: `layer '${String(layer.name ?? i)}' specifies both include and exclude rules; Caffe accepts one or the other` });
    }
    const keep = include.length > 0 ? include.some((r) => stateMeetsRule(state, r)) : !exclude.some((r) => stateMeetsRule(state, r));
    if (keep) {
      kept.push(layer);
      sources.push(layerSources[i] ?? {});
    } else excluded.push(String(layer.name ?? ''));
  });
  return { net: { ...net, layer: kept }, layerSources: sources, excluded };
}

/** Phases that change the net: true when some layer has include/exclude rules. */
export function hasPhaseRules(net: ProtoMessage): boolean {
  return messages(net, 'layer').some((l) => l.include !== undefined || l.exclude !== undefined);
}

/**
 * The Caffe graph coloured by the error of the loadable compared with it: when a loadable tab's
 * comparison names this Caffe tab, each layer box takes the colour of the worst op slot that
 * computes it (model.ts `layerErrorFills`); other boxes keep their category colour.
 */
import { useMemo } from 'react';
import type { Doc } from '../store';
import { layerErrorFills } from './model';
import { useRunLoadable } from './state';

export function useCaffeErrorFills(doc: Doc | null, theme: 'light' | 'dark'): (string | null)[] | undefined {
  const rows = useRunLoadable((s) => {
    if (!doc) return null;
    for (const t of Object.values(s.tabs)) if (t.caffeTab === doc.id && t.colourByError && t.comparison) return t.comparison.rows;
    return null;
  });
  const graph = doc?.view?.graph ?? null;
  return useMemo(() => (rows && graph ? layerErrorFills(graph.nodes.map((n) => n.name), rows, theme) : undefined), [rows, graph, theme]);
}

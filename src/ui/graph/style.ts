/**
 * Colours of the scene: per theme and per colour override, built once per change, never per frame.
 * DOM-free.
 */
import type { Graph } from '../../core/graph/model';
import { nodeBorderColor, nodeFillColor, paletteFor, textColorFor, type GraphPalette, type Theme } from './palette';

/** Colours of one theme and override set, as small tables indexed per node. */
export interface SceneStyle {
  theme: Theme;
  palette: GraphPalette;
  /** distinct fills; nodeFill[i] indexes into it */
  fills: string[];
  /** text colour for each fill */
  fillText: string[];
  nodeFill: Uint16Array;
  /** fill of each chained layer's band (Scene.chainTitles order: nodes in order, their chain in order), into `fills` */
  chainFill: Uint16Array;
  /** distinct borders; nodeBorder[i] indexes into it */
  borders: string[];
  nodeBorder: Uint8Array;
  /** distinct outline colours (group outlines); nodeOutline[i] = index + 1, 0 = none */
  outlines: string[];
  nodeOutline: Uint16Array;
}

export function buildStyle(
  graph: Graph,
  nodeCount: number,
  theme: Theme,
  fillOverride?: ReadonlyArray<string | null | undefined>,
  outlineOverride?: ReadonlyArray<string | null | undefined>,
): SceneStyle {
  const palette = paletteFor(theme);
  const fills: string[] = [];
  const fillIndex = new Map<string, number>();
  const nodeFill = new Uint16Array(nodeCount);
  const borders: string[] = [];
  const borderIndex = new Map<string, number>();
  const nodeBorder = new Uint8Array(nodeCount);
  const outlines: string[] = [];
  const outlineIndex = new Map<string, number>();
  const nodeOutline = new Uint16Array(nodeCount);
  const fillOf = (f: string) => {
    let fi = fillIndex.get(f);
    if (fi === undefined) {
      fi = fills.length;
      fills.push(f);
      fillIndex.set(f, fi);
    }
    return fi;
  };
  const chainFill: number[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const node = graph.nodes[i];
    nodeFill[i] = fillOf(fillOverride?.[i] || nodeFillColor(node, palette));
    // a chained layer's band keeps its own category colour (a colour override paints the whole box)
    for (const c of node.chain ?? []) chainFill.push(fillOverride?.[i] ? nodeFill[i]! : fillOf(nodeFillColor({ kind: 'op', category: c.category }, palette)));
    const b = nodeBorderColor(node, palette);
    let bi = borderIndex.get(b);
    if (bi === undefined) {
      bi = borders.length;
      borders.push(b);
      borderIndex.set(b, bi);
    }
    nodeBorder[i] = bi;
    const o = outlineOverride?.[i];
    if (o) {
      let oi = outlineIndex.get(o);
      if (oi === undefined) {
        oi = outlines.length;
        outlines.push(o);
        outlineIndex.set(o, oi);
      }
      nodeOutline[i] = oi + 1;
    }
  }
  return {
    theme,
    palette,
    fills,
    fillText: fills.map(textColorFor),
    nodeFill,
    chainFill: Uint16Array.from(chainFill),
    borders,
    nodeBorder,
    outlines,
    nodeOutline,
  };
}

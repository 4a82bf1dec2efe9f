/**
 * Layered layout: input and output types. The layout itself is `layout()` in ./layout.ts and
 * runs in a worker; the output is typed arrays (transferable, cheap to draw from).
 */
export type LayoutDirection = 'TB' | 'LR';

export interface LayoutOptions {
  direction: LayoutDirection;
  /** gap between nodes in a rank (px); Netron uses 20 */
  nodesep?: number;
  /** gap between ranks (px); Netron uses 20 */
  ranksep?: number;
  /** gap next to the bend points of long edges (px); default nodesep / 2 */
  edgesep?: number;
}

export interface LayoutInput {
  /** node box sizes, index-aligned with Graph.nodes */
  widths: Float64Array;
  heights: Float64Array;
  /** edges as node indices: edge i goes from edgeFrom[i] to edgeTo[i] */
  edgeFrom: Uint32Array;
  edgeTo: Uint32Array;
}

export interface GraphLayout {
  direction: LayoutDirection;
  /** bounding box of the drawing, origin at (0, 0) */
  width: number;
  height: number;
  /** node centres, index-aligned with Graph.nodes */
  x: Float64Array;
  y: Float64Array;
  w: Float64Array;
  h: Float64Array;
  /** rank (layer) of each node */
  rank: Uint32Array;
  /** polyline of edge i: points edgePoints[2*edgeOffsets[i] .. 2*edgeOffsets[i+1]) as x,y pairs */
  edgeOffsets: Uint32Array;
  edgePoints: Float64Array;
  /** 1 where edge i was reversed to break a cycle (it then points up in TB, left in LR) */
  reversed?: Uint8Array;
}

export type LayoutProgress = (phase: string, fraction: number) => void;

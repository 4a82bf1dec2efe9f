/**
 * What each client node of a tensor surface asks of it (nvdla/sw `Node::suggestSurfaceDims`,
 * `suggestLineStride`, `suggestSurfaceStride`, `suggestSurfaceSize`,
 * `suggestSurfaceOffsetInBuffer`, `suggestBuffer` and their overrides in `ConvCoreNode.cpp`,
 * `DeconvolutionOp.cpp`, `SDPNode.cpp`, `SDPSuperOp.cpp`, `ConcatOp.cpp`, `SplitOp.cpp`,
 * `RubikNode.cpp`). A surface's strides, size and offset are the largest any client suggests:
 * a convolution reading one horizontal band of a larger input (split along H), an SDP writing
 * its part of a concatenation, a concat whose output is part of a larger concat, each sees the
 * large cube's strides and its own place in the shared buffer.
 *
 * Upstream memoises the stride, size and offset suggestions per node and per surface until the
 * next `clearNodeTSDStateMapping`, and a surface's own strides and size are computed lazily from
 * its format and dims the first time they are read after a reset; both behaviours are kept
 * because later suggestions read earlier ones.
 */
import type { Dims4 } from '../network/model';
import type { TargetConfig } from '../targets';
import { featureChannelsPerGroup, formulaLineStride, formulaSize, formulaSurfaceStride, SurfaceError } from './surfaces';
import { surfaceFormat } from '../surface';
import type { EngineEdge, EngineGraph, EngineNode, TensorBufferDesc, TensorSurfaceDesc } from './model';

const NO_DIMS: Dims4 = { n: -1, c: -1, h: -1, w: -1 };

/** lookups of one engine graph by id, built once per use */
export class GraphIndex {
  readonly nodes = new Map<string, EngineNode>();
  readonly edges = new Map<string, EngineEdge>();
  readonly surfaces = new Map<string, TensorSurfaceDesc>();
  readonly buffers = new Map<string, TensorBufferDesc>();

  constructor(readonly g: EngineGraph) {
    for (const n of g.nodes) this.nodes.set(n.id, n);
    for (const e of g.edges) this.edges.set(e.id, e);
    for (const s of g.surfaces) this.surfaces.set(s.id, s);
    for (const b of g.buffers) this.buffers.set(b.id, b);
  }

  node(id: string): EngineNode {
    const n = this.nodes.get(id);
    if (!n) throw new SurfaceError(`no engine node ${id}`);
    return n;
  }

  edge(id: string): EngineEdge {
    const e = this.edges.get(id);
    if (!e) throw new SurfaceError(`no engine edge ${id}`);
    return e;
  }

  tsd(id: string): TensorSurfaceDesc {
    const s = this.surfaces.get(id);
    if (!s) throw new SurfaceError(`no surface ${id}`);
    return s;
  }

  /** the surface of an edge (registered) */
  tsdOfEdge(edgeId: string): TensorSurfaceDesc {
    const e = this.edge(edgeId);
    if (!e.surface) throw new SurfaceError(`TSD not yet registered for edge ${edgeId}`);
    return this.tsd(e.surface);
  }

  tsdOfEdgeOrNull(edgeId: string): TensorSurfaceDesc | null {
    const e = this.edge(edgeId);
    return e.surface ? (this.surfaces.get(e.surface) ?? null) : null;
  }

  addSurface(s: TensorSurfaceDesc): void {
    this.surfaces.set(s.id, s);
  }

  addBuffer(b: TensorBufferDesc): void {
    this.buffers.set(b.id, b);
  }

  /** `upstreamNodes(edge)[0]` */
  firstSource(edgeId: string): EngineNode | null {
    const s = this.edge(edgeId).sources[0];
    return s === undefined ? null : this.node(s);
  }

  firstTarget(edgeId: string): EngineNode | null {
    const t = this.edge(edgeId).targets[0];
    return t === undefined ? null : this.node(t);
  }

  /** `upstreamDataNodes(node)` (unique, in edge order) */
  upstreamDataNodes(node: EngineNode): EngineNode[] {
    const out: EngineNode[] = [];
    for (const id of node.upstream) {
      const e = this.edge(id);
      if (e.kind !== 'data') continue;
      for (const s of e.sources) if (!out.some((n) => n.id === s)) out.push(this.node(s));
    }
    return out;
  }

  downstreamDataNodes(node: EngineNode): EngineNode[] {
    const out: EngineNode[] = [];
    for (const id of node.downstream) {
      const e = this.edge(id);
      if (e.kind !== 'data') continue;
      for (const t of e.targets) if (!out.some((n) => n.id === t)) out.push(this.node(t));
    }
    return out;
  }
}

// ------------------------------------------------------------------ a surface's own lazy values

/** `TensorSurfaceDesc::lineStride()`: the stored value, or the format's formula stored on first read */
export function tsdLineStride(tsd: TensorSurfaceDesc, t: TargetConfig): number {
  if (tsd.lineStride !== 0) return tsd.lineStride;
  tsd.lineStride = formulaLineStride(tsd.format, tsd.dims, tsd.alignLineStride, t);
  return tsd.lineStride;
}

export function tsdSurfaceStride(tsd: TensorSurfaceDesc, t: TargetConfig): number {
  if (tsd.surfaceStride !== 0) return tsd.surfaceStride;
  tsd.surfaceStride = formulaSurfaceStride(tsd.format, tsd.dims, tsd.alignLineStride, t);
  return tsd.surfaceStride;
}

export function tsdSize(tsd: TensorSurfaceDesc, t: TargetConfig): number {
  if (tsd.size !== 0) return tsd.size;
  tsd.size = formulaSize(tsd.format, tsd.dims, tsd.alignLineStride, t);
  return tsd.size;
}

/** a node's aux surface with INT8 rescaling factors beside the data (SDP ops) */
function isInt8RescalingAux(node: EngineNode, ix: GraphIndex, tsd: TensorSurfaceDesc): boolean {
  const p = node.params;
  if (p.kind === 'sdp-super') {
    for (const sub of ['x1', 'x2', 'y'] as const) {
      const edgeId = p.auxEdgeOf[sub];
      if (edgeId && ix.edge(edgeId).aux && ix.edge(edgeId).surface === tsd.id) return p.sdp[sub].isINT8Rescaling;
    }
    return false;
  }
  if (!('sdp' in p)) return false;
  return p.sdp.x1.isINT8Rescaling && node.auxEdges.some((id) => ix.edge(id).surface === tsd.id);
}

/**
 * The suggestions of one round of surface determination (`clearNodeTSDStateMapping` starts a
 * new one): per node and surface, the line stride, surface stride, size and offset it asked
 * for, remembered as upstream remembers them.
 */
export class Suggestions {
  private readonly ls = new Map<TensorSurfaceDesc, Map<EngineNode, number>>();
  private readonly ss = new Map<TensorSurfaceDesc, Map<EngineNode, number>>();
  private readonly sz = new Map<TensorSurfaceDesc, Map<EngineNode, number>>();
  private readonly off = new Map<TensorSurfaceDesc, Map<EngineNode, number>>();

  constructor(
    readonly ix: GraphIndex,
    readonly target: TargetConfig,
    readonly computePrecision: string,
    readonly batches: number,
    /** makes a new buffer (`regTensorBufferDesc`) */
    readonly newBuffer: () => TensorBufferDesc,
  ) {}

  private probe(tsd: TensorSurfaceDesc, dims: Dims4): { ls: number; ss: number; size: number } {
    return {
      ls: formulaLineStride(tsd.format, dims, tsd.alignLineStride, this.target),
      ss: formulaSurfaceStride(tsd.format, dims, tsd.alignLineStride, this.target),
      size: formulaSize(tsd.format, dims, tsd.alignLineStride, this.target),
    };
  }

  private role(node: EngineNode, tsd: TensorSurfaceDesc): { src: boolean; aux: boolean; dst: boolean; inIndex: number; outIndex: number } {
    const inIndex = node.inputEdges.findIndex((id) => this.ix.edge(id).surface === tsd.id);
    const outIndex = node.outputEdges.findIndex((id) => this.ix.edge(id).surface === tsd.id);
    const aux = node.auxEdges.some((id) => this.ix.edge(id).surface === tsd.id);
    return { src: inIndex >= 0, aux, dst: outIndex >= 0, inIndex, outIndex };
  }

  private notMine(node: EngineNode, tsd: TensorSurfaceDesc): never {
    throw new SurfaceError(`TSD ${tsd.id} doesn't belong to ${node.name}`);
  }

  // ---------------------------------------------------------------- dims

  dims(node: EngineNode, tsd: TensorSurfaceDesc): Dims4 {
    const ix = this.ix;
    switch (node.engineType) {
      case 'CONVOLUTION': {
        const isSrc = node.inputEdges[0] !== undefined && ix.edge(node.inputEdges[0]).surface === tsd.id;
        const isAux = node.auxEdges[0] !== undefined && ix.edge(node.auxEdges[0]).surface === tsd.id;
        const isDst = node.outputEdges[0] !== undefined && ix.edge(node.outputEdges[0]).surface === tsd.id;
        if (!isSrc && !isAux && !isDst) this.notMine(node, tsd);
        if (node.engineOpType === 'CONVOLUTION_DECONV') {
          if (isSrc || isAux) return { ...tsd.dims };
          const k = this.target.atomicKSize;
          const align = this.computePrecision === 'INT8' ? k : k / 2;
          return { ...tsd.dims, c: roundUp(tsd.dims.c, align) };
        }
        if (isSrc) {
          const src = ix.firstSource(node.inputEdges[0]!);
          return src ? this.dims(src, ix.tsdOfEdge(node.inputEdges[0]!)) : { ...tsd.dims };
        }
        return { ...tsd.dims };
      }
      case 'SDP': {
        const r = this.role(node, tsd);
        if (!r.src && !r.aux && !r.dst) this.notMine(node, tsd);
        if (r.aux) return { ...tsd.dims };
        let inDims = NO_DIMS;
        const inEdge = node.inputEdges[0]!;
        const src = ix.firstSource(inEdge);
        if (src && node.fusedInput !== null) inDims = this.dims(src, ix.tsdOfEdge(inEdge));
        return { n: Math.max(tsd.dims.n, inDims.n), c: Math.max(tsd.dims.c, inDims.c), h: Math.max(tsd.dims.h, inDims.h), w: Math.max(tsd.dims.w, inDims.w) };
      }
      case 'CONCATENATION': {
        const r = this.role(node, tsd);
        if (!r.src && !r.dst) this.notMine(node, tsd);
        if (r.src) {
          const src = ix.firstSource(node.inputEdges[r.inIndex]!)!;
          return this.dims(src, tsd);
        }
        const axis = this.concatAxis(node);
        if (axis === 'W') throw new SurfaceError(`Don't yet support concat along Width direction for ${node.name}`);
        const out: Dims4 = { n: 1, c: 0, h: 0, w: 0 };
        let sum = 0;
        for (const id of node.inputEdges) {
          const src = ix.firstSource(id);
          if (!src) throw new SurfaceError(`No upstream node for input edge ${id} to node ${node.name}`);
          const d = this.dims(src, ix.tsdOfEdge(id));
          if (axis === 'H') {
            sum += d.h;
            out.w = Math.max(out.w, d.w);
            out.h = Math.max(out.h, sum);
            out.c = Math.max(out.c, d.c);
          } else {
            sum += d.c;
            out.w = Math.max(out.w, d.w);
            out.h = Math.max(out.h, d.h);
            out.c = Math.max(out.c, sum);
          }
        }
        return out;
      }
      case 'SPLIT': {
        const r = this.role(node, tsd);
        if (!r.src && !r.dst) this.notMine(node, tsd);
        const src = ix.firstSource(node.inputEdges[0]!);
        const s = src ? this.dims(src, ix.tsdOfEdge(node.inputEdges[0]!)) : NO_DIMS;
        const a = tsd.dims;
        switch (this.splitAxis(node)) {
          case 'W':
            throw new SurfaceError(`Don't yet support split along Width direction for ${node.name}`);
          case 'H':
            return { n: -1, w: Math.max(a.w, s.w), h: a.h, c: Math.max(a.c, s.c) };
          case 'C':
            return { n: -1, w: Math.max(a.w, s.w), h: Math.max(a.h, s.h), c: a.c };
          default:
            return { n: -1, w: Math.max(a.w, s.w), h: Math.max(a.h, s.h), c: Math.max(a.c, s.c) };
        }
      }
      case 'RUBIK': {
        const p = node.params;
        if (p.kind !== 'rubik') return { ...tsd.dims };
        const isSrc = ix.edge(node.inputEdges[0]!).surface === tsd.id;
        const isDst = ix.edge(node.outputEdges[0]!).surface === tsd.id;
        if (!isSrc && !isDst) this.notMine(node, tsd);
        const max4 = (a: Dims4, b: Dims4): Dims4 => ({ n: Math.max(a.n, b.n), c: Math.max(a.c, b.c), h: Math.max(a.h, b.h), w: Math.max(a.w, b.w) });
        if (isSrc) {
          const src = ix.firstSource(node.inputEdges[0]!);
          const inDims = src ? this.dims(src, ix.tsdOfEdge(node.inputEdges[0]!)) : NO_DIMS;
          const d = max4(p.contract.inDims, inDims);
          p.contract.inDims = d; // upstream refreshes its contract parameters here
          return { ...d };
        }
        const d = max4(p.contract.outDims, tsd.dims);
        p.contract.outDims = d;
        return { ...d };
      }
      default:
        return { ...tsd.dims };
    }
  }

  private concatAxis(node: EngineNode): 'C' | 'H' | 'W' {
    if (node.params.kind !== 'concat') throw new SurfaceError(`${node.name} is not a concat`);
    return node.params.axis;
  }

  private splitAxis(node: EngineNode): 'C' | 'H' | 'W' | 'NONE' {
    if (node.params.kind !== 'split') throw new SurfaceError(`${node.name} is not a split`);
    return node.params.axis;
  }

  private memo(map: Map<TensorSurfaceDesc, Map<EngineNode, number>>, node: EngineNode, tsd: TensorSurfaceDesc, f: () => number): number {
    let inner = map.get(tsd);
    const hit = inner?.get(node);
    if (hit !== undefined) return hit;
    const v = f();
    if (!inner) map.set(tsd, (inner = new Map()));
    inner.set(node, v);
    return v;
  }


  // ---------------------------------------------------------------- strides

  /** the large cube a concat writes into (`tempConcatLargeSurface`), from the suggested dims of its inputs */
  private concatLargeDims(node: EngineNode): { dims: Dims4; parts: Dims4[] } {
    const axis = this.concatAxis(node);
    const large: Dims4 = { n: 1, c: 0, h: 0, w: 0 };
    const parts: Dims4[] = [];
    let sw = 0;
    let sh = 0;
    let sc = 0;
    // a Caffe channel concat's inputs each start on a channel group (concat-gaps.ts), as their offsets do
    const caffeConcat = node.params.kind === 'concat' && node.params.canonicalInputs !== null;
    const dstFormat = axis === 'C' && caffeConcat ? surfaceFormat(this.ix.tsdOfEdge(node.outputEdges[0]!).format) : null;
    const perGroup = dstFormat && dstFormat.category === 'FEATURE_DATA' ? featureChannelsPerGroup(dstFormat, this.target) : 1;
    for (const id of node.inputEdges) {
      const src = this.ix.firstSource(id);
      if (!src) throw new SurfaceError(`No upstream node for input edge ${id} to node ${node.name}`);
      const d = this.dims(src, this.ix.tsdOfEdge(id));
      parts.push(d);
      if (axis === 'W') {
        sw += d.w;
        large.w = Math.max(large.w, sw);
        large.h = Math.max(large.h, d.h);
        large.c = Math.max(large.c, d.c);
      } else if (axis === 'H') {
        sh += d.h;
        large.w = Math.max(large.w, d.w);
        large.h = Math.max(large.h, sh);
        large.c = Math.max(large.c, d.c);
      } else {
        sc = Math.ceil(sc / perGroup) * perGroup + d.c;
        large.w = Math.max(large.w, d.w);
        large.h = Math.max(large.h, d.h);
        large.c = Math.max(large.c, sc);
      }
    }
    return { dims: large, parts };
  }

  private concatSink(node: EngineNode): EngineNode | null {
    const down = this.ix.downstreamDataNodes(node);
    return down.length && down[0]!.engineType === 'CONCATENATION' ? down[0]! : null;
  }

  private splitSource(node: EngineNode): EngineNode | null {
    const up = this.ix.upstreamDataNodes(node);
    return up.length && up[0]!.engineType === 'SPLIT' ? up[0]! : null;
  }

  lineStride(node: EngineNode, tsd: TensorSurfaceDesc): number {
    switch (node.engineType) {
      case 'CONVOLUTION':
      case 'SDP':
      case 'RUBIK':
        return this.memo(this.ls, node, tsd, () => this.probe(tsd, this.dims(node, tsd)).ls);
      case 'CONCATENATION':
        return this.memo(this.ls, node, tsd, () => {
          const sink = this.concatSink(node);
          if (sink) return this.lineStride(sink, this.ix.tsdOfEdge(node.outputEdges[0]!));
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const dst = r.dst ? tsd : this.ix.tsdOfEdge(node.outputEdges[0]!);
          return this.probe(dst, this.concatLargeDims(node).dims).ls;
        });
      case 'SPLIT':
        return this.memo(this.ls, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const srcTsd = r.src ? tsd : this.ix.tsdOfEdge(node.inputEdges[0]!);
          const up = this.ix.firstSource(node.inputEdges[0]!);
          return up ? this.lineStride(up, srcTsd) : tsdLineStride(tsd, this.target);
        });
      default:
        return tsdLineStride(tsd, this.target);
    }
  }

  surfaceStride(node: EngineNode, tsd: TensorSurfaceDesc): number {
    switch (node.engineType) {
      case 'CONVOLUTION':
      case 'SDP':
      case 'RUBIK':
        return this.memo(this.ss, node, tsd, () => this.probe(tsd, this.dims(node, tsd)).ss);
      case 'CONCATENATION':
        return this.memo(this.ss, node, tsd, () => {
          const sink = this.concatSink(node);
          if (sink) return this.surfaceStride(sink, this.ix.tsdOfEdge(node.outputEdges[0]!));
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const dst = r.dst ? tsd : this.ix.tsdOfEdge(node.outputEdges[0]!);
          return this.probe(dst, this.concatLargeDims(node).dims).ss;
        });
      case 'SPLIT':
        return this.memo(this.ss, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const srcTsd = r.src ? tsd : this.ix.tsdOfEdge(node.inputEdges[0]!);
          const up = this.ix.firstSource(node.inputEdges[0]!);
          return up ? this.surfaceStride(up, srcTsd) : tsdSurfaceStride(srcTsd, this.target);
        });
      default:
        return tsdSurfaceStride(tsd, this.target);
    }
  }

  // ---------------------------------------------------------------- size

  size(node: EngineNode, tsd: TensorSurfaceDesc): number {
    switch (node.engineType) {
      case 'CONVOLUTION':
      case 'RUBIK':
        return this.memo(this.sz, node, tsd, () => this.probe(tsd, this.dims(node, tsd)).size);
      case 'SDP': {
        if (node.params.kind === 'sdp-super') {
          // SDPSuperOpNode::suggestSurfaceSize: only its aux surfaces get a suggestion (0 otherwise, not remembered)
          const hit = this.sz.get(tsd)?.get(node);
          if (hit !== undefined) return hit;
          const p = node.params;
          let sub: 'x1' | 'x2' | 'y' | null = null;
          for (const s of ['x1', 'x2', 'y'] as const) {
            const edgeId = p.auxEdgeOf[s];
            if (edgeId && this.ix.edge(edgeId).aux && this.ix.edge(edgeId).surface === tsd.id) {
              sub = s;
              break;
            }
          }
          if (!sub) return 0;
          let size = this.probe(tsd, this.dims(node, tsd)).size;
          if (p.sdp[sub].isINT8Rescaling) size *= 2;
          let inner = this.sz.get(tsd);
          if (!inner) this.sz.set(tsd, (inner = new Map()));
          inner.set(node, size);
          return size;
        }
        return this.memo(this.sz, node, tsd, () => {
          let size = this.probe(tsd, this.dims(node, tsd)).size;
          if (isInt8RescalingAux(node, this.ix, tsd)) size *= 2;
          return size;
        });
      }
      case 'CONCATENATION':
        return this.memo(this.sz, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const dst = r.dst ? tsd : this.ix.tsdOfEdge(node.outputEdges[0]!);
          const { dims, parts } = this.concatLargeDims(node);
          const d = { ...dims };
          if (r.src) {
            const mine = parts[r.inIndex]!;
            const axis = this.concatAxis(node);
            if (axis === 'W') d.w = mine.w;
            else if (axis === 'H') d.h = mine.h;
            else d.c = mine.c;
          }
          return this.probe(dst, d).size;
        });
      case 'SPLIT':
        return this.memo(this.sz, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const srcTsd = r.src ? tsd : this.ix.tsdOfEdge(node.inputEdges[0]!);
          const up = this.ix.firstSource(node.inputEdges[0]!);
          if (r.dst) {
            const inDims = up ? this.dims(up, srcTsd) : srcTsd.dims;
            const a = tsd.dims;
            let large: Dims4;
            switch (this.splitAxis(node)) {
              case 'W':
                throw new SurfaceError(`Don't yet support split along Width direction for ${node.name}`);
              case 'H':
                large = { n: 1, w: Math.max(a.w, inDims.w), h: a.h, c: Math.max(a.c, inDims.c) };
                break;
              case 'C':
                large = { n: 1, w: Math.max(a.w, inDims.w), h: Math.max(a.h, inDims.h), c: a.c };
                break;
              default:
                large = { n: 1, w: inDims.w, h: inDims.h, c: inDims.c };
            }
            return this.probe(srcTsd, large).size;
          }
          return up ? this.size(up, tsd) : tsdSize(tsd, this.target);
        });
      default:
        return tsdSize(tsd, this.target);
    }
  }

  // ---------------------------------------------------------------- offset in the buffer

  offset(node: EngineNode, tsd: TensorSurfaceDesc): number {
    switch (node.engineType) {
      case 'CONVOLUTION':
        return this.memo(this.off, node, tsd, () => {
          const ix = this.ix;
          const isSrc = ix.edge(node.inputEdges[0]!).surface === tsd.id;
          const isDst = ix.edge(node.outputEdges[0]!).surface === tsd.id;
          const isAux = node.auxEdges[0] !== undefined && ix.edge(node.auxEdges[0]).surface === tsd.id;
          if (!isSrc && !isDst && !isAux) this.notMine(node, tsd);
          const p = node.params.kind === 'conv' ? node.params.conv : null;
          if (isAux) return 0;
          if (isSrc) {
            const up = ix.upstreamDataNodes(node)[0];
            if (up && up.engineType === 'SPLIT') {
              switch (this.splitAxis(up)) {
                case 'W':
                  throw new SurfaceError(`Don't yet support conv split-w mode for ${node.name}`);
                case 'H':
                  return p?.splitData?.inputBufferOffset ?? 0;
                case 'C':
                  return this.offset(up, tsd);
                default:
                  return 0;
              }
            }
            return 0;
          }
          return p?.splitData?.outputBufferOffset ?? 0;
        });
      case 'SDP':
        return this.memo(this.off, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.aux && !r.dst) this.notMine(node, tsd);
          const srcTsd = r.src ? tsd : this.ix.tsdOfEdge(node.inputEdges[0]!);
          if (r.aux) return 0;
          if (r.src) return srcTsd.category === 'STREAM' ? srcTsd.bufferOffset : 0;
          const sink = this.ix.downstreamDataNodes(node)[0];
          if (sink && sink.engineType === 'CONCATENATION') {
            if (this.concatAxis(sink) === 'W') throw new SurfaceError(`Don't yet support split-w mode for ${node.name}`);
            return this.offset(sink, tsd);
          }
          return 0;
        });
      case 'CONCATENATION':
        return this.memo(this.off, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const axis = this.concatAxis(node);
          if (r.src) {
            let offset = 0;
            for (const id of node.inputEdges) {
              const e = this.ix.edge(id);
              if (e.surface === tsd.id) break;
              const src = this.ix.firstSource(id);
              if (!src) throw new SurfaceError(`No upstream node for input edge ${id} to node ${node.name}`);
              const inTsd = this.ix.tsdOfEdge(id);
              const d = this.dims(src, inTsd);
              if (axis === 'W') throw new SurfaceError(`Don't support concat along W dimension yet for ${node.name}`);
              offset += axis === 'H' ? this.lineStride(node, inTsd) * d.h : this.size(node, inTsd);
            }
            return offset + this.offset(node, this.ix.tsdOfEdge(node.outputEdges[0]!));
          }
          const sink = this.concatSink(node);
          return sink ? this.offsetInConcatChain(sink, tsd) : 0;
        });
      case 'SPLIT':
        return this.memo(this.off, node, tsd, () => {
          const r = this.role(node, tsd);
          if (!r.src && !r.dst) this.notMine(node, tsd);
          const axis = this.splitAxis(node);
          if (r.dst) {
            const inEdge = node.inputEdges[0]!;
            const up = this.ix.firstSource(inEdge);
            const inTsd = this.ix.tsdOfEdge(inEdge);
            const inDims = up ? this.dims(up, inTsd) : inTsd.dims;
            let offset = 0;
            let k = 0;
            for (; k < node.outputEdges.length; k++) {
              const id = node.outputEdges[k]!;
              const outTsd = this.ix.tsdOfEdge(id);
              if (outTsd.id === tsd.id) break;
              const sink = this.ix.firstTarget(id);
              if (!sink) throw new SurfaceError(`No downstream node for output edge ${id} of ${node.name}`);
              const d = this.dims(sink, outTsd);
              if (axis === 'W') throw new SurfaceError(`Dont yet support split along Widht direction for ${node.name}`);
              if (axis === 'H') offset += this.lineStride(node, outTsd) * d.h;
              else if (axis === 'C') offset += this.size(node, outTsd);
              else offset = 0;
            }
            if (axis === 'H') {
              let sumH = 0;
              for (const id of node.outputEdges) {
                const sink = this.ix.firstTarget(id);
                if (!sink) throw new SurfaceError(`No downstream node for output edge ${id} of ${node.name}`);
                sumH += this.dims(sink, this.ix.tsdOfEdge(id)).h;
              }
              if (!(sumH === inDims.h && sumH === inTsd.dims.h)) {
                // overlapping bands: the consumer on the other side knows where its band starts
                const outId = node.outputEdges[k];
                const sink = outId === undefined ? null : this.ix.firstTarget(outId);
                if (!sink) throw new SurfaceError(`No sink node for output edge of ${node.name}`);
                offset = this.offset(sink, tsd);
              }
            }
            return offset + this.offset(node, inTsd);
          }
          const src = this.splitSource(node);
          return src ? this.offsetInSplitChain(src, tsd) : 0;
        });
      default:
        return tsd.bufferOffset;
    }
  }

  /** `ConcatenationNode::suggestOffsetInConcatChain` */
  private offsetInConcatChain(node: EngineNode, inTsd: TensorSurfaceDesc): number {
    const sink = this.concatSink(node);
    if (sink) return this.offsetInConcatChain(sink, this.ix.tsdOfEdge(node.outputEdges[0]!));
    const axis = this.concatAxis(node);
    let offset = 0;
    for (const id of node.inputEdges) {
      const t = this.ix.tsdOfEdge(id);
      if (t.id === inTsd.id) break;
      const src = this.ix.firstSource(id);
      if (!src) throw new SurfaceError(`No upstream node for input edge ${id} to node ${node.name}`);
      const d = this.dims(src, t);
      if (axis === 'W') throw new SurfaceError(`Don't support concat along W dimension yet for ${node.name}`);
      offset += axis === 'H' ? t.lineStride * d.h : t.size;
    }
    return offset;
  }

  /** `SplitNode::suggestOffsetInSplitChain` */
  private offsetInSplitChain(node: EngineNode, outTsd: TensorSurfaceDesc): number {
    const src = this.splitSource(node);
    if (src) return this.offsetInSplitChain(src, this.ix.tsdOfEdge(node.inputEdges[0]!));
    const axis = this.splitAxis(node);
    let offset = 0;
    for (const id of node.outputEdges) {
      const t = this.ix.tsdOfEdge(id);
      if (t.id === outTsd.id) break;
      const sink = this.ix.firstTarget(id);
      if (!sink) throw new SurfaceError(`No downstream node for output edge ${id} to node ${node.name}`);
      const d = this.dims(sink, t);
      if (axis === 'W') throw new SurfaceError(`Don't yet support split along W dimension for ${node.name}`);
      if (axis === 'H') offset += t.lineStride * d.h;
      else if (axis === 'C') offset += t.size;
    }
    return offset;
  }

  // ---------------------------------------------------------------- buffer

  /** `suggestBuffer`: software nodes (concat, split) share one buffer among all their edges */
  buffer(node: EngineNode, tsd: TensorSurfaceDesc): TensorBufferDesc {
    const ix = this.ix;
    const tbdOfEdge = (id: string): TensorBufferDesc | null => {
      const t = ix.tsdOfEdgeOrNull(id);
      return t?.buffer ? ix.buffers.get(t.buffer)! : null;
    };
    const own = tsd.buffer ? ix.buffers.get(tsd.buffer)! : null;
    if (node.engineType === 'CONCATENATION') {
      const r = this.role(node, tsd);
      if (!r.src && !r.dst) this.notMine(node, tsd);
      let tb = r.dst ? own : tbdOfEdge(node.outputEdges[0]!);
      if (!tb) for (const id of node.inputEdges) if ((tb = tbdOfEdge(id))) break;
      return tb ?? this.newBuffer();
    }
    if (node.engineType === 'SPLIT') {
      const r = this.role(node, tsd);
      if (!r.src && !r.dst) this.notMine(node, tsd);
      let tb = r.src ? own : tbdOfEdge(node.inputEdges[0]!);
      if (!tb) for (const id of node.outputEdges) if ((tb = tbdOfEdge(id))) break;
      return tb ?? this.newBuffer();
    }
    return own ?? this.newBuffer();
  }
}

function roundUp(n: number, a: number): number {
  return n % a ? n + a - (n % a) : n;
}

/** software nodes: no hardware op, they only arrange surfaces in shared buffers */
export function isSoftwareNode(node: EngineNode): boolean {
  return node.engineType === 'CONCATENATION' || node.engineType === 'SPLIT';
}

/**
 * Pass `translateAuxData` (`Graph::translateAuxData`): aux data in the layouts the engines
 * read. Convolution weights go to the direct-convolution atom order (an image convolution that
 * was post-extended already is); bias, scale and batch-norm data go to per-layer / per-channel
 * arrays (per-element data to feature-data order), in the aux surface's precision (int16 for
 * INT8, fp16 for FP16); per-filter INT8 bias is interleaved with its int16 multipliers.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import type { EngineNode } from '../model';
import { surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { computeBlobType, translateWtsForDC, weightDims, type BlobType, type WeightBlob } from '../weights';
import { float32ToHalfTiesAway } from '../../half-ties-away';
import { interleaveBatchNorm } from '../sdp-math';
import { editCopy, type EnginePass } from './pass';

function convert(to: BlobType, from: BlobType): (v: number) => number {
  if (to === 'HALF' && from === 'FLOAT') return float32ToHalfTiesAway;
  if (to === 'HALF' && from === 'HALF') return (v) => v;
  return (v) => Math.trunc(v);
}

function newBlob(type: BlobType, n: number): WeightBlob {
  const values = type === 'HALF' ? new Uint16Array(n) : type === 'INT16' ? new Int16Array(n) : type === 'INT8' ? new Int8Array(n) : new Float32Array(n);
  return { type, count: n, values };
}

/** `translateDataForBias` / `translateDataForScale` (per layer, per channel; per element as feature data) */
export function translateSdpData(mode: string, dims: { n: number; c: number; h: number; w: number }, src: WeightBlob, rt: BlobType, channelsPerGroup: number, node: EngineNode): WeightBlob {
  const conv = convert(rt, src.type);
  if (mode === 'PER_LAYER') {
    const out = newBlob(rt, src.count);
    out.values[0] = conv(src.values[0]!);
    return { ...out, count: 1 };
  }
  if (mode === 'PER_CHANNEL') {
    const out = newBlob(rt, src.count);
    for (let c = 0; c < dims.c; c++) out.values[c] = conv(src.values[c]!);
    return { ...out, count: dims.c };
  }
  if (mode === 'PER_ELEMENT') {
    const cf = channelsPerGroup !== 0 ? channelsPerGroup : rt === 'INT8' ? 32 : 16;
    const cfg = Math.floor(dims.c / cf);
    const cp = dims.c % cf;
    const size = (cfg + (cp ? 1 : 0)) * cf * dims.w * dims.h;
    const out = newBlob(rt, size);
    let n = 0;
    for (let g = 0; g < cfg; g++)
      for (let r = 0; r < dims.h; r++)
        for (let s = 0; s < dims.w; s++)
          for (let c = g * cf; c < g * cf + cf; c++) out.values[n++] = conv(src.values[s + dims.w * (r + dims.h * c)]!);
    if (cp)
      for (let r = 0; r < dims.h; r++)
        for (let s = 0; s < dims.w; s++)
          for (let c = cfg * cf; c < cfg * cf + cf; c++) out.values[n++] = c < cfg * cf + cp ? conv(src.values[s + dims.w * (r + dims.h * c)]!) : 0;
    return out;
  }
  throw new Error(`Don't support data translation for ${node.name} with sdp mode: ${mode}`);
}

export const translateAuxDataPass: EnginePass = {
  name: 'translateAuxData',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      const ed = new EngineGraphEditor(g);
      const t = ctx.target;
      for (const node of orderedElements(g).nodes) {
        const p = node.params;
        if (p.kind === 'conv') {
          const inTsd = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          if (surfaceFormat(inTsd.format).category === 'IMG' && p.conv.postExtension > 0) continue; // already laid out
          const raw = p.conv.rawWeights;
          const d = aux.dims;
          if (raw.count !== d.n * d.c * d.h * d.w) throw new Error(`${node.name}: kernel dims dont match kernel size`);
          const deconv = node.engineOpType === 'CONVOLUTION_DECONV';
          p.conv.dlaWeights = translateWtsForDC(weightDims(raw.count, d.n, d.c, d.w, d.h, p.conv.stride.w, p.conv.stride.h), raw, computeBlobType(ctx.profile.computePrecision), t.atomicKSize, t.atomicCSize, t.numConvBufEntryWidth, deconv);
          changes.changed.push(node.id);
          continue;
        }
        if (p.kind === 'sdp-bias' || p.kind === 'sdp-scale') {
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          const inTsd = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
          const rt = computeBlobType(surfaceFormat(aux.format).precision);
          const cpg = surfaceFormat(inTsd.format).precision === 'INT8' ? t.atomicKSize : 0;
          const raw = p.kind === 'sdp-bias' ? p.rawBiasData : p.rawScaleData;
          const d = aux.dims;
          if (raw.count !== d.n * d.c * d.h * d.w) throw new Error(`${node.name}: ${p.kind === 'sdp-bias' ? 'bias' : 'scale'} dims dont match ${p.kind === 'sdp-bias' ? 'bias' : 'scale'} size`);
          let out = translateSdpData(p.sdp.x1.mode, d, raw, rt, cpg, node);
          if (p.kind === 'sdp-bias' && p.sdp.x1.isINT8Rescaling) {
            aux.alignLineStride = true;
            const scl = translateSdpData(p.sdp.x1.mode, d, p.rescaleData!, rt, cpg, node);
            const inter = newBlob(rt, out.count * 2);
            for (let i = 0; i < out.count; i++) {
              inter.values[2 * i] = out.values[i]!;
              inter.values[2 * i + 1] = scl.values[i]!;
            }
            out = inter;
          }
          if (p.kind === 'sdp-bias') p.dlaBiasData = out;
          else p.dlaScaleData = out;
          changes.changed.push(node.id);
          continue;
        }
        if (p.kind === 'sdp-bn') {
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          const mode = p.sdp.x1.mode;
          if (mode !== 'PER_LAYER' && mode !== 'PER_CHANNEL') throw new Error(`${node.name}: BN ${mode === 'PER_ELEMENT' ? 'per-element translation is not yet supported' : 'mode is unknown'}`);
          p.dlaBatchNormData = interleaveBatchNorm(p.rawMeanData, p.rawVarianceData, computeBlobType(surfaceFormat(aux.format).precision));
          changes.changed.push(node.id);
        }
      }
      refreshGraphState(g, ctx);
    });
  },
};

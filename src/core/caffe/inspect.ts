/**
 * The plain-data summary `npu-studio inspect NET.prototxt [--caffemodel W] --json` prints for a
 * Caffe net (issue 11): format version as written, layer counts by type over the chosen phase,
 * input and output shapes, the final shape of every blob, and the parameter count.
 */
import type { CaffeModel } from './model';
import { layerTypeCounts, parameterCount } from './net';

export interface CaffeInspectJson {
  format: 'caffe';
  version: 'V0' | 'V1' | 'V2';
  name: string;
  phase: 'TRAIN' | 'TEST';
  layers: number;
  types: Record<string, number>;
  inputs: { name: string; shape: number[] | null }[];
  outputs: { name: string; shape: number[] | null }[];
  /** final shape of every blob by name (null when it cannot be inferred) */
  blobs: Record<string, number[] | null>;
  params: number;
  /** layers whose weights did not fit or were missing (only with a weights file) */
  weights?: { file: string; matched: number; mismatched: string[]; missing: string[]; ignored: number };
  /** the upgrade steps applied, e.g. ['V1->V2', 'input-fields'] */
  upgrades: string[];
}

export function inspectCaffe(model: CaffeModel): CaffeInspectJson {
  const net = model.net;
  const blob = (b: number) => ({ name: net.blobs[b]!.name, shape: net.blobs[b]!.shape });
  const blobs: Record<string, number[] | null> = {};
  for (const b of net.blobs) if (b.final) blobs[b.name] = b.shape;
  const out: CaffeInspectJson = {
    format: 'caffe',
    version: model.netFile.version,
    name: net.name,
    phase: model.phase,
    layers: net.layers.length,
    types: layerTypeCounts(net),
    inputs: net.inputs.map(blob),
    outputs: net.outputs.map(blob),
    blobs,
    params: parameterCount(net),
    upgrades: model.steps.map((s) => s.id),
  };
  if (model.weightsFile && model.merge) {
    const rows = model.merge.rows;
    out.weights = {
      file: model.weightsFile.file,
      matched: rows.filter((r) => r.status === 'matched').length,
      mismatched: rows.filter((r) => r.status === 'mismatch').map((r) => r.layer),
      missing: rows.filter((r) => r.status === 'missing').map((r) => r.layer),
      ignored: rows.filter((r) => r.status === 'ignored').length,
    };
  }
  return out;
}

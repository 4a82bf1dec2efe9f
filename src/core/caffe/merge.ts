/**
 * Deploy net + trained weights, merged by layer name as Caffe's Net::CopyTrainedLayersFrom does:
 * for every layer of the (upgraded) weights net, the deploy layer of the same name takes its
 * blobs when the blob count and every blob's shape fit; a legacy num/channels/height/width blob
 * fits a target of at most 4 axes padded on the left with 1s (Blob::ShapeEquals). A weights layer
 * with no deploy layer of that name is ignored (weight files hold the training net).
 *
 * Caffe aborts on a count or shape mismatch; the studio keeps the layer without weights and says
 * why, and also names every deploy layer that expects learnable blobs but got none.
 */
import type { Diagnostic } from '../errors';
import { messages, type ProtoMessage } from './proto';
import { weightBlobsOf, type CaffeNet, type WeightBlob } from './net';
import type { Shape } from './shapes';
import type { SourceLocation } from './upgrade';

export type MergeStatus = 'matched' | 'mismatch' | 'missing' | 'ignored';

export interface MergeRow {
  layer: string;
  type: string;
  status: MergeStatus;
  /** blob shapes from the weights file (matched, mismatch, ignored) */
  shapes: Shape[];
  /** what the deploy layer expects (matched, mismatch, missing) */
  expected: Shape[];
  note: string;
}

export interface MergeReport {
  rows: MergeRow[];
  diagnostics: Diagnostic[];
}

/** Blob::ShapeEquals: a legacy 4-D blob matches a target of <= 4 axes padded on the left with 1s. */
export function blobShapeFits(blob: WeightBlob, target: Shape): boolean {
  if (blob.legacy) {
    if (target.length > 4) return false;
    const padded = [...new Array<number>(4 - target.length).fill(1), ...target];
    return padded.every((d, i) => d === blob.shape[i]);
  }
  return blob.shape.length === target.length && blob.shape.every((d, i) => d === target[i]);
}

function fmt(s: Shape): string {
  return `[${s.join(',')}]`;
}

export function mergeWeights(net: CaffeNet, weightsNet: ProtoMessage, weightsFile: string, weightSources: SourceLocation[] = []): MergeReport {
  const rows: MergeRow[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, number>();
  net.layers.forEach((l, i) => {
    if (!byName.has(l.name)) byName.set(l.name, i);
  });
  const filled = new Set<number>();
  messages(weightsNet, 'layer').forEach((src, si) => {
    const name = typeof src.name === 'string' ? src.name : '';
    const type = typeof src.type === 'string' ? src.type : '';
    const blobs = weightBlobsOf(src, 'weights');
    const target = byName.get(name);
    if (target === undefined) {
      rows.push({ layer: name, type, status: 'ignored', shapes: blobs.map((b) => b.shape), expected: [], note: 'no deploy layer of this name (Caffe: "Ignoring source layer")' });
      return;
    }
    const layer = net.layers[target]!;
    if (filled.has(target)) return; // a second source layer of the same name: Caffe copies again; the first is kept here
    const expected = layer.expected;
    const shapes = blobs.map((b) => b.shape);
    const at = layer.source;
    if (expected === null) {
      if (blobs.length > 0) {
        layer.weights = blobs;
        filled.add(target);
        rows.push({ layer: name, type: layer.type, status: 'matched', shapes, expected: [], note: 'shapes not checked: the layer\'s input shape is unknown' });
      }
      return;
    }
    if (expected.length !== blobs.length) {
      if (blobs.length === 0 && expected.length > 0) return; // reported below as missing
      const note = `the weights file has ${blobs.length} blob${blobs.length === 1 ? '' : 's'} for layer '${name}', the deploy layer expects ${expected.length} (Caffe: "Incompatible number of blobs")`;
      rows.push({ layer: name, type: layer.type, status: 'mismatch', shapes, expected: expected.map((e) => e.shape), note });
      diagnostics.push({ severity: 'warning', file: weightsFile, ...(weightSources[si] ?? {}), message: `${note}; the layer keeps no weights` });
      filled.add(target);
      layer.weights = [];
      return;
    }
    const bad = blobs.findIndex((b, j) => !blobShapeFits(b, expected[j]!.shape));
    if (bad >= 0) {
      const note = `blob ${bad} (${expected[bad]!.role}) of layer '${name}' has shape ${fmt(blobs[bad]!.shape)} in the weights file, the deploy layer expects ${fmt(expected[bad]!.shape)}`;
      rows.push({ layer: name, type: layer.type, status: 'mismatch', shapes, expected: expected.map((e) => e.shape), note });
      diagnostics.push({ severity: 'warning', file: weightsFile, ...at, message: `${note}; the layer keeps no weights` });
      filled.add(target);
      layer.weights = [];
      return;
    }
    layer.weights = blobs.map((b, j) => ({ ...b, shape: expected[j]!.shape.slice(), legacy: false }));
    filled.add(target);
    if (blobs.length > 0) rows.push({ layer: name, type: layer.type, status: 'matched', shapes, expected: expected.map((e) => e.shape), note: blobs.some((b) => b.legacy) ? 'legacy num/channels/height/width blobs' : '' });
  });
  net.layers.forEach((layer, i) => {
    if (!layer.expected || layer.expected.length === 0) return;
    if (filled.has(i) && layer.weights.length > 0) return;
    if (filled.has(i)) return; // mismatch, already reported
    if (layer.weights.length > 0) return; // blobs written in the deploy file itself
    rows.push({ layer: layer.name, type: layer.type, status: 'missing', shapes: [], expected: layer.expected.map((e) => e.shape), note: 'no layer of this name in the weights file' });
    diagnostics.push({ severity: 'warning', file: weightsFile, ...layer.source, message: `layer '${layer.name}' (${layer.type}) has learnable blobs but the weights file has no layer of that name: it has no weights` });
  });
  return { rows, diagnostics };
}

/** Deploy layers that expect learnable blobs and have none (a run refuses them). */
export function layersWithoutWeights(net: CaffeNet): string[] {
  return net.layers.filter((l) => l.expected && l.expected.length > 0 && l.weights.length === 0).map((l) => l.name);
}

/**
 * Blobs written in the net file itself (a .caffemodel opened alone, or a prototxt with `blobs`):
 * checked against the expected shapes like merged weights; legacy 4-D shapes take the expected
 * shape, mismatches are dropped with a warning.
 */
export function checkEmbeddedWeights(net: CaffeNet, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const layer of net.layers) {
    if (layer.weights.length === 0 || !layer.expected) continue;
    const expected = layer.expected;
    if (expected.length !== layer.weights.length) {
      diagnostics.push({ severity: 'warning', file, ...layer.source, message: `layer '${layer.name}' holds ${layer.weights.length} blobs, its type expects ${expected.length}; the layer keeps no weights` });
      layer.weights = [];
      continue;
    }
    const bad = layer.weights.findIndex((b, j) => !blobShapeFits(b, expected[j]!.shape));
    if (bad >= 0) {
      diagnostics.push({ severity: 'warning', file, ...layer.source, message: `blob ${bad} (${expected[bad]!.role}) of layer '${layer.name}' has shape ${fmt(layer.weights[bad]!.shape)}, the layer expects ${fmt(expected[bad]!.shape)}; the layer keeps no weights` });
      layer.weights = [];
      continue;
    }
    layer.weights = layer.weights.map((b, j) => ({ ...b, shape: expected[j]!.shape.slice(), legacy: false }));
  }
  return diagnostics;
}

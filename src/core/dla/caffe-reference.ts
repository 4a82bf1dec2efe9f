/**
 * The Caffe float forward pass (core/caffe) as the DLA model's reference: each layer's output by
 * layer name (the names op slots map to through their origins, and the calibration table's keys),
 * and the net inputs by blob name.
 */
import type { RunResult } from '../caffe/forward/run';
import type { CaffeNet } from '../caffe/net';
import type { CalibrationCollector, TieLayer } from './calibrate';
import type { ReferenceTensor } from './compare';

/** Layer name -> its first top's value in `result` (an in-place layer's own version, not a later one's). */
export function layerOutputs(net: CaffeNet, result: RunResult): Record<string, ReferenceTensor> {
  const out: Record<string, ReferenceTensor> = {};
  for (const l of net.layers) {
    const top = l.tops[0];
    if (top === undefined) continue;
    const key = net.blobs[top]!.key;
    const t = result.values.get(key);
    if (t) out[l.type === 'Input' ? net.blobs[top]!.name : l.name] = { shape: t.shape, values: t.data };
  }
  return out;
}

/** Every net input (by blob name) and layer output (by layer name) of one run into the collector. */
export function collectRun(collector: CalibrationCollector, net: CaffeNet, result: RunResult): void {
  for (const [name, t] of Object.entries(layerOutputs(net, result))) collector.add(name, t.values);
  collector.next();
}

/** The net's layers as the scale ties read them. */
export function netLayers(net: CaffeNet): TieLayer[] {
  return net.layers.map((l) => ({ name: l.name, type: l.type, bottoms: l.bottoms.map((b) => net.blobs[b]!.name), tops: l.tops.map((t) => net.blobs[t]!.name) }));
}

/** Test helpers shared by the Caffe tests (not used by product code). */
import { buildNet, type CaffeNet } from './net';
import { BlobValues } from './proto';
import { readPrototxt } from './read';

/** A net from prototxt text, with weights given per layer name as [shape, values] pairs. */
export function netFromText(text: string, weights: Record<string, [number[], number[]][]> = {}, file = 'test.prototxt'): CaffeNet {
  const r = readPrototxt(text, file);
  const net = buildNet(r.net, { file, layerSources: r.layerSources });
  for (const l of net.layers) {
    const w = weights[l.name];
    if (w) l.weights = w.map(([shape, values]) => ({ shape, legacy: false, values: BlobValues.fromNumbers('float', values), origin: 'file' as const }));
  }
  return net;
}

/** `input: "data" input_shape { dim ... }` header for small test nets. */
export function inputHeader(shape: number[], name = 'data'): string {
  return `input: "${name}" input_shape { ${shape.map((d) => `dim: ${d}`).join(' ')} }\n`;
}

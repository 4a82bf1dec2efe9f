import { describe, expect, it } from 'vitest';
import { goldenCase } from '../../../../test/support/nvdla/golden';
import { compileNvdla } from '../compile';
import { cloneEngineGraph } from './graph';
import { isSharedWeightBlob } from './weights';

/** every difference between a graph and its copy: values that differ, objects shared (not copied), typed arrays copied (not shared) */
function copyDefects(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length > 20) return;
  if (a === null || typeof a !== 'object') {
    if (!Object.is(a, b)) out.push(`${path}: ${String(a)} became ${String(b)}`);
    return;
  }
  if (ArrayBuffer.isView(a) || isSharedWeightBlob(a)) {
    if (a !== b) out.push(`${path}: weights copied instead of shared`);
    return;
  }
  if (b === null || typeof b !== 'object') {
    out.push(`${path}: an object became ${String(b)}`);
    return;
  }
  if (a === b) out.push(`${path}: shared with the original`);
  if (Array.isArray(a) !== Array.isArray(b)) out.push(`${path}: array-ness changed`);
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join() !== kb.join()) out.push(`${path}: keys ${ka.join()} became ${kb.join()}`);
  for (const k of ka) copyDefects((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, out);
}

describe('cloneEngineGraph', () => {
  // the graph after every pass (nodes of each kind, surfaces, buffers, tasks, pools, memory
  // events, dependencies) of nets with batch, INT8 scales, calibration and both precisions
  for (const name of ['lenet-b1-nv_full-int8-fast-math-calib', 'lenet-b64-nv_small-int8-fast-math', 'cifar10quick-b1-nv_full-fp16-fast-math']) {
    it(`${name}: every stage graph copied whole, every object fresh, weights shared`, () => {
      const c = goldenCase(name);
      const r = compileNvdla(c.deploy, c.weights, c.options);
      expect(r.passes.length).toBe(15);
      const bad: string[] = [];
      for (const g of [r.engine!, ...r.passes.map((p) => p.graph)]) copyDefects(g, cloneEngineGraph(g), 'graph', bad);
      expect(bad).toEqual([]);
    });
  }

  it('an edit of the copy leaves the original as it was', () => {
    const c = goldenCase('lenet-b1-nv_full-int8-fast-math');
    const g = compileNvdla(c.deploy, c.weights, c.options).passes.at(-1)!.graph;
    const plain = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (ArrayBuffer.isView(v) ? `weights ${v.byteLength} B` : v));
    const before = plain(g);
    const copy = cloneEngineGraph(g);
    copy.nodes[0]!.upstream.push('e-999');
    copy.nodes[0]!.dependency[0]!.producers[0]!.node = 'n-999';
    copy.edges[0]!.tensor!.dims.c = 999;
    copy.surfaces[0]!.dims.h = 999;
    copy.buffers[0]!.placement.push({ pool: null, poolOffset: 1, location: 'DRAM', allocated: true });
    copy.counters.names['x-'] = 5;
    copy.memoryEvents.length = 0;
    expect(plain(g)).toBe(before);
  });
});

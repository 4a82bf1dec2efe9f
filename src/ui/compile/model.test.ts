import { describe, expect, it } from 'vitest';
import type { Graph } from '../../core/graph/model';
import type { CompileSummary, MemoryPlan, OriginsSidecar, PassStep } from '../../worker/api';
import { engineEdgeStyle, layerNames, nodesWithOrigins, optionText, originsFileName, planRects, relatedNodes, slotLayers, stepColours, stepOutlines } from './model';

const tablesOf = (origins: number[][]) => ({ origins, edgeKinds: [] });
// LeNet's shape: Caffe conv1 (1), pool1 (2), ip1 with relu1 folded (5, 6); canonical n-0..; engine dc-conv-0, bias-0, pdp-0, fc-0, bias-2 (fused: 5, 6)
const summary = {
  sources: [{ id: 1, name: 'conv1' }, { id: 2, name: 'pool1' }, { id: 5, name: 'ip1' }, { id: 6, name: 'relu1' }],
  caffeOrigins: [[], [1], [2], [5, 6]],
} as unknown as CompileSummary;
const tables = { canonical: tablesOf([[], [1], [2], [5], [6]]), 'pass:2': tablesOf([[], [1], [1], [2], [5], [5, 6]]) };

describe('compile view model', () => {
  it('a selection in one pane relates the nodes of the others that share an origin id', () => {
    expect(nodesWithOrigins([[1], [2], [1, 2], []], [1])).toEqual([0, 2]);
    expect(nodesWithOrigins([[1]], [])).toEqual([]);
    const conv1 = relatedNodes(summary, tables, 'pass:2', { pane: 'caffe', index: 1 });
    expect(conv1).toEqual({ caffe: null, canonical: [1], engine: [1, 2] });
    // the fused bias-2 stands for ip1 and relu1: the Caffe box drawing both, both canonical nodes
    expect(relatedNodes(summary, tables, 'pass:2', { pane: 'engine', index: 5 })).toEqual({ caffe: [3], canonical: [3, 4], engine: null });
    expect(relatedNodes(summary, tables, 'pass:2', null)).toEqual({ caffe: null, canonical: null, engine: null });
    // an engine graph whose tables are not in yet (being fetched): nothing related there, the rest still is
    expect(relatedNodes(summary, tables, 'pass:9', { pane: 'caffe', index: 1 })).toEqual({ caffe: null, canonical: [1], engine: [] });
    expect(layerNames(summary, [5, 6, 9])).toEqual(['ip1', 'relu1', 'layer 9']);
  });

  it('a pass outlines what it inserted, changed and fused; generateGraph and idle passes outline nothing', () => {
    const graph = { nodes: ['n-0', 'n-1', 'n-7', 'n-20'].map((id) => ({ id })) } as unknown as Graph;
    const c = stepColours('light');
    const step: PassStep = { graphId: 'pass:2', name: 'mergeActivationOperations', added: [{ id: 'n-20', name: 'x' }], removed: [{ id: 'n-8', name: 'sdp-scale-0', into: 'bias-2' }], changed: [{ id: 'n-1', name: 'bias-0' }, { id: 'n-7', name: 'bias-2' }], unioned: [{ id: 'n-7', name: 'bias-2', layers: ['ip1', 'relu1'] }], notes: [], nodes: 4 };
    expect(stepOutlines(graph, step, c)).toEqual([null, c.changed, c.unioned, c.added]);
    expect(stepOutlines(graph, { ...step, name: 'generateGraph' }, c)).toBeUndefined();
    expect(stepOutlines(graph, { ...step, added: [], changed: [], unioned: [] }, c)).toBeUndefined();
  });

  it('engine edges by kind: data solid, aux dashed, compute dotted', () => {
    const s = engineEdgeStyle(['data', 'aux', 'compute', 'hazard', 'data'], 'dark');
    expect(Array.from(s.edgeClass)).toEqual([0, 1, 2, 3, 0]);
    expect(s.classes.map((c) => [c.name, c.dash.length > 0])).toEqual([['data', false], ['aux', true], ['compute', true], ['hazard', true]]);
  });

  it('memory plan rectangles: x from first to last use over the op slots, y the offset down to the high-water mark', () => {
    const plan = {
      ops: Array.from({ length: 10 }, (_, i) => ({ task: 0, slot: i, node: `n-${i}`, name: `op${i}`, batch: 0 })),
      pools: [{ name: 'LOCAL_DRAM', size: 1 << 30, used: 1000, reused: 1, buffers: [
        { buffer: 'tb-1', surfaces: [], offset: 0, size: 500, first: 0, last: 4, batch: 0, content: false, users: [], layers: ['conv1'] },
        { buffer: 'tb-2', surfaces: [], offset: 0, size: 250, first: 5, last: 9, batch: 0, content: false, users: [], layers: ['pool1'] },
      ] }],
      outside: [],
    } as MemoryPlan;
    const r = planRects(plan, 'LOCAL_DRAM', 100, 50);
    expect(r.map((x) => [x.buffer, x.x, x.w, x.y, x.h])).toEqual([['tb-1', 0, 50, 0, 25], ['tb-2', 50, 50, 0, 12.5]]);
    expect(planRects(plan, 'GLOBAL_DRAM', 100, 50)).toEqual([]);
  });

  it('op slots and Caffe layers both ways from the origins sidecar', () => {
    const o = { tasks: [{ id: 0, interface: 'DLA1', ops: [
      { slot: 0, batch: 0, node: 'n-0', name: 'dc-conv-0', layers: ['conv1'], origins: [1] },
      { slot: 1, batch: 0, node: 'n-1', name: 'bias-2', layers: ['ip1', 'relu1'], origins: [5, 6] },
    ] }] } as OriginsSidecar;
    const l = slotLayers(o);
    expect(l.bySlot.get('0:1')).toEqual([5, 6]);
    expect(l.byLayer.get(6)).toEqual(['0:1']);
    expect(slotLayers(null).bySlot.size).toBe(0);
    expect(originsFileName('fast-math.nvdla')).toBe('fast-math.origins.json');
  });
});

describe('option texts of the compile form', () => {
  it('say what the post-extended weight layouts are, and leave other values as they are', () => {
    expect([optionText('postExtWeights', 'csc'), optionText('postExtWeights', 'nvdla_compiler')]).toEqual(['csc (as the hardware reads them)', 'nvdla_compiler (its bytes, wrong rows)']);
    expect([optionText('quantizationMode', ''), optionText('batch', 0), optionText('profile', 'basic')]).toEqual(['none (per-kernel)', '0 (from the prototxt)', 'basic']);
  });
});

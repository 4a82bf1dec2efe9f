import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildFromRecipe } from '../../core/chef';
import { write } from '../../core/circle/write';
import { createModelService } from '../../worker/service';
import type { ModelWorkerApi, OpenResult } from '../../worker/api';
import type { Doc } from '../store';
import type { CompareState, OptimizeOk } from '../origins/state';
import { panelSubject } from './subject';

/**
 * The side panel's subject, driven with real documents of the model service: Net_InstanceNorm_003
 * and its fuse_instance_norm result, as the compare view holds them.
 */
let service: ModelWorkerApi;
let doc: Doc;
let result: OptimizeOk;
let compare: CompareState;
let operators = 0;

beforeAll(async () => {
  const model = buildFromRecipe(readFileSync('test/fixtures/one/recipes/Net_InstanceNorm_003/test.recipe', 'utf8'), 'r');
  operators = model.subgraphs[0]!.operators.length;
  service = createModelService();
  const opened: OpenResult = await service.open([{ name: 'in.circle', blob: new Blob([write(model) as Uint8Array<ArrayBuffer>]) }]);
  if (!opened.ok) throw new Error('open failed');
  const left = (await service.graphForView(opened.docId, 'sg:0')).graph;
  doc = {
    id: 'tab1',
    workerDocId: opened.docId,
    title: 'in.circle',
    files: [],
    summary: opened.summary,
    diagnostics: opened.diagnostics,
    graphId: 'sg:0',
    direction: 'TB',
    view: { graphId: 'sg:0', graph: left, layout: { nodes: [], edges: [], width: 0, height: 0 } as never, direction: 'TB' },
    loading: null,
    selected: 2,
    details: await service.nodeDetails(opened.docId, 'sg:0', 2),
  };
  const optimized = await service.optimize(opened.docId, ['fuse_instance_norm']);
  if (!optimized.ok) throw new Error('optimize failed');
  result = optimized;
  const right = (await service.graphForView(result.docId, 'sg:0')).graph;
  const layout = { nodes: [], edges: [], width: 0, height: 0 } as never;
  compare = {
    open: true,
    running: false,
    passes: ['fuse_instance_norm'],
    result,
    left: { graph: left, layout },
    right: { graph: right, layout },
    selected: null,
    details: null,
    focus: 'left',
    hover: null,
    error: null,
  };
});

const instanceNorm = () => compare.right!.graph.nodes.findIndex((n) => n.type === 'INSTANCE_NORM');

describe('panelSubject', () => {
  it('is the tab document in the single view, with its selection (also when a compare result is kept)', () => {
    for (const c of [undefined, { ...compare, open: false, focus: 'right' as const }]) {
      const s = panelSubject(doc, c);
      expect(s.side).toBeNull();
      expect(s.key).toBe('tab1');
      expect(s.workerDocId).toBe(doc.workerDocId);
      expect(s.selected).toBe(2);
      expect(s.details).toBe(doc.details);
      expect(s.graph).toBe(doc.view!.graph);
    }
  });

  it('follows the optimized pane when it was used last: its worker document, summary, graph and selection', async () => {
    const index = instanceNorm();
    expect(index).toBeGreaterThanOrEqual(0);
    const details = await service.nodeDetails(result.docId, 'sg:0', index);
    const s = panelSubject(doc, { ...compare, focus: 'right', selected: { side: 'right', index }, details });
    expect(s.side).toBe('right');
    expect(s.key).toBe('tab1:optimized');
    expect(s.workerDocId).toBe(result.docId);
    expect(s.workerDocId).not.toBe(doc.workerDocId);
    expect(s.title).toBe('in.opt.circle');
    expect(s.graphId).toBe('sg:0');
    expect(s.graph).toBe(compare.right!.graph);
    expect(s.selected).toBe(index);
    expect(s.details!.node.type).toBe('INSTANCE_NORM');

    // what the Node tab asks of the worker with this subject: the optimized node and its tensors
    const again = await service.nodeDetails(s.workerDocId, s.graphId, s.selected!);
    expect(again.node.type).toBe('INSTANCE_NORM');
    expect(again.node.attributes.map((a) => a.name)).toContain('epsilon');
    const input = await service.tensorDetails(s.workerDocId, s.graphId, again.node.inputs[0]!.tensor);
    expect(input.shape.length).toBeGreaterThan(0);

    // the Model tab: the optimized model's own operator count and origin-table metadata
    expect(s.summary.properties.find((p) => p.name === 'operators')?.value).toBe('1');
    expect(s.summary.metadata.map((m) => m.name)).toEqual(expect.arrayContaining(['ONE_source_table', 'ONE_op_table']));
    expect(s.summary.graphs[0]!.stats.nodes).toBe(1);

    // the Origins tab: read from the optimized model's tables, all source operators in one
    const origins = await service.origins(s.workerDocId, s.graphId);
    expect(origins.kind).toBe('file');
    expect(origins.nodeIds[index]).toHaveLength(operators);
  });

  it('follows the original pane (subgraph 0 of the tab document) with the compare selection only', () => {
    const s = panelSubject(doc, compare);
    expect(s.side).toBe('left');
    expect(s.key).toBe('tab1');
    expect(s.workerDocId).toBe(doc.workerDocId);
    expect(s.summary).toBe(doc.summary);
    expect(s.graph).toBe(compare.left!.graph);
    // nothing selected in the panes: the single view's selection is not shown as if it were
    expect(s.selected).toBeNull();
    expect(s.details).toBeNull();

    const picked = panelSubject(doc, { ...compare, selected: { side: 'left', index: 4 }, details: doc.details });
    expect(picked.selected).toBe(4);
    // a selection in the other pane is not this pane's
    const other = panelSubject(doc, { ...compare, focus: 'left', selected: { side: 'right', index: 0 }, details: doc.details });
    expect(other.selected).toBeNull();
    expect(other.details).toBeNull();
  });

  it('stays on the original while Optimize is still running (no optimized document yet)', () => {
    const s = panelSubject(doc, { ...compare, running: true, result: null, right: null, focus: 'right' });
    expect(s.side).toBe('left');
    expect(s.workerDocId).toBe(doc.workerDocId);
  });

  it('optimized summary differs from the original: operator counts per side', () => {
    const l = panelSubject(doc, compare);
    const r = panelSubject(doc, { ...compare, focus: 'right' });
    expect(l.summary.properties.find((p) => p.name === 'operators')?.value).toBe(String(operators));
    expect(r.summary.properties.find((p) => p.name === 'operators')?.value).toBe('1');
  });
});

import { describe, expect, it } from 'vitest';
import { buildCommands, KEYBOARD_HELP, type CommandContext } from './commands';
import type { Doc } from '../store';
import type { GraphViewHandle } from '../graph/GraphView';
import type { Capability } from '../../worker/api';

/** what the formats open today: circle models and systrace captures (core/circle, core/systrace) */
const CIRCLE: Capability[] = ['graph', 'partition', 'origins', 'optimize'];
const PROFILE: Capability[] = ['profile'];

function doc(id: string, capabilities: Capability[], format: string, title = `${id}.${format}`, graphs: Doc['summary']['graphs'] = []): Doc {
  return {
    id, workerDocId: `w${id}`, title, files: [], diagnostics: [], graphId: graphs[0]?.id ?? 'sg:0', direction: 'TB', view: null, loading: null, selected: null, details: null,
    summary: { format, capabilities, graphs } as unknown as Doc['summary'],
  };
}

const view = { fit() {} } as unknown as GraphViewHandle;

function ctx(over: Partial<CommandContext>): CommandContext {
  return {
    docs: [], doc: null, theme: 'system', side: 'model', panelAt: 'right', view: null, partitionOpen: false, compare: null, passNames: [], samples: [],
    openPicker() {}, exportView() {}, ...over,
  };
}

const ids = (c: CommandContext) => buildCommands(c).map((x) => x.id);

describe('commands', () => {
  it('with nothing open: open, themes other than the current one, samples, help', () => {
    const list = ids(ctx({ samples: [{ file: 'a.circle', title: 'a' }, { file: 'omr1.trace.txt', title: 'omr1', group: 'profiles' }] }));
    expect(list).toEqual(['file.open', 'theme.light', 'theme.dark', 'sample.models.a', 'sample.profiles.omr1', 'help.keys']);
  });

  it('a circle model in the single view: view, panels, partition, optimize per pass', () => {
    const m = doc('1', CIRCLE, 'circle');
    const list = ids(ctx({ docs: [m, doc('2', PROFILE, 'systrace')], doc: m, view, passNames: ['fuse_activation', 'fold_constants'], theme: 'dark' }));
    expect(list).toContain('view.fit');
    expect(list).toContain('view.export-png');
    expect(list).toContain('tab.2');
    expect(list).not.toContain('tab.1');
    expect(list).toContain('panel.origins');
    expect(list).not.toContain('panel.model'); // the panel on screen
    expect(list).toContain('partition.open');
    expect(list).not.toContain('partition.check');
    expect(list).toContain('optimize.fuse_activation');
    expect(list).toContain('optimize.fold_constants');
    expect(list).not.toContain('theme.dark');
    expect(list).not.toContain('profile.diagnostics');
  });

  it('follows the partition editor and the compare view', () => {
    const m = doc('1', CIRCLE, 'circle');
    const open = ids(ctx({ docs: [m], doc: m, partitionOpen: true, compare: { open: true, result: true } }));
    expect(open).toEqual(expect.arrayContaining(['partition.check', 'partition.download', 'partition.close', 'optimize.single', 'optimize.download']));
    expect(open).not.toContain('partition.open');
    expect(open).toContain('partition.at-right');
    expect(ids(ctx({ docs: [m], doc: m, partitionOpen: true, dockAt: 'right' }))).toContain('partition.at-bottom');
    expect(open).not.toContain('view.fit'); // no single view in compare mode
    expect(ids(ctx({ docs: [m], doc: m, compare: { open: false, result: true } }))).toContain('optimize.compare');
  });

  it('a graph without the partition, origins and optimize capabilities gets the view commands only', () => {
    const g = doc('4', ['graph'], 'prototxt');
    const list = ids(ctx({ docs: [g], doc: g, view, passNames: ['fuse_activation'] }));
    expect(list).toEqual(expect.arrayContaining(['view.find', 'view.fit', 'panel.node']));
    const leaked = list.filter((id) => id.startsWith('partition.') || id.startsWith('optimize.') || id === 'panel.origins' || id === 'profile.diagnostics');
    expect(leaked).toEqual([]);
  });

  it('a Caffe net: the in-place toggle names what it switches to, the Run panel and a run', () => {
    const stats = { nodes: 1, edges: 1 };
    const net = doc('5', ['graph', 'inspect', 'run'], 'caffe', 'lenet.prototxt', [
      { id: 'net', name: 'LeNet', stats },
      { id: 'net:layers', name: 'LeNet (in-place layers as nodes)', stats, unfoldedOf: 'net' },
    ]);
    let list = ids(ctx({ docs: [net], doc: net, view, inplace: 'folded' }));
    expect(list).toEqual(expect.arrayContaining(['view.inplace-nodes', 'panel.run', 'run.start']));
    expect(list).not.toContain('view.inplace-folded');
    list = ids(ctx({ docs: [net], doc: { ...net, graphId: 'net:layers' }, view, inplace: 'nodes' }));
    expect(list).toContain('view.inplace-folded');
    // a graph without a second form has no toggle; a document without run has no run commands
    const plain = doc('6', ['graph'], 'circle', 'm.circle', [{ id: 'sg:0', name: 'main', stats }]);
    list = ids(ctx({ docs: [plain], doc: plain, view }));
    expect(list.filter((id) => id.startsWith('view.inplace') || id.startsWith('run.') || id === 'panel.run')).toEqual([]);
  });

  it('a profile has its own commands and no graph ones', () => {
    const p = doc('3', PROFILE, 'systrace');
    const list = ids(ctx({ docs: [p], doc: p }));
    expect(list).toContain('profile.diagnostics');
    expect(list).not.toContain('view.find');
    expect(list).not.toContain('partition.open');
  });

  it('moves, hides and shows the side panel', () => {
    const m = doc('1', CIRCLE, 'circle');
    expect(ids(ctx({ docs: [m], doc: m }))).toEqual(expect.arrayContaining(['panel.hide', 'panel.at-left']));
    expect(ids(ctx({ docs: [m], doc: m, panelAt: 'left' }))).toContain('panel.at-right');
    const hidden = ids(ctx({ docs: [m], doc: m, panelAt: 'hidden' }));
    expect(hidden).toContain('panel.show');
    expect(hidden).toContain('panel.model'); // the tab on screen too: choosing it shows the panel
    expect(hidden).not.toContain('panel.hide');
  });

  it('titles the layout command by what it switches to', () => {
    const m = { ...doc('1', CIRCLE, 'circle'), direction: 'LR' as const };
    expect(buildCommands(ctx({ docs: [m], doc: m })).find((c) => c.id === 'view.direction')?.title).toBe('Layout top to bottom');
  });

  it('ids are unique, and every shortcut a command shows is in the keyboard help', () => {
    const m = doc('1', CIRCLE, 'circle');
    const all = buildCommands(ctx({ docs: [m], doc: m, view, passNames: ['a', 'b'], samples: [{ file: 'x', title: 'x' }] }));
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    const helpKeys = KEYBOARD_HELP.flatMap((r) => r.keys.split(/ or | \/ |, /));
    for (const c of all) if (c.keys) expect(helpKeys, c.id).toContain(c.keys);
  });

  it('a loadable: its views other than the one on screen, a comparison with each other open loadable', () => {
    const LOADABLE: Capability[] = ['graph', 'inspect', 'loadable', 'runLoadable'];
    const a = doc('1', LOADABLE, 'nvdla');
    const b = doc('2', LOADABLE, 'nvdla');
    const list = ids(ctx({ docs: [a, b, doc('3', CIRCLE, 'circle')], doc: a, view }));
    expect(list.filter((x) => x.startsWith('loadable.'))).toEqual([
      'loadable.view.graph', 'loadable.view.memory', 'loadable.view.tensors', 'loadable.view.blobs', 'loadable.view.damage', 'loadable.compare.2',
    ]);
    expect(list).toContain('view.find'); // the op-slot graph finds like any graph
    expect(ids(ctx({ docs: [a], doc: doc('3', CIRCLE, 'circle') })).some((x) => x.startsWith('loadable.'))).toBe(false);
  });
});

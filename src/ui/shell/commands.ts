/**
 * Every action of the studio as a named command, for the command palette (Ctrl+Shift+P); and the
 * keyboard shortcuts for the help dialog (?). A test checks that every shortcut a command shows is
 * in the help. Only the commands that apply to what is on screen are listed (no
 * greyed-out entries to wade through), the way VS Code's palette behaves.
 */
import type { Doc, SidePanel, ThemeChoice } from '../store';
import { docLabel, useStudio } from '../store';
import type { GraphViewHandle } from '../graph/GraphView';
import { activate, closeDoc, loadSample, setTheme, showDiagnostics, toggleDirection } from '../actions';
import { checkParts, closePartition, downloadParts, newPartition, openPartition } from '../partition/state';
import { closeCompare, downloadOptimized, loadPassNames, reopenCompare, runOptimize } from '../origins/actions';
import { SAMPLE_GROUPS, type SampleEntry } from './samples';
import { can, mainView } from '../capabilities';
import { setDockAt, setInplace, setPanelSide, toggleNodeDisplay, toggleSidePanel, useLayout, type LayoutState } from './layout';
import { DISPLAY_TOGGLES } from '../graph/display';
import { startRun } from '../run/state';
import { loadableCommands } from '../loadable/commands';
import { closeCompile, compileTab, downloadLoadable, downloadOrigins, openCompile, setCompileMode } from '../compile/state';

export interface Command {
  /** stable id (tests and e2e address commands by it) */
  id: string;
  group: string;
  title: string;
  /** the shortcut, as shown: `Ctrl+K` */
  keys?: string;
  run(): void;
}

/** What the commands depend on: a snapshot of the studio when the palette opens. */
export interface CommandContext {
  docs: readonly Doc[];
  doc: Doc | null;
  theme: ThemeChoice;
  side: SidePanel;
  /** where the side panel and the partition editor are (shell/layout.ts) */
  panelAt: LayoutState['side'];
  /** what the node boxes show (attributes, weights, names); absent = the defaults */
  display?: Pick<LayoutState, 'attributes' | 'weights' | 'names'>;
  /** in-place layers drawn inside their producer or as nodes (shell/layout.ts) */
  inplace?: LayoutState['inplace'];
  dockAt?: LayoutState['dockAt'];
  /** the single graph view on screen (null in the compare view and the Profile view) */
  view: GraphViewHandle | null;
  /** the tab's partition editor is open */
  partitionOpen: boolean;
  /** the tab has an Optimize result, and whether the compare view shows it */
  compare: { open: boolean; result: boolean } | null;
  passNames: readonly string[];
  samples: readonly SampleEntry[];
  openPicker(): void;
  exportView(format: 'png' | 'png-visible' | 'svg'): void;
}

export function openFind() {
  useStudio.setState((s) => ({ find: { ...s.find, open: true }, overlay: null }));
  setTimeout(() => document.getElementById('find-input')?.focus(), 0);
}

export function buildCommands(ctx: CommandContext): Command[] {
  const out: Command[] = [];
  const add = (c: Command) => out.push(c);
  const { doc } = ctx;
  const graph = doc && mainView(doc.summary) === 'graph' ? doc : null;
  const partitionable = graph && can(graph.summary, 'partition') ? graph : null;
  const optimizable = graph && can(graph.summary, 'optimize') ? graph : null;

  add({ id: 'file.open', group: 'File', title: 'Open files…', run: ctx.openPicker });
  if (doc) add({ id: 'file.close', group: 'File', title: `Close tab ${docLabel(doc)}`, run: () => closeDoc(doc.id) });
  for (const d of ctx.docs) {
    if (d.id !== doc?.id) add({ id: `tab.${d.id}`, group: 'Tabs', title: `Go to tab ${docLabel(d)}`, run: () => activate(d.id) });
  }

  if (graph) {
    add({ id: 'view.find', group: 'View', title: 'Find nodes, op types, tensors, dtypes, shapes', keys: 'Ctrl+F', run: openFind });
    add({ id: 'view.direction', group: 'View', title: `Layout ${graph.direction === 'TB' ? 'left to right' : 'top to bottom'}`, keys: 'Ctrl+K', run: toggleDirection });
    const view = ctx.view;
    if (view) {
      add({ id: 'view.fit', group: 'View', title: 'Fit the graph to the window', keys: 'Space', run: () => view.fit() });
      add({ id: 'view.export-png', group: 'View', title: 'Export the whole graph as PNG', keys: 'Ctrl+Shift+E', run: () => ctx.exportView('png') });
      add({ id: 'view.export-png-visible', group: 'View', title: 'Export the visible area as PNG (2x)', run: () => ctx.exportView('png-visible') });
      add({ id: 'view.export-svg', group: 'View', title: 'Export the whole graph as SVG', keys: 'Ctrl+Alt+E', run: () => ctx.exportView('svg') });
    }
    const display = ctx.display ?? useLayout.getState();
    for (const t of DISPLAY_TOGGLES) {
      const on = display[t.what];
      add({ id: `view.show-${t.what}`, group: 'View', title: `${on ? 'Hide' : 'Show'} ${t.label} in the nodes`, keys: t.keys, run: () => toggleNodeDisplay(t.what) });
    }
    const base = graph.summary.graphs.find((g) => g.id === graph.graphId)?.unfoldedOf ?? graph.graphId;
    if (graph.summary.graphs.some((g) => g.unfoldedOf === base)) {
      if (ctx.inplace === 'nodes') add({ id: 'view.inplace-folded', group: 'View', title: "Draw in-place layers inside their producer's box (as Netron does)", run: () => setInplace('folded') });
      else add({ id: 'view.inplace-nodes', group: 'View', title: 'Show in-place layers (ReLU, BatchNorm, Scale, Dropout...) as nodes', run: () => setInplace('nodes') });
    }
    const panels: [SidePanel, string, string?][] = [['node', 'Node properties'], ['model', 'Model properties', 'Ctrl+Enter']];
    if (can(graph.summary, 'origins')) panels.push(['origins', 'Origins (ONE origin tables)']);
    if (can(graph.summary, 'run')) panels.push(['run', 'Run: forward pass with an image, a .npy or random input']);
    for (const [side, title, keys] of panels) {
      if (side !== ctx.side || ctx.panelAt === 'hidden') {
        add({
          id: `panel.${side}`,
          group: 'Side panel',
          title,
          ...(keys ? { keys } : {}),
          run: () => {
            if (ctx.panelAt === 'hidden') toggleSidePanel();
            useStudio.setState({ side });
          },
        });
      }
    }
    if (ctx.panelAt === 'hidden') add({ id: 'panel.show', group: 'Side panel', title: 'Show the side panel', keys: 'Ctrl+B', run: toggleSidePanel });
    else {
      add({ id: 'panel.hide', group: 'Side panel', title: 'Hide the side panel', keys: 'Ctrl+B', run: toggleSidePanel });
      const other = ctx.panelAt === 'left' ? 'right' : 'left';
      add({ id: `panel.at-${other}`, group: 'Side panel', title: `Side panel on the ${other}`, run: () => setPanelSide(other) });
    }
  }

  if (partitionable) {
    const tab = partitionable.id;
    if (ctx.partitionOpen) {
      add({ id: 'partition.new', group: 'Partition', title: 'New partition text (undo brings the old one back)', run: () => newPartition(tab) });
      add({ id: 'partition.check', group: 'Partition', title: 'Check the parts against the model (random inputs)', run: () => void checkParts(tab) });
      add({ id: 'partition.download', group: 'Partition', title: 'Download the parts (zip with .conn.json, .conn.ini, .part)', run: () => void downloadParts(tab) });
      add({ id: 'partition.close', group: 'Partition', title: 'Close the partition editor', run: () => closePartition(tab) });
      if (ctx.dockAt === 'right') add({ id: 'partition.at-bottom', group: 'Partition', title: 'Partition editor below the graph', run: () => setDockAt('bottom') });
      else add({ id: 'partition.at-right', group: 'Partition', title: 'Partition editor beside the graph', run: () => setDockAt('right') });
    } else {
      add({ id: 'partition.open', group: 'Partition', title: 'New partition: edit a .part file for this model', run: () => void openPartition(tab) });
    }
  }

  if (optimizable) {
    const tab = optimizable.id;
    add({
      id: 'optimize.all',
      group: 'Optimize',
      title: 'Optimize with every pass and compare',
      run: () => void loadPassNames(optimizable.workerDocId).then((names) => runOptimize(names)),
    });
    for (const pass of ctx.passNames) {
      add({ id: `optimize.${pass}`, group: 'Optimize', title: `Optimize with ${pass} only`, run: () => void runOptimize([pass]) });
    }
    const c = ctx.compare;
    if (c?.result) {
      if (c.open) add({ id: 'optimize.single', group: 'Optimize', title: 'Back to the single graph view', run: () => closeCompare(tab) });
      else add({ id: 'optimize.compare', group: 'Optimize', title: 'Compare original and optimized', run: () => reopenCompare(tab) });
      add({ id: 'optimize.download', group: 'Optimize', title: 'Download the optimized model (with origin tables)', run: () => downloadOptimized(tab) });
    }
  }

  if (graph && can(graph.summary, 'run')) {
    const tab = graph.id;
    add({
      id: 'run.start',
      group: 'Run',
      title: 'Run the net in the worker with the Run panel\'s input',
      run: () => {
        if (ctx.panelAt === 'hidden') toggleSidePanel();
        useStudio.setState({ side: 'run' });
        void startRun(tab);
      },
    });
  }
  if (graph && can(graph.summary, 'compile')) {
    const tab = graph.id;
    const c = compileTab(tab);
    if (!c.open) add({ id: 'compile.open', group: 'Compile', title: 'Compile for NVDLA (canonical and engine graphs, passes, memory, loadable)', keys: 'Ctrl+Shift+B', run: () => void openCompile(tab) });
    else {
      add({ id: 'compile.close', group: 'Compile', title: 'Close the compile view', keys: 'Ctrl+Shift+B', run: () => closeCompile(tab) });
      add({ id: 'compile.graphs', group: 'Compile', title: 'Compile view: Caffe, canonical and engine graphs with the pass timeline', run: () => setCompileMode(tab, 'graphs') });
      if (c.result?.loadableDocId) {
        add({ id: 'compile.loadable', group: 'Compile', title: 'Compile view: the loadable with its Caffe layers', run: () => setCompileMode(tab, 'loadable') });
        add({ id: 'compile.memory', group: 'Compile', title: 'Compile view: the memory plan over time', run: () => setCompileMode(tab, 'memory') });
        add({ id: 'compile.download', group: 'Compile', title: `Download ${c.result.summary.loadableName}`, run: () => downloadLoadable(tab) });
        add({ id: 'compile.download-origins', group: 'Compile', title: 'Download the origins sidecar (op slot -> Caffe layers)', run: () => downloadOrigins(tab) });
      }
    }
  }
  for (const c of loadableCommands(doc, ctx.docs)) add(c);

  if (doc && can(doc.summary, 'profile')) add({ id: 'profile.diagnostics', group: 'Profile', title: 'Show the diagnostics of this capture', run: () => showDiagnostics(doc.id) });

  const themes: [ThemeChoice, string][] = [['light', 'Light theme'], ['dark', 'Dark theme'], ['system', 'System theme']];
  for (const [t, title] of themes) if (t !== ctx.theme) add({ id: `theme.${t}`, group: 'Theme', title, run: () => setTheme(t) });

  for (const s of ctx.samples) {
    const group = SAMPLE_GROUPS.find((g) => g.id === (s.group ?? 'models'))?.label ?? 'Samples';
    add({ id: `sample.${s.group ?? 'models'}.${s.title}`, group: `Sample · ${group}`, title: `Open sample ${s.title}`, run: () => void loadSample('samples/', s.files ?? [s.file]) });
  }

  add({ id: 'help.keys', group: 'Help', title: 'Keyboard shortcuts', keys: '?', run: () => useStudio.setState({ overlay: 'help' }) });
  return out;
}

/** The keyboard help: the global shortcuts, and keys that work inside the graph, the editor, the timeline. */
export const KEYBOARD_HELP: { where: string; keys: string; what: string }[] = [
  { where: 'Anywhere', keys: 'Ctrl+Shift+P or F1', what: 'Command palette' },
  { where: 'Anywhere', keys: 'Ctrl+F', what: 'Find nodes, op types, tensors, dtypes, shapes' },
  { where: 'Anywhere', keys: 'Ctrl+K', what: 'Layout top to bottom / left to right' },
  { where: 'Anywhere', keys: 'Ctrl+Enter', what: 'Model properties' },
  { where: 'Anywhere', keys: 'Ctrl+B', what: 'Hide / show the side panel' },
  { where: 'Anywhere', keys: 'Ctrl+Shift+B', what: 'Compile for NVDLA (a Caffe net with its weights): open / close the compile view' },
  { where: 'Anywhere', keys: 'Ctrl+Shift+E', what: 'Export the whole graph as PNG' },
  { where: 'Anywhere', keys: 'Ctrl+Alt+E', what: 'Export the whole graph as SVG' },
  { where: 'Anywhere', keys: 'Ctrl+D', what: 'Show / hide attributes in the nodes (padding, stride, fused activation ...)' },
  { where: 'Anywhere', keys: 'Ctrl+I', what: 'Show / hide weights in the nodes (constant inputs: filter ⟨8×1×1×8⟩)' },
  { where: 'Anywhere', keys: 'Ctrl+U', what: 'Show / hide names in the nodes (operator or output tensor name)' },
  { where: 'Anywhere', keys: '?', what: 'This list' },
  { where: 'Graph', keys: 'Tab', what: 'Into the graph; then arrows move along edges' },
  { where: 'Graph', keys: 'Enter / double-click', what: 'Select; on an IF or WHILE node, open its body' },
  { where: 'Graph', keys: 'Backspace', what: 'Back to the graph you came from' },
  { where: 'Graph', keys: 'Space', what: 'Fit' },
  { where: 'Graph', keys: 'Shift+Up / Shift+Down', what: 'Zoom in / out' },
  { where: 'Graph', keys: 'Shift+Backspace', what: 'Actual size' },
  { where: 'Find', keys: 'Up / Down, Enter, Escape', what: 'Move in the results, go to one, close' },
  { where: 'Partition editor', keys: 'Ctrl+Space, Ctrl+Z', what: 'Completion (backends, opcodes, node names); undo, also of graph clicks' },
  { where: 'Profile timeline', keys: 'Arrows, Enter', what: 'Move between marks, select one' },
  { where: 'Profile timeline', keys: '+ / −, Shift+arrows', what: 'Zoom, pan' },
  { where: 'Pane borders', keys: 'Tab to the border, arrows (Shift: bigger steps), Home / End', what: 'Resize the side panel or the partition editor' },
];

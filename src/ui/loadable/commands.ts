/**
 * The command palette's loadable commands: each view of the active loadable, and a comparison
 * with every other open loadable (and back from one). They call the same state functions as
 * the view buttons and the "Compare with…" menu.
 */
import { docLabel, type Doc } from '../store';
import { can } from '../capabilities';
import { closeLoadableCompare, loadableTab, openLoadableCompare, showLoadableView, VIEW_TITLES, type LoadableViewName } from './state';

export interface LoadableCommand {
  id: string;
  group: string;
  title: string;
  run(): void;
}

const VIEW_COMMANDS: [LoadableViewName, string][] = [
  ['tasks', 'Show the tasks and op slots'],
  ['graph', 'Show the op-slot graph'],
  ['memory', 'Show the memory map, memory list and address list'],
  ['tensors', 'Show the tensor descriptors and relocations'],
  ['blobs', 'Show the blobs (hex, LUT curves, weight histograms)'],
  ['damage', 'Show the unreadable places'],
];

export function loadableCommands(doc: Doc | null, docs: readonly Doc[]): LoadableCommand[] {
  if (!doc || !can(doc.summary, 'loadable')) return [];
  const out: LoadableCommand[] = [];
  const tab = loadableTab(doc.id);
  for (const [view, title] of VIEW_COMMANDS) {
    if (view !== tab.view) out.push({ id: `loadable.view.${view}`, group: 'Loadable', title: `${title} (${VIEW_TITLES[view]})`, run: () => showLoadableView(doc.id, view) });
  }
  for (const other of docs) {
    if (other.id === doc.id || !can(other.summary, 'loadable')) continue;
    out.push({ id: `loadable.compare.${other.id}`, group: 'Loadable', title: `Compare ${docLabel(doc)} with ${docLabel(other)}`, run: () => openLoadableCompare(doc.id, other.id) });
  }
  if (tab.compareWith) out.push({ id: 'loadable.compare.close', group: 'Loadable', title: 'Close the comparison', run: () => closeLoadableCompare(doc.id) });
  return out;
}

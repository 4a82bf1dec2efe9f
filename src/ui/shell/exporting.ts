import type { GraphPaneHandle } from './GraphPane';
import { activeDoc, pushAlert } from '../store';

/** Saves a Blob under a name, through a temporary object URL (nothing leaves the machine). */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function exportBaseName(): string {
  const d = activeDoc();
  if (!d) return 'graph';
  const base = d.title.replace(/\.[^.]+$/, '');
  return d.summary.graphs.length > 1 ? `${base}.${d.graphId.replace(/[^\w-]/g, '_')}` : base;
}

export async function exportCurrent(pane: GraphPaneHandle | null, kind: 'png' | 'svg') {
  const view = pane?.view();
  if (!view) {
    pushAlert({ severity: 'warning', message: 'Nothing to export: no graph is shown.' });
    return;
  }
  try {
    if (kind === 'svg') saveBlob(new Blob([view.exportSVG()], { type: 'image/svg+xml' }), `${exportBaseName()}.svg`);
    else saveBlob(await view.exportPNG(), `${exportBaseName()}.png`);
  } catch (e) {
    pushAlert({ severity: 'error', message: `Export failed: ${(e as Error).message}` });
  }
}

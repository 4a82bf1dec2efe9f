import type { GraphPaneHandle } from './GraphPane';
import { activeDoc, pushAlert } from '../store';
import { grouped } from '../capabilities';

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

/** below this many PNG pixels per layout pixel the labels of a whole-graph PNG are hard to read */
const READABLE_SCALE = 0.75;

export type ExportKind = 'png' | 'png-visible' | 'svg';

export async function exportCurrent(pane: GraphPaneHandle | null, kind: ExportKind) {
  const view = pane?.view();
  if (!view) {
    pushAlert({ severity: 'warning', message: 'Nothing to export: no graph is shown.' });
    return;
  }
  try {
    if (kind === 'svg') {
      saveBlob(new Blob([view.exportSVG()], { type: 'image/svg+xml' }), `${exportBaseName()}.svg`);
      return;
    }
    const name = kind === 'png-visible' ? `${exportBaseName()}.view.png` : `${exportBaseName()}.png`;
    const png = await view.exportPNG(kind === 'png-visible' ? 'visible' : 'graph');
    saveBlob(png.blob, name);
    if (kind === 'png' && png.scale < READABLE_SCALE) {
      const w = Math.round(png.width / png.scale), h = Math.round(png.height / png.scale);
      pushAlert({
        severity: 'info',
        message:
          `${name}: the whole graph is ${grouped(w)} x ${grouped(h)} px, so the PNG (${grouped(png.width)} x ${grouped(png.height)}) ` +
          `is drawn at ${Math.round(png.scale * 100)}% to stay within a browser canvas (16,384 px a side, 134 megapixels). ` +
          'For detail, export the visible area (command palette: "Export the visible area as PNG") or SVG (vector, any size).',
      });
    }
  } catch (e) {
    pushAlert({ severity: 'error', message: `Export failed: ${(e as Error).message}` });
  }
}

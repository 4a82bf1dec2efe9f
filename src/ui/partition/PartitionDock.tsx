/**
 * The bottom dock of a graph tab: the `.part` editor on the left, the partitions it produces on
 * the right (what `.conn.json` will say), a legend, Check and Download. Lazy-loaded with Monaco.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Doc } from '../store';
import { PartitionEditor } from './PartitionEditor';
import { backendStyles, partOutline, type BackendStyle } from './colors';
import {
  checkParts, closePartition, dismissDraft, downloadParts, newPartition, restoreDraft, selectPart, usePartition,
  type CheckState, type PartitionTab,
} from './state';
import type { PartitionPlanView } from '../../worker/api';
import { partBackend, partCount, partInputs, partNumber, partOutputs } from './plan';
import { DOCK_MIN, DOCK_WIDTH_MIN, setDockHeight, setDockWidth, useLayout } from '../shell/layout';
import { Splitter } from '../shell/Splitter';
import './partition.css';

/** What the dock shows of a tab: everything but the text, so a keystroke does not re-render the dock. */
type DockTab = Pick<PartitionTab, 'partName' | 'diagnostics' | 'plan' | 'stale' | 'error' | 'ms' | 'selectedPart' | 'check' | 'downloading' | 'draft' | 'draftOver'> & {
  /** the check ran on the text on screen */
  checkCurrent: boolean;
};

function dockTab(t: PartitionTab | undefined): DockTab | null {
  if (!t) return null;
  const { partName, diagnostics, plan, stale, error, ms, selectedPart, check, downloading, draft, draftOver } = t;
  return { partName, diagnostics, plan, stale, error, ms, selectedPart, check, downloading, draft, draftOver, checkCurrent: !!check && check.text === t.text };
}

export default function PartitionDock({ doc, theme }: { doc: Doc; theme: 'light' | 'dark' }) {
  const tab = usePartition(useShallow((s) => dockTab(s.tabs[doc.id])));
  const height = useLayout((s) => s.dock);
  const width = useLayout((s) => s.dockWidth);
  const at = useLayout((s) => s.dockAt);
  const dockRef = useRef<HTMLElement>(null);
  // the dock leaves at least 120 px of graph above it, or 240 px beside it
  const maxHeight = useCallback(() => Math.max(DOCK_MIN + 40, (dockRef.current?.parentElement?.getBoundingClientRect().height ?? 800) - 120), []);
  const maxWidth = useCallback(() => Math.max(DOCK_WIDTH_MIN, (dockRef.current?.parentElement?.getBoundingClientRect().width ?? 1000) - 240), []);

  const styles = useMemo(() => backendStyles(tab?.plan?.backends ?? [], theme), [tab?.plan?.backends, theme]);
  if (!tab) return null;
  const plan = tab.plan;
  const errors = tab.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = tab.diagnostics.filter((d) => d.severity === 'warning').length;

  return (
    <section
      ref={dockRef}
      className={`part-dock at-${at}`}
      style={at === 'right' ? { width: Math.min(width, maxWidth()) } : { height: Math.min(height, maxHeight()) }}
      aria-label="Partition editor"
    >
      {at === 'right' ? (
        <Splitter orientation="vertical" grow="left" label="Resize the partition editor" value={width} min={DOCK_WIDTH_MIN} max={maxWidth} onChange={setDockWidth} />
      ) : (
        <Splitter className="part-resize" orientation="horizontal" grow="up" label="Resize the partition editor" value={height} min={DOCK_MIN} max={maxHeight} onChange={setDockHeight} />
      )}
      <header className="part-head">
        <span className="part-file mono" title="partition file">{tab.partName}</span>
        <Status tab={tab} errors={errors} warnings={warnings} />
        <Legend styles={styles} plan={plan} />
        <span className="spacer" />
        <button type="button" onClick={() => newPartition(doc.id)} title="Replace the text with a new partition (Ctrl+Z brings it back)">New</button>
        <button type="button" onClick={() => void checkParts(doc.id)} disabled={!plan || tab.stale || tab.check?.running} title="Run the source model and the chained parts on the same random inputs">
          {tab.check?.running ? 'Checking…' : 'Check'}
        </button>
        <button type="button" className="primary" onClick={() => void downloadParts(doc.id)} disabled={!plan || tab.stale || tab.downloading} title="A zip with every part, NAME.conn.json, NAME.conn.ini and the .part file">
          {tab.downloading ? 'Preparing…' : 'Download parts'}
        </button>
        <button type="button" className="part-close" aria-label="Close the partition editor" title="Close (the text is kept)" onClick={() => closePartition(doc.id)}>
          ×
        </button>
      </header>
      {tab.draft && (
        <div className="part-note" role="note">
          An edited version of {tab.draft.partName} for this model{tab.draft.modelName ? ` (${tab.draft.modelName})` : ''} from {new Date(tab.draft.savedAt).toLocaleString()} is saved in this browser.
          <button type="button" className="link" onClick={() => restoreDraft(doc.id)}>Restore it</button>
          <button type="button" className="link" onClick={() => dismissDraft(doc.id)}>{tab.draftOver === 'file' ? 'Keep the dropped file' : 'Start fresh'}</button>
        </div>
      )}
      <div className="part-body">
        <div className="part-editor-col">
          {tab.stale && (
            <div className="part-stale" role="alert">
              The text has {errors} error{errors === 1 ? '' : 's'}: the graph and the list show the last good partition.
            </div>
          )}
          <PartitionEditor doc={doc} theme={theme} />
        </div>
        <div className="part-side">
          {plan ? <PartList tabId={doc.id} plan={plan} styles={styles} selected={tab.selectedPart} stale={tab.stale} theme={theme} /> : <p className="muted pad">{tab.error ?? 'Fix the errors to see the partitions.'}</p>}
          {tab.check && <CheckResult check={tab.check} current={tab.checkCurrent} />}
          {plan && plan.warnings.length > 0 && (
            <ul className="part-warnings">
              {plan.warnings.map((w, i) => <li key={i}>{w}</li>)}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}

function Status({ tab, errors, warnings }: { tab: DockTab; errors: number; warnings: number }) {
  const plan = tab.plan;
  let text: string;
  let cls = 'ok';
  if (tab.error) {
    text = tab.error;
    cls = 'bad';
  } else if (tab.stale) {
    text = `${errors} error${errors === 1 ? '' : 's'} · last good: ${plan ? `${partCount(plan)} parts` : 'none'}`;
    cls = 'bad';
  } else if (plan) {
    text = `${partCount(plan)} part${partCount(plan) === 1 ? '' : 's'} · ${tab.ms.toFixed(1)} ms${warnings ? ` · ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`;
    if (warnings) cls = 'warn';
  } else text = 'partitioning…';
  return (
    <span className={`part-status part-status-${cls}`} aria-live="polite" data-testid="part-status">
      {text}
    </span>
  );
}

function Chip({ style }: { style: BackendStyle }) {
  return <span className={`part-chip${style.cycle > 0 ? ' part-chip-hatch' : ''}`} style={{ background: style.fill }} aria-hidden="true" />;
}

function Legend({ styles, plan }: { styles: BackendStyle[]; plan: PartitionPlanView | null }) {
  const counts = useMemo(() => {
    const c = new Array<number>(styles.length).fill(0);
    if (plan) for (const b of plan.operatorBackend) if (b >= 0) c[b] = (c[b] ?? 0) + 1;
    return c;
  }, [plan, styles.length]);
  if (!plan) return null;
  return (
    <ul className="part-legend" aria-label="Backends">
      {styles.map((s, i) => (
        <li key={s.backend} title={`${s.backend}: ${counts[i]} operators (${s.slot}${s.cycle ? `, repeat ${s.cycle}` : ''})${s.backend === plan.defaultBackend ? ', default' : ''}`}>
          <Chip style={s} />
          <span className="mono">{s.backend}</span>
          <span className="muted">{counts[i]}</span>
        </li>
      ))}
    </ul>
  );
}

function Names({ names }: { names: string[] }) {
  if (names.length === 0) return <span className="muted">—</span>;
  const shown = names.slice(0, 6);
  return (
    <>
      {shown.map((n, i) => (
        <code key={i} className="part-tensor" title={n}>{n}</code>
      ))}
      {names.length > shown.length && <span className="muted"> +{names.length - shown.length} more</span>}
    </>
  );
}

/** Every row of the list is this tall (CSS: `.part-list tbody tr`); the list draws only the rows in view. */
export const PART_ROW_HEIGHT = 24;
/** rows drawn above and below the visible ones */
const OVERSCAN = 8;

/**
 * The partitions in output order. Virtualised: a 10,000-operator model gives thousands of parts,
 * and laying out a table of all of them cost ~100 ms per edit (9,000 layout objects at 470
 * parts); only the rows in view (plus a few) are in the DOM, in a fixed-layout table whose
 * `aria-rowcount` / `aria-rowindex` still tell the whole count. The list is its own scroll
 * container with layout/paint containment, so an edit never lays out the rest of the page.
 */
const PartList = memo(function PartList({ tabId, plan, styles, selected, stale, theme }: { tabId: string; plan: PartitionPlanView; styles: BackendStyle[]; selected: number | null; stale: boolean; theme: 'light' | 'dark' }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [first, setFirst] = useState(0);
  const [viewRows, setViewRows] = useState(20);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => {
      const h = entries[0]?.contentRect.height ?? 0;
      setViewRows(Math.max(1, Math.ceil(h / PART_ROW_HEIGHT)));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el) setFirst(Math.floor(el.scrollTop / PART_ROW_HEIGHT));
  }, []);
  const total = partCount(plan);
  const from = Math.max(0, Math.min(first, total - viewRows) - OVERSCAN);
  const to = Math.min(total, first + viewRows + OVERSCAN);
  const focusRow = (i: number) => {
    const el = scroller.current;
    if (!el || i < 0 || i >= total) return;
    // keep row i in view (the header is one row tall), then focus it once it is drawn
    const top = i * PART_ROW_HEIGHT, bottom = top + 2 * PART_ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (bottom > el.scrollTop + el.clientHeight) el.scrollTop = bottom - el.clientHeight;
    setFirst(Math.floor(el.scrollTop / PART_ROW_HEIGHT));
    requestAnimationFrame(() => el.querySelector<HTMLElement>(`tr[data-row="${i}"]`)?.focus({ preventScroll: true }));
  };
  return (
    <div ref={scroller} className={`part-list${stale ? ' part-list-stale' : ''}`} onScroll={onScroll}>
      <div className="part-list-sizer" style={{ height: (total + 1) * PART_ROW_HEIGHT, paddingTop: from * PART_ROW_HEIGHT }}>
        <table aria-label="Partitions" aria-rowcount={total + 1}>
          <colgroup>
            <col className="part-col-file" />
            <col className="part-col-backend" />
            <col className="part-col-ops" />
            <col />
            <col />
          </colgroup>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col">File</th>
              <th scope="col">Backend</th>
              <th scope="col" className="num">Ops</th>
              <th scope="col">Inputs</th>
              <th scope="col">Outputs</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: Math.max(0, to - from) }, (_, k) => {
              const i = from + k;
              const fileName = plan.fileNames[i]!;
              const backend = partBackend(plan, i);
              const st = styles[plan.partBackend[i] ?? -1];
              return (
                <tr
                  key={fileName}
                  aria-rowindex={i + 2}
                  aria-selected={selected === i}
                  tabIndex={0}
                  data-part={partNumber(i)}
                  data-row={i}
                  onClick={() => selectPart(tabId, i)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault();
                      selectPart(tabId, i);
                    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                      e.preventDefault();
                      focusRow(i + (e.key === 'ArrowDown' ? 1 : -1));
                    }
                  }}
                  style={{ borderLeftColor: partOutline(i, theme) }}
                >
                  <td className="mono part-file-cell" title={fileName}><span dir="ltr">{fileName}</span></td>
                  <td>
                    {st && <Chip style={st} />} <span className="mono">{backend}</span>
                  </td>
                  <td className="num">{plan.partOperatorCount[i]}</td>
                  <td><Names names={partInputs(plan, i)} /></td>
                  <td><Names names={partOutputs(plan, i)} /></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
});

function fmtDiff(v: number) {
  if (!Number.isFinite(v)) return '∞';
  if (v === 0) return '0';
  return v < 1e-3 || v >= 1e5 ? v.toExponential(2) : v.toPrecision(3);
}

function CheckResult({ check, current }: { check: CheckState; current: boolean }) {
  if (check.running) return <p className="muted pad">Running the source model and the parts…</p>;
  if (check.error) return <div className="part-check part-check-bad" role="alert">Check could not run: {check.error}</div>;
  const r = check.result;
  if (!r) return null;
  return (
    <div className={`part-check ${r.ok ? 'part-check-ok' : 'part-check-bad'}`} aria-label="Check result">
      <div className="part-check-head">
        <b>{r.ok ? 'Check passed' : 'Check failed'}</b>
        <span className="muted"> · {r.outputs.length} output{r.outputs.length === 1 ? '' : 's'} · {r.order.length} part{r.order.length === 1 ? '' : 's'} chained · {(r.ms / 1000).toFixed(2)} s{current ? '' : ' · text changed since'}</span>
      </div>
      {r.problem && <div>{r.problem}</div>}
      <table aria-label="Largest difference per output">
        <tbody>
          {r.outputs.map((o) => (
            <tr key={o.name}>
              <td className="mono">{o.name}</td>
              <td className="num mono">max |Δ| {fmtDiff(o.maxAbsDiff)}</td>
              <td className="muted">{o.tolerance === 0 ? 'exact' : `tol ${o.tolerance}`}</td>
              <td className={o.ok ? 'part-pass' : 'part-fail'}>{o.ok ? 'pass' : 'FAIL'}{o.problem ? `: ${o.problem}` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

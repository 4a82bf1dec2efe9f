/**
 * Profile view of a systrace capture: per run, the AOSP timing table (self or total times,
 * all phases or per execution), the timeline of the tracked threads, the selected mark's
 * details, and the diagnostics with the marks AOSP drops silently.
 */
import { useEffect, useMemo, useState } from 'react';
import type { SystraceAnalysis } from '../../worker/api';
import type { RunResult, TableCell, TableRow, TimelineMark, TimingTable } from '../../core/systrace/model';
import { LAYER_NAMES, PHASE_NAMES } from '../../core/systrace/model';
import { DiagnosticsPanel } from './DiagnosticsPanel';
import { formatUs, groupThousands } from './format';
import { LAYER_ORDER } from './timeline-model';
import { layerPhaseText, Timeline } from './Timeline';
import { TimingTableView, type CellKey } from './TimingTableView';
import './profile.css';

function runName(r: RunResult): string {
  const m = /\]([^|]*)$/.exec(r.startingMark);
  return m ? m[1]! : r.startingMark || '(no starting mark)';
}

function pickTable(r: RunResult, total: boolean, perExecution: boolean): TimingTable | null {
  if (!r.tables) return null;
  if (perExecution) return total ? r.tables.perExecutionTotal : r.tables.perExecutionSelf;
  return total ? r.tables.total : r.tables.self;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

export function ProfileView({ analysis, theme }: { analysis: SystraceAnalysis; theme: 'light' | 'dark' }) {
  const firstUseful = Math.max(0, analysis.runs.findIndex((r) => r.tables));
  const [runIndex, setRunIndex] = useState(firstUseful);
  const [totalTimes, setTotalTimes] = useState(false);
  const [perExecution, setPerExecution] = useState(false);
  const [cellKey, setCellKey] = useState<CellKey | null>(null);
  const [selectedMark, setSelectedMark] = useState<TimelineMark | null>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    setRunIndex(firstUseful);
  }, [analysis, firstUseful]);

  const run: RunResult | undefined = analysis.runs[runIndex];
  useEffect(() => {
    setCellKey(null);
    setSelectedMark(null);
  }, [run]);

  const table = run ? pickTable(run, totalTimes, perExecution) : null;
  const cell: TableCell | null = useMemo(() => {
    if (!table || !cellKey) return null;
    return table.rows.find((r) => r.layer === cellKey.layer)?.cells.find((c) => c.column === cellKey.column) ?? null;
  }, [table, cellKey]);
  const highlight = cell && cell.marks.length ? cell.marks : null;
  const threadOf = useMemo(() => {
    const map = new Map<number, { task: string; tid: number }>();
    for (const t of run?.threads ?? []) for (const m of t.marks) map.set(m.id, { task: t.task, tid: t.tid });
    return map;
  }, [run]);
  const markById = useMemo(() => {
    const map = new Map<number, TimelineMark>();
    for (const t of run?.threads ?? []) for (const m of t.marks) map.set(m.id, m);
    return map;
  }, [run]);
  const runOrigin = useMemo(() => {
    let o = Infinity;
    for (const t of run?.threads ?? []) for (const m of t.marks) if (m.beginUs < o) o = m.beginUs;
    return Number.isFinite(o) ? o : 0;
  }, [run]);

  const onCell = (row: TableRow, c: TableCell) => {
    if (cellKey?.layer === row.layer && cellKey.column === c.column) setCellKey(null);
    else setCellKey({ layer: row.layer, column: c.column });
  };
  const colLabel = (key: string) => table?.columns.find((c) => c.key === key)?.label ?? key;
  const rowLabel = (layer: string) => table?.rows.find((r) => r.layer === layer)?.label ?? layer;
  const groupLabel = perExecution && run?.upstream?.hasWarmupAndBenchmark ? 'Benchmark' : 'Execution';
  const counts = run?.upstream?.executionCounts;
  const layersInRun = useMemo(() => {
    const s = new Set<string>();
    for (const t of run?.threads ?? []) for (const m of t.marks) s.add(m.ignored ? 'LX' : m.layer);
    return LAYER_ORDER.filter((l) => s.has(l));
  }, [run]);
  const hasSubtract = useMemo(() => (run?.threads ?? []).some((t) => t.marks.some((m) => m.subtract && !m.ignored)), [run]);
  const runLines: [number, number] | null = run ? [run.firstLine, run.lastLine] : null;

  if (analysis.runs.length === 0) {
    return (
      <div className="pv">
        <p className="pv-notice">
          No NNAPI run in {analysis.file}: the capture has no <code>[NN_LA_PO]</code> mark and no NNAPI marks on tracked threads.
        </p>
        <DiagnosticsPanel analysis={analysis} runLines={null} />
      </div>
    );
  }

  return (
    <div className="pv" data-theme-variant={theme}>
      <div className="pv-toolbar" role="toolbar" aria-label="Profile options">
        <span className="pv-run">
          <label htmlFor="pv-run-select">Run</label>
          <select id="pv-run-select" value={runIndex} onChange={(e) => setRunIndex(Number(e.target.value))}>
            {analysis.runs.map((r) => (
              <option key={r.index} value={r.index}>
                {`${r.index + 1} · ${runName(r)} · lines ${r.firstLine}–${r.lastLine} · ${r.status}`}
              </option>
            ))}
          </select>
        </span>
        {run && (
          <span className={`pv-status pv-status-${run.status}`} title={run.startingMark}>
            {run.status}
          </span>
        )}
        <span className="pv-sep" />
        <label className="pv-check">
          <input type="checkbox" checked={totalTimes} onChange={(e) => setTotalTimes(e.target.checked)} /> Total times
        </label>
        <label className="pv-check">
          <input type="checkbox" checked={perExecution} onChange={(e) => setPerExecution(e.target.checked)} /> Per execution
        </label>
        <span className="pv-sep" />
        <button
          type="button"
          disabled={!table}
          onClick={() => table && void copyText(table.text).then((ok) => setCopied(ok ? 'Copied the table as AOSP prints it' : 'Copy failed'))}
        >
          Copy as text
        </button>
        <span className="muted pv-copied" aria-live="polite">
          {copied}
        </span>
        <span className="spacer" />
        <span className="muted pv-summary">
          {analysis.file} · {analysis.format} · {groupThousands(analysis.markCount)} marks · {analysis.runs.length} runs ·{' '}
          {analysis.threads.length} tracked threads
        </span>
      </div>

      {run && (
        <div className="pv-top">
          <section className="pv-card pv-table-card" aria-label="Timing table">
            <div className="pv-run-head">
              <code className="pv-starting" title="starting mark">
                {run.startingMark || '(no starting mark)'}
              </code>
              {counts && (
                <span className="muted">
                  {run.upstream?.hasWarmupAndBenchmark
                    ? `${counts.PWU} warmup + ${counts.PBM} benchmark executions`
                    : `${counts.PO} execution${counts.PO === 1 ? '' : 's'}`}
                  {perExecution && table?.executionCount !== undefined ? ` · values divided by ${table.executionCount}` : ''}
                </span>
              )}
            </div>
            {table ? (
              <TimingTableView table={table} groupLabel={groupLabel} selected={cellKey} onCell={onCell} />
            ) : (
              <p className="pv-notice">
                {run.status === 'incomplete'
                  ? 'AOSP prints no table for this run: Incomplete trace, not able to print all statistics. Marks still open at the end of the capture (no end mark) are drawn running on past its last timestamp.'
                  : run.status === 'invalid'
                    ? `AOSP stops at this run${analysis.fatal ? `: ${analysis.fatal.message}` : ''}. The timeline shows the marks read before the error.`
                    : 'No table for this run.'}
              </p>
            )}
            {run.diagnostics.length > 0 && (
              <ul className="pv-run-diags">
                {run.diagnostics.map((d, i) => (
                  <li key={i}>
                    <span className={`pv-sev pv-sev-${d.severity}`}>{d.severity === 'info' ? 'note' : d.severity}</span>
                    {d.line !== undefined && <span className="pv-line">line {d.line}</span>} {d.message}
                  </li>
                ))}
              </ul>
            )}
            {table && run.output === 'failed' && (
              <p className="pv-notice">
                AOSP stops while printing this run{analysis.fatal ? `: ${analysis.fatal.message}` : ''}; the numbers are what it computes up to there.
              </p>
            )}
            {table && run.output === 'not-reached' && (
              <p className="pv-notice">AOSP&apos;s output ends before this run (it stops at an earlier error); the numbers are what it would compute.</p>
            )}
          </section>

          <aside className="pv-card pv-details" aria-label="Selection details">
            <div className="pv-details-inner">
            {selectedMark ? (
              <MarkDetails
                mark={selectedMark}
                thread={threadOf.get(selectedMark.id)}
                originUs={runOrigin}
                parent={selectedMark.parent === null ? undefined : markById.get(selectedMark.parent)}
                onSelect={setSelectedMark}
              />
            ) : cell && cellKey ? (
              <CellDetails cell={cell} title={`${rowLabel(cellKey.layer)} · ${colLabel(cellKey.column)}`} markById={markById} onSelect={setSelectedMark} />
            ) : (
              <div className="muted pv-hint">
                <h2>Selection</h2>
                <p>Press a table cell to highlight the marks that make it up; click a bar in the timeline for its details.</p>
                <p>Timeline: wheel zooms, drag pans, double-click fits.</p>
                <p>
                  Keys, with the timeline focused: ←/→ previous/next mark, ↑/↓ parent/child, Home/End, Enter selects, Esc clears,
                  +/− zoom, Shift+←/→ pan, 0 fits.
                </p>
              </div>
            )}
            </div>
          </aside>
        </div>
      )}

      {run && (
        <section className="pv-card pv-timeline" aria-label="Timeline">
          <div className="pv-tl-head">
            <h2>Timeline</h2>
            <ul className="pv-legend" aria-label="Layer colours">
              {layersInRun.map((l) => (
                <li key={l}>
                  <span className="tl-swatch" data-layer={l} />
                  {LAYER_NAMES[l] ?? l}
                </li>
              ))}
              {hasSubtract && (
                <li title="marks whose time is taken off an enclosing mark">
                  <span className="tl-swatch tl-swatch-hatch" />
                  subtracted from parent
                </li>
              )}
            </ul>
            <span className="spacer" />
            <span className="pv-hl" aria-live="polite" data-testid="highlight-info">
              {highlight && cellKey
                ? `${highlight.length} mark${highlight.length === 1 ? '' : 's'} highlighted for ${rowLabel(cellKey.layer)} · ${colLabel(cellKey.column)}`
                : ''}
            </span>
            {highlight && (
              <button type="button" onClick={() => setCellKey(null)}>
                Clear highlight
              </button>
            )}
          </div>
          <Timeline
            threads={run.threads}
            theme={theme}
            highlight={highlight}
            selectedId={selectedMark?.id ?? null}
            onSelect={setSelectedMark}
            label={`run ${run.index + 1}`}
          />
        </section>
      )}

      <DiagnosticsPanel analysis={analysis} runLines={runLines} />
    </div>
  );
}

function MarkDetails({
  mark,
  thread,
  originUs,
  parent,
  onSelect,
}: {
  mark: TimelineMark;
  thread: { task: string; tid: number } | undefined;
  originUs: number;
  parent: TimelineMark | undefined;
  onSelect: (m: TimelineMark | null) => void;
}) {
  const flags: string[] = [];
  if (mark.ignored) flags.push('ignored (deleted by the rewrites; drawn for reference)');
  if (mark.subtract) flags.push('subtracted from its parent');
  if (mark.addedDetail) flags.push('same-layer detail of its parent (adds nothing by itself)');
  if (mark.synthetic) flags.push('inserted by the parser (missing application mark)');
  if (mark.switched) flags.push('written with [SW] / [SUB]');
  if (mark.copyOf !== undefined) flags.push(`copy of mark ${mark.copyOf} (${mark.copyReason ?? 'rewrite'})`);
  return (
    <div className="pv-mark-details">
      <div className="pv-details-head">
        <h2>
          <span className="tl-swatch" data-layer={mark.ignored ? 'LX' : mark.layer} /> {mark.name || mark.mark}
        </h2>
        <button type="button" className="pv-close" aria-label="Clear selection" onClick={() => onSelect(null)}>
          ×
        </button>
      </div>
      <table className="props">
        <tbody>
          <tr>
            <th scope="row">Layer · phase</th>
            <td>{layerPhaseText(mark)}</td>
          </tr>
          <tr>
            <th scope="row">App phase</th>
            <td>{PHASE_NAMES[mark.appPhase] ?? mark.appPhase}</td>
          </tr>
          <tr>
            <th scope="row">Elapsed</th>
            <td className="num">{formatUs(mark.elapsedUs)}</td>
          </tr>
          <tr>
            <th scope="row">Self</th>
            <td className="num">{formatUs(mark.selfUs)}</td>
          </tr>
          <tr>
            <th scope="row">Counted</th>
            <td className="num">{formatUs(mark.countedUs)}</td>
          </tr>
          <tr>
            <th scope="row">Starts at</th>
            <td className="num">{formatUs(mark.beginUs - originUs)} into the run</td>
          </tr>
          <tr>
            <th scope="row">Thread</th>
            <td>{thread ? `${thread.task} ${thread.tid}` : '—'}</td>
          </tr>
          <tr>
            <th scope="row">Line</th>
            <td className="num">{mark.line}</td>
          </tr>
          <tr>
            <th scope="row">Counts in</th>
            <td className="mono">{mark.statKeys.length ? mark.statKeys.join(' ') : '—'}</td>
          </tr>
          {parent && (
            <tr>
              <th scope="row">Parent</th>
              <td>
                <button type="button" className="link" onClick={() => onSelect(parent)}>
                  {parent.name || parent.mark}
                </button>
              </td>
            </tr>
          )}
          {flags.length > 0 && (
            <tr>
              <th scope="row">Notes</th>
              <td>{flags.join('; ')}</td>
            </tr>
          )}
        </tbody>
      </table>
      <code className="pv-marktext">{mark.mark}</code>
    </div>
  );
}

function CellDetails({
  cell,
  title,
  markById,
  onSelect,
}: {
  cell: TableCell;
  title: string;
  markById: Map<number, TimelineMark>;
  onSelect: (m: TimelineMark) => void;
}) {
  const marks = cell.marks.map((id) => markById.get(id)).filter((m): m is TimelineMark => m !== undefined);
  const shown = marks.slice(0, 50);
  return (
    <div>
      <h2>{title}</h2>
      <p className="pv-cell-value">
        <span className="mono">
          {cell.text}
          {cell.starred ? '*' : ''}
        </span>
        {cell.exactMs !== null && <span className="muted"> · exact {cell.exactMs.toFixed(3)} ms</span>}
      </p>
      <p className="muted">
        {marks.length} contributing mark{marks.length === 1 ? '' : 's'}
      </p>
      <ul className="pv-contrib">
        {shown.map((m) => (
          <li key={m.id}>
            <button type="button" className="link" onClick={() => onSelect(m)}>
              {m.name || m.mark}
            </button>{' '}
            <span className="muted">
              {LAYER_NAMES[m.layer] ?? m.layer} · {formatUs(m.countedUs)} counted · line {m.line}
            </span>
          </li>
        ))}
      </ul>
      {marks.length > shown.length && <p className="muted">and {marks.length - shown.length} more</p>}
    </div>
  );
}

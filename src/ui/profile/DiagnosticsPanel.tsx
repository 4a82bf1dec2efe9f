/**
 * What the parser reported (with line numbers and severity) and what AOSP drops without a word:
 * marks on threads it does not track. Long lists are shown a page at a time with a count.
 */
import { useState } from 'react';
import type { Diagnostic } from '../../core/errors';
import type { DroppedMark, SystraceAnalysis } from '../../core/systrace/model';
import { LAYER_NAMES, PHASE_NAMES } from '../../core/systrace/model';

const PAGE = 100;

const SOURCE_LABEL: Record<string, string> = {
  'no-runtime-trace': 'no runtime trace',
  'incomplete-run': 'incomplete run',
  'untracked-thread': 'untracked thread',
};

function markName(mark: string): string {
  const i = mark.indexOf('|', 2);
  return i >= 0 ? mark.slice(i + 1) : mark;
}

export function DiagnosticsPanel({ analysis, runLines }: { analysis: SystraceAnalysis; runLines: [number, number] | null }) {
  const [diagShown, setDiagShown] = useState(PAGE);
  const [dropShown, setDropShown] = useState(PAGE);
  const [onlyRun, setOnlyRun] = useState(false);
  const diags: Diagnostic[] = analysis.diagnostics;
  const inRun = (line: number) => runLines !== null && line >= runLines[0] && line <= runLines[1];
  const dropped: DroppedMark[] = onlyRun ? analysis.droppedMarks.filter((d) => inRun(d.line)) : analysis.droppedMarks;
  const counts = { error: 0, warning: 0, info: 0 };
  for (const d of diags) counts[d.severity]++;

  return (
    <section className="pv-card pv-diag" aria-labelledby="pv-diag-title" tabIndex={-1}>
      <h2 id="pv-diag-title">
        Diagnostics{' '}
        <span className="muted pv-count">
          {counts.error} errors · {counts.warning} warnings · {counts.info} notes
        </span>
      </h2>
      {analysis.fatal && (
        <p className="pv-fatal">
          <span className="pv-sev pv-sev-error">error</span>
          {analysis.fatal.line !== undefined && <span className="pv-line">line {analysis.fatal.line}</span>}
          AOSP&apos;s parser stops here (its output ends at this point): {analysis.fatal.message}
          {analysis.fatal.lineText && <code className="pv-linetext">{analysis.fatal.lineText}</code>}
        </p>
      )}
      {diags.length === 0 ? (
        <p className="muted">The parser reported nothing.</p>
      ) : (
        <ul className="pv-diag-list" aria-label="Diagnostics">
          {diags.slice(0, diagShown).map((d, i) => (
            <li key={i} className={d.line !== undefined && inRun(d.line) ? 'pv-in-run' : undefined}>
              <span className={`pv-sev pv-sev-${d.severity}`}>{d.severity === 'info' ? 'note' : d.severity}</span>
              <span className="pv-line">{d.line !== undefined ? `line ${d.line}` : '—'}</span>
              <span className="pv-msg">{d.message}</span>
              {d.source && <span className="pv-src muted">{SOURCE_LABEL[d.source] ?? d.source}</span>}
            </li>
          ))}
        </ul>
      )}
      {diags.length > diagShown && (
        <button type="button" onClick={() => setDiagShown((n) => n + PAGE * 5)}>
          Show more ({diags.length - diagShown} not shown)
        </button>
      )}

      <h3 id="pv-dropped-title">
        Dropped marks{' '}
        <span className="muted pv-count">
          {analysis.droppedMarks.length} on untracked threads{onlyRun ? `, ${dropped.length} in this run's lines` : ''}
        </span>
      </h3>
      <p className="pv-explain">
        AOSP&apos;s parser drops these marks silently: they were recorded on threads it does not track, so their time is
        counted nowhere in the table. They explain negative self-times: when a call&apos;s server side ran on an
        untracked thread, its parent is charged less than the time its children were charged.
      </p>
      {analysis.droppedMarks.length > 0 && (
        <>
          <label className="pv-check">
            <input type="checkbox" checked={onlyRun} onChange={(e) => setOnlyRun(e.target.checked)} /> Only the selected run&apos;s lines
          </label>
          <div className="pv-dropped-wrap">
            <table className="pv-dropped" aria-labelledby="pv-dropped-title">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Thread</th>
                  <th scope="col">Process</th>
                  <th scope="col">Layer · phase</th>
                  <th scope="col">Mark</th>
                </tr>
              </thead>
              <tbody>
                {dropped.slice(0, dropShown).map((d, i) => (
                  <tr key={i}>
                    <td className="num">{d.line}</td>
                    <td>
                      {d.task} <span className="muted">{d.tid}</span>
                    </td>
                    <td className="num">{d.tgid}</td>
                    <td>
                      {LAYER_NAMES[d.layer] ?? d.layer} · {PHASE_NAMES[d.phase] ?? d.phase}
                    </td>
                    <td className="mono pv-mark">{markName(d.mark)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {dropped.length > dropShown && (
            <button type="button" onClick={() => setDropShown((n) => n + PAGE * 5)}>
              Show more ({dropped.length - dropShown} not shown)
            </button>
          )}
        </>
      )}
    </section>
  );
}

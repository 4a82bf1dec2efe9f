/**
 * The Run view of a loadable: the input (an image resized and converted to the loadable's input
 * tensor format, a `.npy`, or seeded random values) and, for int8, the calibration table; Run with
 * progress and Cancel (the DLA model runs in the model worker); the output with its top-5; the
 * warnings (an int8 loadable compiled without a calibration table says its results mean
 * nothing); and, with a Caffe model open, the comparison of every op slot with the Caffe layer it
 * computes: a per-layer error chart, a table, and the picked layer's two tensors and their
 * difference as heatmaps. The op-slot graph and the Caffe graph are coloured by the same error.
 */
import { useEffect, useRef } from 'react';
import type { Doc } from '../store';
import { useStudio } from '../store';
import { ErrorChart, PlaneHeatmap } from './charts';
import { badness, errorColour, formatMetric, METRICS, worstLayer, type MetricName } from './model';
import {
  cancelLoadableRun,
  caffeTabs,
  compareWithCaffe,
  ensureRunLoadable,
  pickLayer,
  setCaffeTab,
  setCalibrationFile,
  setLoadableInputFile,
  startLoadableRun,
  updateRunLoadable,
  useRunLoadable,
  type RunLoadableTab,
} from './state';
import { selectNode } from '../actions';
import { InputFileChooser } from '../run/InputFileChooser';
import './run-loadable.css';
import { CaffeModelSelect } from './CaffeModelSelect';

export function RunLoadableView({ doc, theme }: { doc: Doc; theme: 'light' | 'dark' }) {
  const t = useRunLoadable((s) => s.tabs[doc.id]);
  const docs = useStudio((s) => s.docs);
  const caffeCount = caffeTabs(docs).length;
  useEffect(() => {
    void ensureRunLoadable(doc.id);
  }, [doc.id, doc.workerDocId, caffeCount]);
  if (!t || (!t.plan && !t.planError)) return <p className="muted pad">Reading the loadable…</p>;
  if (t.planError) return <p className="diag-error pad">{t.planError}</p>;
  const plan = t.plan!;
  const first = plan.inputs[0];
  return (
    <div className="rl-view">
      <section className="rl-card rl-setup" aria-label="Run the loadable">
        <h2>Run on the DLA model</h2>
        <p className="muted">
          Tasks in submit order, op slots by their dependencies and events, each engine computing what its descriptors say ({plan.hardware || 'configuration unknown'}: {plan.hardwareReason}).
        </p>
        {plan.problems.length > 0 && (
          <div className="run-problems" role="alert" aria-label="Why the loadable cannot run">
            <b>The loadable cannot run:</b>
            <ul>
              {plan.problems.slice(0, 6).map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        )}
        {plan.warnings.map((w) => (
          <p key={w} className={`rl-warning${plan.uncalibrated ? ' rl-warning-strong' : ''}`} role="note">
            {w}
          </p>
        ))}
        {first && <InputForm tabId={doc.id} t={t} />}
        <div className="run-actions">
          <button type="button" className="primary" disabled={!!t.running || plan.problems.length > 0 || !first} onClick={() => void startLoadableRun(doc.id)}>
            Run
          </button>
          {t.running && (
            <button type="button" onClick={() => cancelLoadableRun(doc.id)}>
              Cancel
            </button>
          )}
          {t.outcome && !t.running && (
            <span className="muted">
              {t.outcome.slots.length} ops in {t.outcome.totalMs.toFixed(t.outcome.totalMs < 10 ? 1 : 0)} ms · {t.outcome.hardware}
            </span>
          )}
        </div>
        {t.running && (
          <div className="run-progress">
            <div className="progress-track" role="progressbar" aria-label="Running the loadable" aria-valuemin={0} aria-valuemax={t.running.total || 1} aria-valuenow={t.running.done}>
              <div className="progress-fill" style={{ width: `${t.running.total ? (100 * t.running.done) / t.running.total : 0}%` }} />
            </div>
            <span className="muted">
              {t.running.done} / {t.running.total} ops {t.running.what && `· ${t.running.what}`}
            </span>
          </div>
        )}
        {t.error && !t.running && (
          <p className="diag-error" role="status">
            {t.error}
          </p>
        )}
      </section>
      {t.outcome && <Outcome doc={doc} t={t} />}
      {t.outcome && <Comparison doc={doc} t={t} docs={docs} theme={theme} />}
    </div>
  );
}

function InputForm({ tabId, t }: { tabId: string; t: RunLoadableTab }) {
  const plan = t.plan!;
  const first = plan.inputs[0]!;
  const calibPicker = useRef<HTMLInputElement>(null);
  const set = (patch: Partial<RunLoadableTab>) => updateRunLoadable(tabId, patch);
  return (
    <fieldset className="run-input rl-input" disabled={!!t.running}>
      <legend>
        Input <b>{first.name}</b>{' '}
        <span className="mono muted">
          {first.shape.join('×')} {first.dataType} {first.format}
        </span>
      </legend>
      <div role="radiogroup" aria-label="Input source" className="run-sources">
        {(['image', 'array', 'random'] as const).map((s) => (
          <label key={s}>
            <input type="radio" name={`rl-src-${tabId}`} checked={t.source === s} onChange={() => set({ source: s })} /> {s === 'array' ? '.npy' : s}
          </label>
        ))}
      </div>
      {t.source !== 'random' && (
        <InputFileChooser source={t.source} file={t.file} emptyText="none chosen" fileNameClass="mono" testId="rl-input-file" onChoose={(f) => setLoadableInputFile(tabId, f)} />
      )}
      {t.source === 'image' && (
        <div className="run-fields">
          <label>
            colour{' '}
            <select aria-label="Colour order" value={t.color} onChange={(e) => set({ color: e.currentTarget.value as RunLoadableTab['color'] })}>
              <option value="gray">gray (1 channel)</option>
              <option value="bgr">BGR</option>
              <option value="rgb">RGB</option>
            </select>
          </label>
          <label>
            scale <input aria-label="Scale" value={t.scale} onChange={(e) => set({ scale: e.currentTarget.value })} size={10} />
          </label>
          <label>
            mean <input aria-label="Mean" value={t.mean} onChange={(e) => set({ mean: e.currentTarget.value })} size={12} />
          </label>
          <span className="muted run-hint">
            resized to {first.shape[3]} × {first.shape[2]} (bilinear), value = (pixel − mean) × scale, then written as {first.dataType} {first.format}
            {first.shape[1] > (t.color === 'gray' ? 1 : 3) ? ` with channels ${t.color === 'gray' ? 1 : 3}..${first.shape[1] - 1} zero, as the runtime pads them` : ''}
            {t.caffePlan?.transform ? ` · defaults from the Caffe ${t.caffePlan.transform.source}` : ''}
          </span>
        </div>
      )}
      {t.source === 'random' && (
        <div className="run-fields">
          <label>
            seed <input aria-label="Seed" value={t.seed} onChange={(e) => set({ seed: e.currentTarget.value })} size={8} />
          </label>
          <span className="muted run-hint">uniform values in [0, 1)</span>
        </div>
      )}
      {first.needsScale && (
        <div className="run-file rl-calib-choice">
          <span>Calibration table: </span>
          <span className={t.calibration ? 'mono' : 'muted'}>{t.calibration ? t.calibration.source : 'none (the compiler’s defaults: input scale 1)'}</span>{' '}
          <button type="button" onClick={() => calibPicker.current?.click()}>
            Choose calib.json…
          </button>
          {t.calibration && (
            <button type="button" onClick={() => set({ calibration: null })}>
              Clear
            </button>
          )}
          <input
            ref={calibPicker}
            type="file"
            hidden
            data-testid="rl-calib-file"
            accept=".json,application/json"
            onChange={(e) => {
              const f = e.currentTarget.files?.[0];
              if (f) void setCalibrationFile(tabId, { name: f.name, blob: f });
              e.currentTarget.value = '';
            }}
          />
        </div>
      )}
    </fieldset>
  );
}

function Outcome({ doc, t }: { doc: Doc; t: RunLoadableTab }) {
  const o = t.outcome!;
  // the plan's notes stand above the input form already; the run's own warnings come here
  const shown = new Set(t.plan?.warnings ?? []);
  const warnings = o.warnings.filter((w) => !shown.has(w));
  return (
    <section className="rl-card" aria-label="Output">
      <h2>Output</h2>
      {warnings.length > 0 && (
        <ul className="rl-warnings" aria-label="Warnings of the run">
          {warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      <div className="rl-outputs">
        {o.outputs.map((out) => (
          <div key={out.bindId} className="rl-output">
            <p>
              <b>{out.name}</b> <span className="mono muted">{out.shape.join('×')} {out.dataType}</span>
              {out.scale !== null && <span className="muted"> · ×{formatMetric(out.scale, 'maxAbs')} ({out.scaleSource})</span>}
            </p>
            {out.top ? (
              <table className="props run-top" aria-label={`Top 5 of ${out.name}`}>
                <thead>
                  <tr>
                    <th>class</th>
                    <th>score</th>
                  </tr>
                </thead>
                <tbody>
                  {out.top.map((c, i) => {
                    const max = Math.max(...out.top!.map((x) => Math.abs(x.score)), 1e-30);
                    return (
                      <tr key={c.index} className={i === 0 ? 'rl-top1' : ''}>
                        <td className="mono">{c.index}</td>
                        <td className="mono">
                          <span className="score-bar" style={{ width: `${(100 * Math.max(0, c.score)) / max}%` }} />
                          {c.score.toPrecision(5)}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            ) : (
              <p className="mono rl-values">{Array.from(out.values.subarray(0, 32), (v) => v.toPrecision(4)).join(', ')}{out.values.length > 32 ? ', …' : ''}</p>
            )}
          </div>
        ))}
      </div>
      <details className="rl-slots">
        <summary>Every op ({o.slots.length})</summary>
        <div className="run-layers">
          <table className="props">
            <thead>
              <tr>
                <th>#</th>
                <th>task</th>
                <th>op</th>
                <th>output</th>
                <th>min … max</th>
                <th>saturated</th>
                <th>ms</th>
              </tr>
            </thead>
            <tbody>
              {o.slots.map((s) => (
                <tr key={s.order} className={doc.selected === s.node ? 'current' : ''} onClick={() => s.node >= 0 && void selectNode(s.node)}>
                  <td className="num">{s.order}</td>
                  <td className="num">{s.task}</td>
                  <td>
                    {s.engine} {s.slot}
                  </td>
                  <td className="mono">{s.output ? `${s.output.channel}×${s.output.height}×${s.output.width} ${s.output.precision}${s.output.where === 'stream' ? ' (stream)' : ''}` : '—'}</td>
                  <td className="mono">{s.output ? `${s.output.min.toPrecision(4)} … ${s.output.max.toPrecision(4)}` : ''}</td>
                  <td className="num">{s.output?.saturated ?? ''}</td>
                  <td className="num">{s.ms.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

function Comparison({ doc, t, docs, theme }: { doc: Doc; t: RunLoadableTab; docs: Doc[]; theme: 'light' | 'dark' }) {
  const caffes = caffeTabs(docs);
  const c = t.comparison;
  const worst = c ? worstLayer(c.rows) : null;
  const pickedRow = c?.rows.find((r) => r.order === t.picked) ?? null;
  const channels = pickedRow ? (pickedRow.shape[1] === 1 && pickedRow.shape[2] === 1 ? 1 : pickedRow.shape[0]) : 1;
  return (
    <section className="rl-card" aria-label="Compare with the Caffe model">
      <h2>Where precision is lost</h2>
      {caffes.length === 0 ? (
        <p className="muted">Open the Caffe model this loadable was compiled from (its .prototxt with the .caffemodel) to compare every op slot with the float forward pass.</p>
      ) : (
        <div className="run-actions">
          <CaffeModelSelect caffes={caffes} value={t.caffeTab} label="Caffe model to compare with" onChange={(id) => void setCaffeTab(doc.id, id)} />
          <button type="button" disabled={t.comparing || !t.caffeTab} onClick={() => void compareWithCaffe(doc.id)}>
            {t.comparing ? 'Comparing…' : 'Compare'}
          </button>
          {c && (
            <label>
              <input type="checkbox" checked={t.colourByError} onChange={(e) => updateRunLoadable(doc.id, { colourByError: e.currentTarget.checked })} /> colour the graphs by error
            </label>
          )}
        </div>
      )}
      {t.compareError && (
        <p className="diag-error" role="status">
          {t.compareError}
        </p>
      )}
      {c && (
        <>
          <p className="rl-summary" role="status" aria-label="Comparison summary">
            {c.top1 && (
              <>
                Top-1: loadable <b>{c.top1.loadable}</b>, Caffe <b>{c.top1.caffe}</b> {c.top1.loadable === c.top1.caffe ? '(the same class)' : '(different classes)'}.{' '}
              </>
            )}
            {worst && (
              <>
                Worst layer: <b>{worst.layer}</b> ({worst.engine} {worst.bands ? `slots ${worst.bands.label}` : `slot ${worst.slot}`}) at {formatMetric(worst.metrics.snrDb, 'snrDb')}.
              </>
            )}
            <span className="muted"> Matched by {c.matchedWith}.</span>
          </p>
          <div className="rl-chart-head">
            <label>
              chart{' '}
              <select aria-label="Metric" value={t.metric} onChange={(e) => updateRunLoadable(doc.id, { metric: e.currentTarget.value as MetricName })}>
                {METRICS.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
            <span className="rl-legend" aria-hidden="true">
              <span className="rl-swatch" style={{ background: errorColour(0, theme) }} /> ≥ 40 dB
              <span className="rl-swatch" style={{ background: errorColour(0.5, theme) }} /> 25 dB
              <span className="rl-swatch" style={{ background: errorColour(1, theme) }} /> ≤ 10 dB
            </span>
          </div>
          <div className="rl-chart-wrap" aria-label="Per-layer error chart">
            <ErrorChart rows={c.rows} metric={t.metric} picked={t.picked} onPick={(order) => void pickLayer(doc.id, order, 0)} theme={theme} />
          </div>
          <div className="run-layers rl-table">
            <table className="props" aria-label="Per-layer error">
              <thead>
                <tr>
                  <th>layer</th>
                  <th>op slot</th>
                  <th>shape</th>
                  <th>precision</th>
                  <th>max abs</th>
                  <th>relative</th>
                  <th>cosine</th>
                  <th>SNR</th>
                  <th>saturated</th>
                </tr>
              </thead>
              <tbody>
                {c.rows.map((r) => (
                  <tr key={r.order} className={t.picked === r.order ? 'current' : ''} onClick={() => void pickLayer(doc.id, r.order, 0)}>
                    <td>
                      <span className="rl-swatch" style={{ background: errorColour(badness(r), theme) }} /> {r.layer}
                      {r.layers.length > 1 && <span className="muted"> ({r.layers.join(' + ')})</span>}
                    </td>
                    <td>
                      {r.engine} {r.bands ? r.bands.label : r.slot} <span className="muted">task {r.task}</span>
                    </td>
                    <td className="mono">{r.shape.join('×')}</td>
                    <td>{r.precision}</td>
                    <td className="num">{formatMetric(r.metrics.maxAbs, 'maxAbs')}</td>
                    <td className="num">{formatMetric(r.metrics.relative, 'relative')}</td>
                    <td className="num">{formatMetric(r.metrics.cosine, 'cosine')}</td>
                    <td className="num">{formatMetric(r.metrics.snrDb, 'snrDb')}</td>
                    <td className="num">{r.saturated}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {c.skipped.length > 0 && (
            <details className="rl-skipped">
              <summary className="muted">{c.skipped.length} op slots not compared</summary>
              <ul>
                {c.skipped.map((s) => (
                  <li key={`${s.task}:${s.slot}`}>
                    task {s.task} {s.engine} slot {s.slot}: {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {pickedRow && (
            <div className="rl-tensors" aria-label={`Tensors of ${pickedRow.layer}`}>
              <div className="run-blob-controls">
                <b>{pickedRow.layer}</b>
                <span className="muted">
                  {pickedRow.engine} {pickedRow.bands ? `slots ${pickedRow.bands.label}` : `slot ${pickedRow.slot}`} · {pickedRow.shape.join('×')}
                </span>
                {channels > 1 && (
                  <span className="stepper">
                    channel{' '}
                    <button type="button" aria-label="Previous channel" disabled={t.channel <= 0} onClick={() => void pickLayer(doc.id, pickedRow.order, t.channel - 1)}>
                      ‹
                    </button>
                    <input
                      aria-label="Channel"
                      type="number"
                      min={0}
                      max={channels - 1}
                      value={t.channel}
                      onChange={(e) => {
                        const v = Number(e.currentTarget.value);
                        if (Number.isInteger(v) && v >= 0 && v < channels) void pickLayer(doc.id, pickedRow.order, v);
                      }}
                    />
                    <button type="button" aria-label="Next channel" disabled={t.channel >= channels - 1} onClick={() => void pickLayer(doc.id, pickedRow.order, t.channel + 1)}>
                      ›
                    </button>
                    <span className="muted"> of {channels}</span>
                  </span>
                )}
              </div>
              {t.planesError && <p className="diag-error">{t.planesError}</p>}
              {t.planes && (
                <div className="rl-heatmaps">
                  <PlaneHeatmap plane={t.planes.loadable} title="loadable (DLA model)" range={sharedRange(t.planes)} />
                  <PlaneHeatmap plane={t.planes.caffe} title={`Caffe ${pickedRow.layer} (float)`} range={sharedRange(t.planes)} />
                  <PlaneHeatmap plane={t.planes.difference} title="difference (loadable − Caffe)" diverging />
                </div>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** Both tensors on one colour scale, so equal values look equal. */
function sharedRange(p: NonNullable<RunLoadableTab['planes']>): [number, number] {
  const lo = Math.min(p.loadable.min, p.caffe.min);
  const hi = Math.max(p.loadable.max, p.caffe.max);
  return Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : [0, 1];
}

import { useEffect } from 'react';
import type { PanelSubject } from '../panels/subject';
import { cancelRun, ensurePlan, setRunInputFile, showBlob, startRun, updateRun, useRuns, type InputSource, type RunTab } from './state';
import { Heatmap, fmt } from './Heatmap';
import { InputFileChooser } from './InputFileChooser';
import './run.css';

/**
 * The Run tab of the side panel (documents with the `run` capability): the input (an image
 * decoded in the worker, a `.npy`, or seeded random values) with scale and per-channel mean,
 * Run with progress and Cancel, the classifier's top-5, a heatmap of any blob's channel, and
 * every layer's output statistics. The pass runs in the model worker; nothing here waits on it.
 */
export function RunPanel({ subject }: { subject: PanelSubject }) {
  const tabId = subject.tabId;
  const t = useRuns((s) => s.tabs[tabId]);
  useEffect(() => {
    void ensurePlan(tabId);
  }, [tabId, subject.workerDocId]);

  // the node selected in the graph: its output blob goes on the heatmap
  const selectedBlob = subject.details?.node.outputs[0]?.label;
  useEffect(() => {
    const cur = useRuns.getState().tabs[tabId];
    if (!selectedBlob || !cur?.outcome || !cur.outcome.keys.includes(selectedBlob) || cur.view?.key === selectedBlob) return;
    void showBlob(tabId, { key: selectedBlob, item: 0, channel: 0 });
  }, [tabId, selectedBlob]);

  if (!t || (!t.plan && !t.planError)) return <p className="muted">Reading the net…</p>;
  if (t.planError) return <p className="diag-error">{t.planError}</p>;
  const plan = t.plan!;
  return (
    <div className="run-panel">
      <h2>Run</h2>
      <p className="muted">A float32 forward pass of every layer, in the worker.</p>
      {plan.problems.length > 0 && (
        <div className="run-problems" role="note" aria-label="Why the net cannot run">
          <b>The net cannot run as it is:</b>
          <ul>
            {plan.problems.slice(0, 8).map((p) => (
              <li key={p}>{p}</li>
            ))}
            {plan.problems.length > 8 && <li>… {plan.problems.length - 8} more</li>}
          </ul>
        </div>
      )}
      <InputForm tabId={tabId} t={t} />
      <div className="run-actions">
        <button type="button" className="primary" disabled={!!t.running || plan.problems.length > 0} onClick={() => void startRun(tabId)}>
          Run
        </button>
        {t.outcome && !t.running && (
          <span className="muted">
            {t.outcome.layers.length} layers in {t.outcome.forwardMs.toFixed(t.outcome.forwardMs < 10 ? 1 : 0)} ms (with statistics {t.outcome.ms.toFixed(0)} ms) · {t.outcome.kernels}
          </span>
        )}
      </div>
      {t.running && <RunProgress tabId={tabId} running={t.running} />}
      {t.error && !t.running && (
        <p className="diag-error" role="status">
          {t.error}
        </p>
      )}
      {t.outcome && <Outcome tabId={tabId} t={t} />}
    </div>
  );
}

function InputForm({ tabId, t }: { tabId: string; t: RunTab }) {
  const plan = t.plan!;
  const first = plan.inputs[0];
  if (!first) return <p className="muted">The net has no input to feed.</p>;
  const source = (s: InputSource) => updateRun(tabId, { source: s });
  return (
    <fieldset className="run-input" disabled={!!t.running}>
      <legend>
        Input <b>{first.name}</b> <span className="mono muted">[{first.shape.join(',')}]</span>
        {plan.inputs.length > 1 && <span className="muted"> (the other {plan.inputs.length - 1} get seeded random values)</span>}
      </legend>
      {t.source === 'image' && (first.shape[0] ?? 1) > 1 && (
        <p className="muted run-hint">The image fills all {first.shape[0]} items of the batch; set Batch to 1 in the toolbar to run it once.</p>
      )}
      <div role="radiogroup" aria-label="Input source" className="run-sources">
        {first.image && (
          <label>
            <input type="radio" name={`src-${tabId}`} checked={t.source === 'image'} onChange={() => source('image')} /> image
          </label>
        )}
        <label>
          <input type="radio" name={`src-${tabId}`} checked={t.source === 'array'} onChange={() => source('array')} /> .npy
        </label>
        <label>
          <input type="radio" name={`src-${tabId}`} checked={t.source === 'random'} onChange={() => source('random')} /> random
        </label>
      </div>
      {t.source !== 'random' && (
        <InputFileChooser source={t.source} file={t.file} emptyText="or drop one on the page" fileNameClass="" testId="run-input-file" onChoose={(f) => setRunInputFile(tabId, f)} />
      )}
      {t.source === 'image' && (
        <div className="run-fields">
          <label>
            scale <input aria-label="Scale" value={t.scale} onChange={(e) => updateRun(tabId, { scale: e.currentTarget.value })} size={10} />
          </label>
          <label>
            mean <input aria-label="Mean" value={t.mean} onChange={(e) => updateRun(tabId, { mean: e.currentTarget.value })} size={16} placeholder={first.shape[1] === 3 ? 'b, g, r' : '0'} />
          </label>
          <span className="muted run-hint">
            {first.image === 'gray' ? 'grayscale' : 'BGR'}, resized to {first.shape[3]} x {first.shape[2]}; value = (pixel − mean) × scale
            {plan.transform ? ` · defaults from the ${plan.transform.source}` : ''}
          </span>
        </div>
      )}
      {t.source === 'random' && (
        <div className="run-fields">
          <label>
            seed <input aria-label="Seed" value={t.seed} onChange={(e) => updateRun(tabId, { seed: e.currentTarget.value })} size={8} />
          </label>
          <span className="muted run-hint">uniform values in [0, 1)</span>
        </div>
      )}
    </fieldset>
  );
}

function RunProgress({ tabId, running }: { tabId: string; running: NonNullable<RunTab['running']> }) {
  const fraction = running.total ? running.done / running.total : 0;
  return (
    <div className="run-progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label="Running the net"
        aria-valuemin={0}
        aria-valuemax={running.total || 1}
        aria-valuenow={running.done}
        aria-valuetext={running.total ? `${running.done} of ${running.total} layers${running.layer ? `, ${running.layer}` : ''}` : 'starting'}
      >
        <div className="progress-fill" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
      <span className="muted">{running.total ? `${running.done} / ${running.total} · ${running.layer}` : 'preparing the inputs…'}</span>
      <button type="button" onClick={() => cancelRun(tabId)}>
        Cancel
      </button>
    </div>
  );
}

function Outcome({ tabId, t }: { tabId: string; t: RunTab }) {
  const o = t.outcome!;
  const view = t.view;
  const slice = t.slice && view && t.slice.key === view.key ? t.slice : null;
  const shape = view ? o.layers.flatMap((l) => l.tops).find((x) => x.key === view.key)?.shape : undefined;
  const planar = !!shape && shape.length >= 3 && shape.slice(2).reduce((a, b) => a * b, 1) > 1;
  const channels = planar ? shape![1]! : 1;
  const items = shape && shape.length >= 2 ? shape[0]! : 1;
  const go = (patch: Partial<NonNullable<RunTab['view']>>) => view && void showBlob(tabId, { ...view, ...patch });
  return (
    <>
      {o.top.map((top) => (
        <div key={top.output}>
          <h3>Top 5 of {top.output}</h3>
          <table className="props run-top" aria-label={`Top 5 of ${top.output}`}>
            <thead>
              <tr>
                <th>class</th>
                <th>score</th>
              </tr>
            </thead>
            <tbody>
              {top.classes.map((c) => (
                <tr key={c.index}>
                  <td className="mono">{c.index}</td>
                  <td>
                    <span className="score-bar" style={{ width: `${Math.max(0, Math.min(1, c.score)) * 100}%` }} aria-hidden="true" />
                    <span className="mono">{fmt(c.score)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <h3>Blob values</h3>
      <div className="run-blob-controls">
        <label>
          blob{' '}
          <select aria-label="Blob" value={view?.key ?? ''} onChange={(e) => void showBlob(tabId, { key: e.currentTarget.value, item: 0, channel: 0 })}>
            {o.keys.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        {items > 1 && (
          <label>
            item <Stepper label="Item" value={view?.item ?? 0} count={items} onChange={(item) => go({ item })} />
          </label>
        )}
        {planar && (
          <label>
            channel <Stepper label="Channel" value={view?.channel ?? 0} count={channels} onChange={(channel) => go({ channel })} />
          </label>
        )}
      </div>
      {t.sliceError && <p className="diag-error">{t.sliceError}</p>}
      {slice && (
        <>
          <Heatmap slice={slice} />
          <table className="props">
            <tbody>
              <tr>
                <th scope="row">shape</th>
                <td className="mono">[{slice.shape.join(', ')}]</td>
              </tr>
              <tr>
                <th scope="row">min / max / mean / std</th>
                <td>
                  {fmt(slice.stats.min)} / {fmt(slice.stats.max)} / {fmt(slice.stats.mean)} / {fmt(slice.stats.std)} ({slice.stats.count} values{slice.stats.nonFinite ? `, ${slice.stats.nonFinite} not finite` : ''})
                </td>
              </tr>
              <tr>
                <th scope="row">values</th>
                <td>
                  <div className="values">
                    {slice.first.map(fmt).join(', ')}
                    {slice.stats.count > slice.first.length ? ', …' : ''}
                  </div>
                </td>
              </tr>
            </tbody>
          </table>
        </>
      )}
      <h3>Layer outputs</h3>
      <div className="run-layers">
        <table className="props" aria-label="Layer outputs">
          <thead>
            <tr>
              <th>layer</th>
              <th>type</th>
              <th>ms</th>
              <th>shape</th>
              <th>min</th>
              <th>max</th>
              <th>mean</th>
              <th>std</th>
            </tr>
          </thead>
          <tbody>
            {o.layers.flatMap((l) =>
              l.tops.map((top, j) => (
                <tr key={`${l.layer}:${j}`} className={view?.key === top.key ? 'current' : undefined} onClick={() => void showBlob(tabId, { key: top.key, item: 0, channel: 0 })} title={`Show ${top.key} as a heatmap`}>
                  <td>{j === 0 ? l.layer : ''}</td>
                  <td>{j === 0 ? l.type : ''}</td>
                  <td className="num">{j === 0 ? l.ms.toFixed(l.ms < 10 ? 2 : 0) : ''}</td>
                  <td className="mono">{top.shape.join('x')}</td>
                  <td className="num">{fmt(top.stats.min)}</td>
                  <td className="num">{fmt(top.stats.max)}</td>
                  <td className="num">{fmt(top.stats.mean)}</td>
                  <td className="num">{fmt(top.stats.std)}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A number field with previous / next buttons, clamped to [0, count). */
function Stepper({ label, value, count, onChange }: { label: string; value: number; count: number; onChange: (v: number) => void }) {
  const set = (v: number) => onChange(Math.max(0, Math.min(count - 1, Math.round(v))));
  return (
    <span className="stepper">
      <button type="button" aria-label={`Previous ${label.toLowerCase()}`} disabled={value <= 0} onClick={() => set(value - 1)}>
        ‹
      </button>
      <input
        aria-label={label}
        type="number"
        min={0}
        max={count - 1}
        value={value}
        onChange={(e) => {
          const v = Number(e.currentTarget.value);
          if (e.currentTarget.value !== '' && Number.isFinite(v)) set(v);
        }}
      />
      <button type="button" aria-label={`Next ${label.toLowerCase()}`} disabled={value >= count - 1} onClick={() => set(value + 1)}>
        ›
      </button>
      <span className="muted"> of {count}</span>
    </span>
  );
}

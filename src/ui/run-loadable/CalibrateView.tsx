/**
 * The Calibrate view of a loadable tab: the int8 calibration table nvdla_compiler reads
 * (`--calibtable`, keyed by layer and input names), made from the float forward pass of the open
 * Caffe model over a set of inputs (images, `.npy` batches) with the method chosen (max,
 * percentile, entropy). A table of every tensor's range and scale, the |value| histogram of the
 * picked one with the chosen threshold, the JSON to download, and a button that makes it the
 * table of this tab's int8 runs. Changing the method re-reads the histograms kept in the worker.
 */
import { useEffect, useRef } from 'react';
import type { Doc } from '../store';
import { useStudio } from '../store';
import { fmt } from '../run/Heatmap';
import { CalibrationHistogram } from './charts';
import { calibrationJson } from './model';
import {
  addCalibrationInputs,
  caffeTabs,
  cancelCalibration,
  ensureRunLoadable,
  setCaffeTab,
  setCalibrationMethod,
  startCalibration,
  updateRunLoadable,
  useCalibrationForRuns,
  useRunLoadable,
} from './state';
import './run-loadable.css';
import { CaffeModelSelect } from './CaffeModelSelect';
import { grouped } from '../capabilities';

const METHODS = [
  { value: 'max', label: 'max (absmax / 127)' },
  { value: 'percentile:99.99', label: 'percentile 99.99 %' },
  { value: 'percentile:99.9', label: 'percentile 99.9 %' },
  { value: 'entropy', label: 'entropy (KL, as TensorRT)' },
];

export function CalibrateView({ doc }: { doc: Doc }) {
  const t = useRunLoadable((s) => s.tabs[doc.id]);
  const docs = useStudio((s) => s.docs);
  const caffes = caffeTabs(docs);
  const picker = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void ensureRunLoadable(doc.id);
  }, [doc.id, doc.workerDocId, caffes.length]);
  if (!t) return <p className="muted pad">Reading the loadable…</p>;
  const r = t.calibrationResult;
  const picked = r?.rows.find((x) => x.name === t.calibPicked) ?? null;
  const download = () => {
    if (!r) return;
    const url = URL.createObjectURL(new Blob([calibrationJson(r)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'calib.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div className="rl-view">
      <section className="rl-card" aria-label="Calibrate for int8">
        <h2>Calibrate for int8</h2>
        <p className="muted">
          nvdla_compiler needs a calibration table for int8 (<span className="mono">--calibtable</span>): a scale per layer output and network input, scale = threshold / 127. Without one every tensor gets the constant scale 127 and int8 results mean
          nothing. The table is made here from the Caffe model’s float pass over your inputs.
        </p>
        {caffes.length === 0 ? (
          <p className="rl-warning" role="note">
            Open the Caffe model (its .prototxt with the .caffemodel) to calibrate from.
          </p>
        ) : (
          <fieldset className="run-input" disabled={!!t.calibrating}>
            <legend>Inputs</legend>
            <div className="run-actions">
              <CaffeModelSelect caffes={caffes} value={t.caffeTab} label="Caffe model to calibrate from" onChange={(id) => void setCaffeTab(doc.id, id)} />
              <button type="button" onClick={() => picker.current?.click()}>
                Add images or .npy…
              </button>
              {t.calibInputs.length > 0 && (
                <button type="button" onClick={() => updateRunLoadable(doc.id, { calibInputs: [] })}>
                  Clear
                </button>
              )}
              <input
                ref={picker}
                type="file"
                hidden
                multiple
                data-testid="rl-calib-inputs"
                accept=".png,.jpg,.jpeg,.npy,image/png,image/jpeg"
                onChange={(e) => {
                  const files = Array.from(e.currentTarget.files ?? []);
                  addCalibrationInputs(
                    doc.id,
                    files.map((f) => ({ name: f.name, blob: f })),
                  );
                  e.currentTarget.value = '';
                }}
              />
            </div>
            <p className={t.calibInputs.length ? 'mono rl-input-list' : 'muted'} aria-label="Calibration inputs">
              {t.calibInputs.length ? `${t.calibInputs.length} input${t.calibInputs.length === 1 ? '' : 's'}: ${t.calibInputs.map((f) => f.name).join(', ')}` : 'no inputs yet: images are resized and scaled as in the Run view (scale and mean there)'}
            </p>
            <div className="run-actions">
              <label>
                method{' '}
                <select aria-label="Calibration method" value={t.method} onChange={(e) => void setCalibrationMethod(doc.id, e.currentTarget.value)}>
                  {METHODS.map((m) => (
                    <option key={m.value} value={m.value}>
                      {m.label}
                    </option>
                  ))}
                </select>
              </label>
              <button type="button" className="primary" disabled={!t.calibInputs.length || !t.caffeTab || !!t.calibrating} onClick={() => void startCalibration(doc.id)}>
                Calibrate
              </button>
              {t.calibrating && (
                <button type="button" onClick={() => cancelCalibration(doc.id)}>
                  Cancel
                </button>
              )}
            </div>
          </fieldset>
        )}
        {t.calibrating && (
          <div className="run-progress">
            <div className="progress-track" role="progressbar" aria-label="Calibrating" aria-valuemin={0} aria-valuemax={t.calibrating.total || 1} aria-valuenow={t.calibrating.done}>
              <div className="progress-fill" style={{ width: `${t.calibrating.total ? (100 * t.calibrating.done) / t.calibrating.total : 0}%` }} />
            </div>
            <span className="muted">
              {t.calibrating.done} / {t.calibrating.total} inputs {t.calibrating.what}
            </span>
          </div>
        )}
        {t.calibError && (
          <p className="diag-error" role="status">
            {t.calibError}
          </p>
        )}
      </section>
      {r && (
        <section className="rl-card" aria-label="Calibration table">
          <div className="run-actions">
            <h2>
              {r.rows.length} tensors · {r.method} · {r.inputs} input{r.inputs === 1 ? '' : 's'}
            </h2>
            <button type="button" className="primary" onClick={download}>
              Download calib.json
            </button>
            <button type="button" onClick={() => useCalibrationForRuns(doc.id)} title="Quantise this tab's int8 runs with these scales">
              Use for int8 runs
            </button>
          </div>
          <div className="rl-calib">
            <div className="run-layers rl-table">
              <table className="props" aria-label="Calibration scales">
                <thead>
                  <tr>
                    <th>tensor</th>
                    <th>largest |value|</th>
                    <th>threshold</th>
                    <th>scale</th>
                    <th>clipped</th>
                  </tr>
                </thead>
                <tbody>
                  {r.rows.map((row) => (
                    <tr key={row.name} className={row.name === t.calibPicked ? 'current' : ''} onClick={() => updateRunLoadable(doc.id, { calibPicked: row.name })}>
                      <td>
                        {row.name}
                        {row.tiedTo && <span className="muted"> (= {row.tiedTo})</span>}
                      </td>
                      <td className="num">{fmt(row.absmax)}</td>
                      <td className="num">{fmt(row.threshold)}</td>
                      <td className="num">{fmt(row.scale)}</td>
                      <td className="num">{row.clipped > 0 ? `${(100 * row.clipped).toFixed(row.clipped < 0.001 ? 3 : 2)} %` : '0'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {picked && (
              <figure className="rl-hist-wrap">
                <figcaption>
                  <b>{picked.name}</b> <span className="muted">{grouped(picked.count)} values · int8 covers ±{fmt(picked.scale * 127)}{picked.tiedTo ? ` (the scale of ${picked.tiedTo}: pooling and concatenation cannot rescale)` : ''}</span>
                </figcaption>
                <CalibrationHistogram row={picked} />
              </figure>
            )}
          </div>
        </section>
      )}
    </div>
  );
}

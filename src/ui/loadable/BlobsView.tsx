/**
 * The Blobs view: the blob list (size, interface, sub-interface, version, where the memory list
 * places it, who reads it, what it is) and, for the blob chosen, its values (LUT parameters as
 * curves, weights as a histogram decoded as the descriptors that read them say) beside a hex
 * view of its bytes with the descriptors laid in it marked.
 */
import { useState, memo } from 'react';
import type { BlobPlot, BlobRow, LoadableOverview } from '../../worker/api';
import { selectNode } from '../actions';
import { formatBytes, useBlobDetail } from './data';
import { HexView } from './HexView';
import { DamageMark } from './parts';
import { HistogramPlot, LutPlot } from './plots';
import { showBlob, useLoadableTab } from './state';
import { grouped } from '../capabilities';

const KIND_TEXT: Record<BlobRow['kind'], string> = {
  descriptors: 'task descriptors',
  lut: 'LUT parameters',
  weights: 'weights / bias / scales',
  data: 'data read by a slot',
  unread: 'placed, read by no slot',
  unplaced: 'in no memory entry',
};

export const BlobsView = memo(function BlobsView({ tabId, workerDocId, overview: o }: { tabId: string; workerDocId: string; overview: LoadableOverview }) {
  const state = useLoadableTab(tabId);
  const chosen = state.blob !== null && o.blobs[state.blob] ? state.blob : null;
  return (
    <div className="lv-scroll lv-blobs" data-testid="loadable-blobs">
      <section className="lv-card" aria-label="Blob list">
        <h3>Blobs</h3>
        <table className="lv-table" aria-label="Blobs table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">name</th>
              <th scope="col">what</th>
              <th scope="col">size</th>
              <th scope="col">interface</th>
              <th scope="col">version</th>
              <th scope="col">placed at</th>
              <th scope="col">read by</th>
            </tr>
          </thead>
          <tbody>
            {o.blobs.map((b) => (
              <tr key={b.index} aria-selected={chosen === b.index} className={`${chosen === b.index ? 'lv-selected' : ''}${b.damage.length ? ' lv-damaged-row' : ''}`} onClick={() => showBlob(tabId, b.index)}>
                <td className="num">
                  {b.index}
                  <DamageMark messages={b.damage} />
                </td>
                <td>
                  <button type="button" className="lv-rowbtn mono" aria-label={`Show blob ${b.name}`} onClick={(e) => { e.stopPropagation(); showBlob(tabId, b.index); }}>
                    {b.name || '(no name)'}
                  </button>
                </td>
                <td className={`lv-kind lv-kind-${b.kind}`}>{KIND_TEXT[b.kind]}</td>
                <td className="num" title={b.size !== b.dataLength ? `declares ${b.size} bytes, holds ${b.dataLength}` : `${b.size} bytes`}>
                  {formatBytes(b.dataLength)}
                  {b.size !== b.dataLength && <span className="lv-enum lv-enum-unknown">declares {b.size}</span>}
                </td>
                <td>
                  {b.interfaceName} <span className="muted">{b.subInterface}</span>
                </td>
                <td className="mono">{b.version}</td>
                <td className="mono">{b.placedAt.map((p) => `m${p.memId}+${p.offset}`).join(', ') || <span className="muted">—</span>}</td>
                <td className="lv-users">{b.usedBy.join('; ') || <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {chosen === null ? (
        <p className="muted pad">Choose a blob to see its bytes and values.</p>
      ) : (
        <BlobDetailCard key={`${workerDocId}:${chosen}`} workerDocId={workerDocId} blob={o.blobs[chosen]!} reveal={state.blobOffset} />
      )}
    </div>
  );
});

function BlobDetailCard({ workerDocId, blob, reveal }: { workerDocId: string; blob: BlobRow; reveal: number | null }) {
  // the values (a histogram can take a second on a 100 MB blob) are asked for once the first
  // window of bytes is on screen: the worker answers one request at a time
  const [hexReady, setHexReady] = useState(blob.dataLength === 0);
  const detail = useBlobDetail(hexReady ? workerDocId : null, blob.index);
  const d = detail.data;
  return (
    <section className="lv-card lv-blob-detail" aria-label={`Blob ${blob.name}`}>
      <h3>
        <span className="mono">{blob.name}</span> <span className="muted">{KIND_TEXT[blob.kind]} · {formatBytes(blob.dataLength)}</span>
      </h3>
      <div className="lv-blob-grid">
        <div className="lv-blob-values">
          {detail.error && <div className="diag-error">{detail.error}</div>}
          {!d && !detail.error && <p className="muted">{hexReady ? 'Reading the values…' : 'Reading the bytes…'}</p>}
          {d?.plot.kind === 'none' && <p className="muted">{d.plot.reason}</p>}
          {d?.plot.kind === 'lut' && d.plot.curves.map((c) => <LutPlot key={c.label} curve={c} />)}
          {d?.plot.kind === 'histogram' && <HistogramBlock key={`${workerDocId}:${blob.index}`} plot={d.plot} />}
        </div>
        <HexView
          workerDocId={workerDocId}
          blob={blob.index}
          name={blob.name}
          length={blob.dataLength}
          ranges={d?.ranges ?? []}
          reveal={reveal}
          onRange={(r) => r.node !== null && void selectNode(r.node)}
          onFirstWindow={() => setHexReady(true)}
        />
      </div>
    </section>
  );
}

type Histogram = Extract<BlobPlot, { kind: 'histogram' }>;

/** The histogram with its statistics; a count axis in log scale from the start when padding zeros dominate. */
function HistogramBlock({ plot }: { plot: Histogram }) {
  const [log, setLog] = useState(() => plot.zeros > plot.count / 4);
  return (
    <div data-testid="histogram">
      <p className="lv-note">
        {grouped(plot.count)} <b>{plot.element}</b> values: {plot.reason}.
      </p>
      <dl className="lv-facts lv-stats">
        <div>
          <dt>min</dt>
          <dd>{fmt(plot.min)}</dd>
        </div>
        <div>
          <dt>max</dt>
          <dd>{fmt(plot.max)}</dd>
        </div>
        <div>
          <dt>mean</dt>
          <dd>{fmt(plot.mean)}</dd>
        </div>
        <div>
          <dt>std</dt>
          <dd>{fmt(plot.std)}</dd>
        </div>
        <div>
          <dt>zeros</dt>
          <dd>
            {grouped(plot.zeros)} ({plot.count ? ((100 * plot.zeros) / plot.count).toFixed(1) : 0}%)
          </dd>
        </div>
        {plot.nonFinite > 0 && (
          <div>
            <dt>NaN / inf</dt>
            <dd>{grouped(plot.nonFinite)}</dd>
          </div>
        )}
      </dl>
      <label className="lv-check">
        <input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} /> log count
      </label>
      <HistogramPlot plot={plot} log={log} />
    </div>
  );
}

function fmt(v: number): string {
  if (Number.isInteger(v)) return grouped(v);
  return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(4) : v.toPrecision(5).replace(/\.?0+$/, '');
}

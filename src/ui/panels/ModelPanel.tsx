import { preferredGraph, showGraph } from '../actions';
import type { PanelSubject } from './subject';

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** Model properties of the panel's model: format, description, version, subgraphs, metadata, signatures, buffers. */
export function ModelPanel({ subject }: { subject: PanelSubject }) {
  const s = subject.summary;
  // the compare panes draw subgraph 0 of each model: there the list is not a switch
  const switchable = subject.side === null;
  return (
    <div className="model-panel">
      <h2>Model</h2>
      <table className="props">
        <tbody>
          <tr>
            <th>file</th>
            <td>{s.file}</td>
          </tr>
          <tr>
            <th>format</th>
            <td>{s.formatLabel}</td>
          </tr>
          <tr>
            <th>description</th>
            <td>{s.description || <span className="muted">(none)</span>}</td>
          </tr>
          {s.properties.filter((p) => p.name !== 'format' && p.name !== 'description').map((p) => (
            <tr key={p.name}>
              <th>{p.name}</th>
              <td>{p.value}</td>
            </tr>
          ))}
          <tr>
            <th>buffers</th>
            <td>
              {s.buffers.count} · {formatBytes(s.buffers.bytes)} inline{s.buffers.external ? ` · ${formatBytes(s.buffers.external)} external` : ''}
            </td>
          </tr>
        </tbody>
      </table>
      <h3>Subgraphs</h3>
      <ol className="subgraph-list" start={0}>
        {/* a graph shown another way (in-place layers as nodes) is the view toggle's, not a subgraph */}
        {s.graphs.filter((g) => !g.unfoldedOf).map((g) => (
          <li key={g.id}>
            {switchable ? (
              <button type="button" className="link" onClick={() => void showGraph(subject.tabId, preferredGraph(s, g.id))} aria-current={g.id === subject.graphId || s.graphs.some((x) => x.id === subject.graphId && x.unfoldedOf === g.id)}>
                {g.name || '(unnamed)'}
              </button>
            ) : (
              <span aria-current={g.id === subject.graphId}>{g.name || '(unnamed)'}</span>
            )}{' '}
            <span className="muted">
              {g.stats.nodes} nodes · {g.stats.edges} edges
            </span>
          </li>
        ))}
      </ol>
      <h3>Metadata</h3>
      {s.metadata.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <table className="props">
          <thead>
            <tr>
              <th>name</th>
              <th>size</th>
              <th>content</th>
            </tr>
          </thead>
          <tbody>
            {s.metadata.map((m, i) => (
              <tr key={`${m.name}:${i}`}>
                <td>{m.name}</td>
                <td>{formatBytes(m.size)}</td>
                <td className="mono">{m.preview}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Signatures</h3>
      {s.signatures.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        s.signatures.map((sig) => (
          <div key={sig.key} className="signature">
            <div>
              <b>{sig.key || '(default)'}</b> <span className="muted">subgraph {sig.subgraph}</span>
            </div>
            <div className="mono">in: {sig.inputs.map((t) => `${t.name}→#${t.tensor}`).join(', ') || '—'}</div>
            <div className="mono">out: {sig.outputs.map((t) => `${t.name}→#${t.tensor}`).join(', ') || '—'}</div>
          </div>
        ))
      )}
      {subject.diagnostics.length > 0 && (
        <>
          <h3>Diagnostics</h3>
          <ul>
            {subject.diagnostics.map((d, i) => (
              <li key={i} className={`diag diag-${d.severity}`}>
                {d.source ? `${d.source}: ` : ''}
                {d.file && d.file !== s.file ? `${d.file}: ` : ''}
                {d.line !== undefined ? `line ${d.line}${d.column !== undefined ? `:${d.column}` : ''}: ` : ''}
                {d.offset !== undefined ? `byte ${d.offset}: ` : ''}
                {d.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

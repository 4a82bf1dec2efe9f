import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { GraphPort, TensorDetails } from '../../worker/api';
import { openGraph, workers } from '../actions';
import type { PanelSubject } from './subject';
import { Histogram } from './Histogram';
import { subgraphLinks, type SubgraphLink } from './subgraph-links';
import { saveBlob } from '../shell/exporting';
import { pushAlert } from '../store';
import { errorText } from '../errors';
import { Breakable } from './breakable';
import { grouped } from '../capabilities';

/** The selected node of the panel's model: op type, options, inputs and outputs with their tensor details. */
export function NodePanel({ subject }: { subject: PanelSubject }) {
  const details = subject.details;
  if (subject.selected === null) return <p className="muted">Select a node to see its properties.</p>;
  if (!details) return <p className="muted">Loading…</p>;
  const { node, extra } = details;
  // the previous node's details stay on screen (dimmed) until the new ones arrive: no flicker
  const wanted = subject.graph?.nodes[subject.selected]?.id;
  const stale = wanted !== undefined && wanted !== node.id;
  // IF then / else, WHILE cond / body: links that open the body (in the single view only)
  const links = subjectLinks(subject, node);
  const linkOf = new Map(links.filter((l) => l.attribute).map((l) => [l.attribute!, l]));
  return (
    <div className={`node-panel${stale ? ' stale' : ''}`} aria-busy={stale || undefined}>
      <h2>
        {node.type} <span className="muted">{node.name}</span>
      </h2>
      <table className="props" aria-label="Node">
        <tbody>
          <Row name="type" value={node.type} />
          <Row name="name" value={node.name} />
          <Row name="category" value={node.category} />
          {extra.map((e) => (
            <Row key={e.name} name={e.name} value={e.value} />
          ))}
        </tbody>
      </table>
      {node.attributes.length > 0 && (
        <>
          <h3>Options</h3>
          <table className="props" aria-label="Options">
            <tbody>
              {node.attributes.map((a) =>
                linkOf.has(a.name) ? (
                  <tr key={a.name}>
                    <th scope="row"><Breakable text={a.name} /></th>
                    <td>
                      <BodyLink subject={subject} link={linkOf.get(a.name)!} />
                    </td>
                  </tr>
                ) : (
                  <Row key={a.name} name={a.name} value={a.value} />
                ),
              )}
            </tbody>
          </table>
        </>
      )}
      {links.length > 0 && (
        <div className="body-links">
          <span className="muted">{links.length === 1 ? 'Body' : 'Bodies'}: </span>
          {links.map((l) => (
            <BodyLink key={l.graphId + l.role} subject={subject} link={l} withRole />
          ))}
          <span className="muted"> (or Enter / double-click on the node)</span>
        </div>
      )}
      {node.inputs.length > 0 && (
        <>
          <h3>Inputs</h3>
          {node.inputs.map((p, i) => (
            <Port key={`${i}:${p.tensor}`} subject={subject} port={p} />
          ))}
        </>
      )}
      {node.outputs.length > 0 && (
        <>
          <h3>Outputs</h3>
          {node.outputs.map((p, i) => (
            <Port key={`${i}:${p.tensor}`} subject={subject} port={p} />
          ))}
        </>
      )}
    </div>
  );
}

function subjectLinks(subject: PanelSubject, node: NodeDetailsNode): SubgraphLink[] {
  return node.subgraphs?.length ? subgraphLinks(node, subject.summary.graphs) : [];
}
type NodeDetailsNode = NonNullable<PanelSubject['details']>['node'];

/** A link to a body graph: opens it in the tab (a compare pane's model has no tab of its own, so the link is text there). */
function BodyLink({ subject, link, withRole }: { subject: PanelSubject; link: SubgraphLink; withRole?: boolean }) {
  const label = `${withRole ? `${link.role}: ` : ''}${link.title}`;
  if (subject.side !== null) return <span>{label}</span>;
  return (
    <button type="button" className="link" title={`Open ${link.role} (${link.title})`} onClick={() => openGraph(subject.tabId, link.graphId)}>
      {label}
    </button>
  );
}

function Row({ name, value }: { name: string; value: string }) {
  return (
    <tr>
      <th scope="row"><Breakable text={name} /></th>
      <td>{value}</td>
    </tr>
  );
}

/** The width of one character of the values box's monospace font (`.tensor-values`), measured once. */
let valuesCharPx = 0;
function valuesCharWidth(): number {
  if (valuesCharPx > 0) return valuesCharPx;
  const probe = document.createElement('pre');
  probe.className = 'tensor-values';
  probe.style.cssText = 'position:absolute;visibility:hidden;padding:0;max-width:none;overflow:visible';
  probe.textContent = '0'.repeat(100);
  document.body.appendChild(probe);
  const px = probe.getBoundingClientRect().width / 100;
  probe.remove();
  return px > 0 ? (valuesCharPx = px) : 6.6;
}

/**
 * How many characters a line of the values box holds in this port: the port's width less its
 * padding (6 px a side), the box's (4 px a side) and room for the box's vertical scroll bar.
 * Measured before the first fetch and again (150 ms after the last change) as the panel resizes;
 * undefined until measured. The worker holds it to a sane range.
 */
function useValuesWidth(ref: RefObject<HTMLElement | null>): number | undefined {
  const [chars, setChars] = useState<number>();
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const px = el.clientWidth - 12 - 8 - 16;
      const next = Math.max(1, Math.floor(px / valuesCharWidth()));
      // a hidden panel measures 0: keep the last width rather than asking for the narrowest text
      if (el.clientWidth > 0) setChars(next);
      else setChars((c) => c ?? next);
    };
    measure();
    let timer = 0;
    const ro = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = window.setTimeout(measure, 150);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      clearTimeout(timer);
    };
  }, [ref]);
  return chars;
}

function fmt(v: number | boolean): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(4) : v.toPrecision(6).replace(/\.?0+$/, '');
}

async function exportNpy(subject: PanelSubject, tensor: number, name: string) {
  try {
    const npy = await workers().model.api.tensorNpy(subject.workerDocId, subject.graphId, tensor);
    if (!npy) {
      pushAlert({ severity: 'warning', message: `${name}: this tensor has no values to save`, docId: subject.tabId });
      return;
    }
    saveBlob(new Blob([npy.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), npy.name);
    pushAlert({ severity: 'info', message: `Saved ${npy.name} (${grouped(npy.bytes.length)} bytes)`, docId: subject.tabId });
  } catch (e) {
    pushAlert({ severity: 'error', message: errorText(e, `${name}: .npy`), docId: subject.tabId });
  }
}

/** One input or output: tensor details are decoded on demand in the worker, a constant's values laid out to the panel's width. */
function Port({ subject, port }: { subject: PanelSubject; port: GraphPort }) {
  const box = useRef<HTMLDivElement>(null);
  const chars = useValuesWidth(box);
  // details with the tensor they are of: a width change keeps them on screen while the new text comes
  const key = `${subject.workerDocId}\u0000${subject.graphId}\u0000${port.tensor}`;
  const [got, setGot] = useState<{ key: string; details: TensorDetails } | null>(null);
  const last = useRef(got);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    if (port.tensor < 0 || chars === undefined) return;
    // a width change asks again only for a tensor whose values are text laid out to the width
    const prev = last.current;
    if (prev?.key === key && prev.details.values?.text === undefined) return;
    let live = true;
    setErr(null);
    workers()
      .model.api.tensorDetails(subject.workerDocId, subject.graphId, port.tensor, chars)
      .then((d) => {
        if (!live) return;
        last.current = { key, details: d };
        setGot(last.current);
      })
      .catch((e: Error) => live && setErr(e.message));
    return () => {
      live = false;
    };
  }, [subject.workerDocId, subject.graphId, port.tensor, chars, key]);
  const t = got?.key === key ? got.details : null;

  return (
    <div className="port" ref={box}>
      <div className="port-head">
        <span>
          <b>{port.name}</b> {port.tensor < 0 ? <span className="muted">(omitted)</span> : port.label}
        </span>
        <span className="mono muted">{port.type}</span>
      </div>
      {err && <div className="diag-error">{err}</div>}
      {t && (
        <table className="props">
          <tbody>
            <Row name="tensor" value={`#${t.index}${t.constant ? ` · constant${t.buffer >= 0 ? `, buffer ${t.buffer}` : ''}, ${t.byteLength} B` : ''}${t.isVariable ? ' · variable' : ''}`} />
            <Row name="dtype" value={t.dtype} />
            <Row name="shape" value={`[${t.shape.join(', ')}]`} />
            {t.shapeSignature && <Row name="shape_signature" value={`[${t.shapeSignature.join(', ')}]`} />}
            {t.quantization && (
              <>
                <Row name="quantization" value={`${t.quantization.formula}${t.quantization.perChannel ? ` · per channel, axis ${t.quantization.quantizedDimension}` : ''}`} />
                <tr>
                  <th scope="row">{t.quantization.perChannel ? 'channels' : 'parameters'}</th>
                  <td className="mono">
                    {t.quantization.lines.slice(0, 16).join('\n')}
                    {t.quantization.lines.length > 16 ? `\n… ${t.quantization.lines.length - 16} more` : ''}
                  </td>
                </tr>
              </>
            )}
            {t.values && (
              <>
                <Row
                  name={t.values.std !== undefined ? 'min / max / mean / std' : 'min / max / mean'}
                  value={`${fmt(t.values.min)} / ${fmt(t.values.max)} / ${fmt(t.values.mean)}${t.values.std !== undefined ? ` / ${fmt(t.values.std)}` : ''} (${t.values.count} values)`}
                />
                {t.values.histogram && (
                  <tr>
                    <td colSpan={2}>
                      <Histogram data={t.values.histogram} label={`Histogram of ${t.name}`} />
                    </td>
                  </tr>
                )}
                <tr>
                  <td colSpan={2} className="values-cell">
                    <div className="values-label">values</div>
                    {t.values.text !== undefined ? (
                      <pre className="tensor-values" aria-label={`Values of ${t.name}`} tabIndex={0}>
                        {t.values.text}
                      </pre>
                    ) : (
                      <div className="values">
                        {t.values.first.map(fmt).join(', ')}
                        {t.values.count > t.values.first.length ? ', …' : ''}
                      </div>
                    )}
                    {t.values.dequantized && <div className="values">dequantized (first {t.values.dequantized.length}): {t.values.dequantized.map(fmt).join(', ')}</div>}
                    <button type="button" className="npy-export" title={`Save the ${t.values.count} values as a NumPy .npy file`} onClick={() => void exportNpy(subject, port.tensor, t.name)}>
                      Save .npy
                    </button>
                  </td>
                </tr>
              </>
            )}
            {t.note && <Row name="values" value={t.note} />}
          </tbody>
        </table>
      )}
    </div>
  );
}

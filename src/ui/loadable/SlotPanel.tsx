/**
 * The side panel's "Op slot" tab for a loadable: the selected op slot (or EMU op) as the firmware
 * reads it. What it does, its dependencies (links to the other slots), the damage found in it,
 * each surface's address resolved link by link (task address -> address -> memory -> blob or
 * tensor), then every descriptor field by field with names, enum names and byte offsets (common
 * op desc, the engine's op desc, the surface desc with its data cubes; EMU op and buffers), and
 * the LUT it uses as curves.
 */
import { useState } from 'react';
import type { LoadableOverview, SurfaceView } from '../../worker/api';
import { selectNode } from '../actions';
import { useOverview, useSlot } from './data';
import { BlobLink, DamageMark, EngineSwatch, StructHead, StructTree } from './parts';
import { LutPlot } from './plots';
import { showBlob } from './state';
import { grouped } from '../capabilities';

interface Props {
  tabId: string;
  workerDocId: string;
  selected: number | null;
  theme: 'light' | 'dark';
}

export function SlotPanel({ tabId, workerDocId, selected, theme }: Props) {
  const slot = useSlot(workerDocId, selected);
  const overview = useOverview(workerDocId);
  const [reserved, setReserved] = useState(false);
  if (selected === null) return <p className="muted">Select an op slot (in the Tasks table, the graph or the memory map) to see its descriptors.</p>;
  if (slot.error) return <p className="diag-error">{slot.error}</p>;
  const s = slot.data;
  if (!s) return <p className="muted">Loading…</p>;
  const openBlob = (blob: string, offset: number) => {
    const b = overview.data?.blobs.find((x) => x.name === blob);
    if (b) showBlob(tabId, b.index, offset);
  };
  return (
    <div className="lv-slot" data-testid="slot-panel">
      <h2>
        <EngineSwatch engine={s.engine} theme={theme} /> {s.type} <span className="muted">task {s.task} {s.engine === 'EMU' ? 'op' : 'slot'} {s.slot}</span>
      </h2>
      <p className="lv-summary-line">{s.summary}</p>
      {s.damage.length > 0 && (
        <ul className="lv-damage-list" aria-label="Damage in this slot">
          {s.damage.map((d, i) => (
            <li key={i}>
              <DamageMark messages={[d.message]} /> <span className="mono">{d.path}</span>: {d.message}
            </li>
          ))}
        </ul>
      )}
      <table className="props" aria-label="Op slot">
        <tbody>
          {s.dependencyCount !== null && (
            <tr>
              <th scope="row">dependency count</th>
              <td>{s.dependencyCount}</td>
            </tr>
          )}
          {s.engine !== 'EMU' && (
            <tr>
              <th scope="row">consumers</th>
              <td>
                {s.consumers.length === 0 && <span className="muted">none</span>}
                {s.consumers.map((c) => (
                  <SlotLink key={`${c.engine}${c.slot}`} overview={overview.data} task={s.task} slot={c.slot} text={`${c.engine} ${c.slot} on ${c.event}`} />
                ))}
              </td>
            </tr>
          )}
          {s.engine !== 'EMU' && (
            <tr>
              <th scope="row">fused parent</th>
              <td>{s.fusedParent ? <SlotLink overview={overview.data} task={s.task} slot={s.fusedParent.slot} text={`slot ${s.fusedParent.slot} on ${s.fusedParent.event}`} /> : <span className="muted">none</span>}</td>
            </tr>
          )}
          {s.lut && (
            <tr>
              <th scope="row">LUT</th>
              <td>lut[{s.lut.index}]</td>
            </tr>
          )}
          <tr>
            <th scope="row">layout</th>
            <td>{s.layoutNote}</td>
          </tr>
        </tbody>
      </table>

      <h3>Surfaces</h3>
      {s.surfaces.length === 0 && <p className="muted">None read or written through memory.</p>}
      {s.surfaces.map((u) => (
        <SurfaceBox key={u.name} u={u} onBlob={openBlob} />
      ))}

      <div className="lv-desc-head">
        <h3>Descriptors</h3>
        <label className="lv-check">
          <input type="checkbox" checked={reserved} onChange={(e) => setReserved(e.target.checked)} /> reserved fields
        </label>
      </div>
      {s.descriptors.map((d) => (
        <div key={d.role} className="lv-desc" data-role={d.role}>
          <StructHead s={d} onBlob={openBlob} />
          <StructTree s={d} showReserved={reserved} onBlob={openBlob} label={`${d.role} descriptor (${d.struct})`} />
        </div>
      ))}
      {s.lut && (
        <>
          <h3>LUT {s.lut.index}</h3>
          {s.lut.curve ? <LutPlot curve={s.lut.curve} width={300} /> : <p className="muted">The LUT list has no entry {s.lut.index}.</p>}
        </>
      )}
    </div>
  );
}

function SlotLink({ overview, task, slot, text }: { overview: LoadableOverview | null; task: number; slot: number; text: string }) {
  const node = overview?.tasks[task]?.ops.find((r) => r.slot === slot)?.node;
  if (node === undefined) return <span className="lv-chip">{text}</span>;
  return (
    <button type="button" className="lv-chip lv-chip-btn" onClick={() => void selectNode(node)}>
      {text}
    </button>
  );
}

function SurfaceBox({ u, onBlob }: { u: SurfaceView; onBlob: (blob: string, offset: number) => void }) {
  const c = u.chain;
  return (
    <div className={`port lv-surface${c || u.text.startsWith('on the fly') ? '' : ' lv-damaged-row'}`} data-surface={u.name}>
      <div className="port-head">
        <span>
          <b>{u.name}</b> <span className="muted">{u.role}</span>
          {u.memType !== undefined && <span className="lv-enum">{u.memType}</span>}
        </span>
        <span className="mono muted">{grouped(u.size)} B</span>
      </div>
      {c ? (
        <ol className="lv-chain" aria-label={`${u.name} address`}>
          <li>task address {c.taskAddress}</li>
          <li>address {c.address}</li>
          <li title={c.memory}>
            memory {c.memId} + {grouped(c.memOffset)}
            {c.tensor !== null && <span className="muted"> (tensor "{c.tensor}")</span>}
          </li>
          {c.blob !== null && (
            <li>
              <BlobLink blob={c.blob} offset={c.blobOffset} onOpen={() => onBlob(c.blob!, c.blobOffset)}>
                blob {c.blob} + {c.blobOffset}
              </BlobLink>
            </li>
          )}
        </ol>
      ) : (
        <div className={u.text.startsWith('on the fly') ? 'muted' : 'diag-error'}>
          {!u.text.startsWith('on the fly') && <DamageMark messages={[u.text]} />} {u.text}
        </div>
      )}
    </div>
  );
}


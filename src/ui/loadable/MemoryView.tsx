/**
 * The Memory view: a memory map (each memory-list entry as a bar of its size; the regions blobs
 * and surfaces occupy as boxes coloured by the engine that writes them, else reads them; regions
 * that share bytes stacked in lanes, so a reused pool shows its reuse), then the memory list and
 * the address list as tables. Hovering (or focusing) a region says who uses it; clicking selects
 * that op slot (or opens the blob a region holds).
 */
import { useMemo, useState, type MouseEvent as ReactMouseEvent, memo } from 'react';
import type { LoadableOverview, MemoryArea, MemoryRegion } from '../../worker/api';
import { useSlotContext } from './slot-context';
import { engineColor, ENGINES } from '../graph/style';
import { formatBytes } from './data';
import { placeRegions, regionLines } from './memory-lanes';
import { DamageMark } from './parts';
import { showBlob } from './state';
import { grouped } from '../capabilities';

interface Props {
  tabId: string;
  overview: LoadableOverview;
  areas: MemoryArea[] | null;
  selected: number | null;
  theme: 'light' | 'dark';
}

const LANE = 14;
const W = 1000;

interface Hover {
  memId: number;
  region: MemoryRegion;
  x: number;
  y: number;
}

export const MemoryView = memo(function MemoryView({ tabId, overview: o, areas, selected, theme }: Props) {
  const [hover, setHover] = useState<Hover | null>(null);
  const [hideUnused, setHideUnused] = useState(false);
  const { select: selectNode, marked } = useSlotContext();
  const markedSlots = useMemo(() => {
    if (!marked?.size) return null;
    const keys = new Set<string>();
    for (const t of o.tasks) for (const r of t.ops) if (marked.has(r.node)) keys.add(`${r.task}:${r.slot}`);
    return keys;
  }, [o, marked]);
  const nodeOf = useMemo(() => {
    const m = new Map<string, number>();
    for (const t of o.tasks) for (const r of t.ops) m.set(`${r.task}:${r.slot}`, r.node);
    return m;
  }, [o]);
  const sel = useMemo(() => {
    for (const t of o.tasks) for (const r of t.ops) if (r.node === selected) return `${r.task}:${r.slot}`;
    return null;
  }, [o, selected]);
  const blobIndex = useMemo(() => new Map(o.blobs.map((b) => [b.name, b.index])), [o]);
  const used = new Set<string>();
  for (const a of areas ?? []) for (const r of a.regions) for (const u of r.uses) used.add(u.op.engine);

  const activate = (r: MemoryRegion) => {
    const u = r.uses.find((x) => x.role === 'write') ?? r.uses[0];
    if (u) {
      const n = nodeOf.get(`${u.op.task}:${u.op.slot}`);
      if (n !== undefined) void selectNode(n);
      return;
    }
    const b = r.blobs[0];
    if (b !== undefined && blobIndex.has(b)) showBlob(tabId, blobIndex.get(b)!, 0);
  };
  const shown = (areas ?? []).filter((a) => !hideUnused || a.regions.length > 0);

  return (
    <div className="lv-scroll" data-testid="loadable-memory">
      <section className="lv-card lv-map-card" aria-label="Memory map" onMouseLeave={() => setHover(null)}>
        <div className="lv-map-head">
          <h2>Memory map</h2>
          <ul className="lv-legend" aria-label="Region colours">
            {ENGINES.filter((e) => used.has(e)).map((e) => (
              <li key={e}>
                <span className="lv-swatch" style={{ background: engineColor(e, theme) }} />
                {e}
              </li>
            ))}
            <li>
              <span className="lv-swatch lv-key-blob" /> blob nobody reads
            </li>
            <li>
              <span className="lv-swatch lv-key-descriptors" /> task descriptors
            </li>
          </ul>
          <span className="spacer" />
          <label className="lv-check">
            <input type="checkbox" checked={hideUnused} onChange={(e) => setHideUnused(e.target.checked)} /> hide entries without regions
          </label>
        </div>
        <p className="muted lv-note">Each bar is one memory entry, drawn to its own size; a box is a region a blob or a surface occupies, coloured by the engine that writes it (else reads it), with a band for its readers. Boxes that share bytes are stacked. Hover for who uses a region, click to select the slot.</p>
        {!areas && <p className="muted">Mapping the memory…</p>}
        <div className="lv-map" role="list" aria-label="Memory entries">
          {shown.map((a) => (
            <MemoryBar key={a.memId} area={a} sel={sel} marked={markedSlots} theme={theme} damage={o.memory[a.memId]?.damage} onHover={(region, e) => setHover(region ? { memId: a.memId, region, x: e.clientX, y: e.clientY } : null)} onActivate={activate} />
          ))}
        </div>
        {hover && <RegionTip hover={hover} />}
      </section>
      <MemoryTable overview={o} />
      <AddressTable overview={o} />
    </div>
  );
});

function MemoryBar({
  area: a,
  sel,
  marked,
  theme,
  damage,
  onHover,
  onActivate,
}: {
  area: MemoryArea;
  sel: string | null;
  /** `task:slot` of marked op slots (a chosen Caffe layer's, in the compile view) */
  marked: ReadonlySet<string> | null;
  theme: 'light' | 'dark';
  damage: string[] | undefined;
  onHover: (r: MemoryRegion | null, e: { clientX: number; clientY: number }) => void;
  onActivate: (r: MemoryRegion) => void;
}) {
  const { placed, lanes } = useMemo(() => placeRegions(a.regions), [a]);
  const size = Math.max(1, a.entry.size, ...a.regions.map((r) => r.offset + r.size));
  const h = lanes * LANE;
  const fill = (key: string) => (key.startsWith('engine:') ? engineColor(key.slice(7), theme) : undefined);
  const used = a.entry.size ? Math.round((100 * a.usedBytes) / a.entry.size) : 0;
  return (
    <div role="listitem" className="lv-bar-row" data-mem={a.memId}>
      <div className="lv-bar-label" title={a.label}>
        <b>mem {a.memId}</b> <span className="muted">{a.role}</span>
        <DamageMark messages={damage} />
        <div className="muted">
          {formatBytes(a.entry.size)}
          {a.regions.length ? ` · ${a.regions.length} region${a.regions.length === 1 ? '' : 's'} · ${used}% covered` : ''}
        </div>
      </div>
      <svg className="lv-bar" viewBox={`0 0 ${W} ${h}`} preserveAspectRatio="none" height={h} role="group" aria-label={a.label}>
        <rect x={0} y={0} width={W} height={h} className="lv-bar-bg" />
        {placed.map((p, i) => {
          const r = p.region;
          const x = (r.offset / size) * W;
          const w = Math.max(1.5, (Math.max(1, r.size) / size) * W);
          const y = p.lane * LANE + 1;
          const mine = sel !== null && r.uses.some((u) => `${u.op.task}:${u.op.slot}` === sel);
          const isMarked = marked !== null && r.uses.some((u) => marked.has(`${u.op.task}:${u.op.slot}`));
          const lines = regionLines(r);
          const label = `memory ${a.memId} bytes ${r.offset} to ${r.offset + r.size}: ${lines.join('; ') || 'no user'}`;
          const enter = (e: ReactMouseEvent) => onHover(r, e);
          return (
            <g key={i}>
              <rect
                x={x}
                y={y}
                width={w}
                height={LANE - 2}
                className={`lv-region lv-region-${p.key.split(':')[0]}${mine ? ' lv-region-sel' : ''}${isMarked ? ' lv-region-marked' : ''}`}
                data-marked={isMarked || undefined}
                style={fill(p.key) ? { fill: fill(p.key) } : undefined}
                tabIndex={0}
                role="button"
                aria-label={label}
                data-offset={r.offset}
                data-size={r.size}
                onMouseEnter={enter}
                onMouseMove={enter}
                onFocus={(e) => {
                  const b = (e.currentTarget as SVGRectElement).getBoundingClientRect();
                  onHover(r, { clientX: b.left + b.width / 2, clientY: b.bottom });
                }}
                onBlur={() => onHover(null, { clientX: 0, clientY: 0 })}
                onClick={() => onActivate(r)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    onActivate(r);
                  }
                }}
              />
              {p.readers.length > 0 && <rect x={x} y={y + LANE - 6} width={w} height={3} pointerEvents="none" style={{ fill: engineColor(p.readers[0]!, theme) }} className="lv-reader-band" />}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function RegionTip({ hover }: { hover: Hover }) {
  const r = hover.region;
  const lines = regionLines(r);
  // placed in the viewport, kept inside it
  const left = Math.min(hover.x + 14, window.innerWidth - 380);
  const top = Math.min(hover.y + 14, window.innerHeight - 40 - 18 * Math.min(lines.length, 12));
  return (
    <div className="lv-tip" role="tooltip" data-testid="region-tip" style={{ left, top }}>
      <div>
        <b>memory {hover.memId}</b> bytes {grouped(r.offset)}–{grouped(r.offset + r.size)} <span className="muted">({formatBytes(r.size)})</span>
      </div>
      {lines.length === 0 && <div className="muted">no blob or surface</div>}
      <ul>
        {lines.slice(0, 12).map((l, i) => (
          <li key={i}>{l}</li>
        ))}
        {lines.length > 12 && <li className="muted">and {lines.length - 12} more</li>}
      </ul>
    </div>
  );
}

function MemoryTable({ overview: o }: { overview: LoadableOverview }) {
  return (
    <section className="lv-card" aria-label="Memory list">
      <h3>Memory list</h3>
      <table className="lv-table" aria-label="Memory entries table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">id</th>
            <th scope="col">domain</th>
            <th scope="col">flags</th>
            <th scope="col">size</th>
            <th scope="col">alignment</th>
            <th scope="col">bind / tensor desc</th>
            <th scope="col">role</th>
            <th scope="col">contents (blob at offset)</th>
          </tr>
        </thead>
        <tbody>
          {o.memory.map((m) => (
            <tr key={m.index} className={m.damage.length ? 'lv-damaged-row' : ''}>
              <td className="num">
                {m.index}
                <DamageMark messages={m.damage} />
              </td>
              <td className="num">{m.entry.id}</td>
              <td>{m.domain}</td>
              <td className="mono">{m.flags}</td>
              <td className="num" title={`${m.entry.size} bytes`}>
                {grouped(m.entry.size)}
              </td>
              <td className="num">{m.entry.alignment}</td>
              <td className="num">
                {m.entry.bind_id} / {m.entry.tensor_desc_id}
              </td>
              <td>
                {m.role}
                {m.tensor !== null && <span className="muted"> "{m.tensor}"</span>}
              </td>
              <td className="mono lv-contents">{m.contents.map((c) => `${c.name}@${c.offset ?? '?'}`).join(', ') || <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function AddressTable({ overview: o }: { overview: LoadableOverview }) {
  return (
    <section className="lv-card" aria-label="Address list">
      <h3>Address list</h3>
      <table className="lv-table" aria-label="Addresses table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">id</th>
            <th scope="col">memory</th>
            <th scope="col">offset</th>
            <th scope="col">size</th>
            <th scope="col">used by</th>
          </tr>
        </thead>
        <tbody>
          {o.addresses.map((a) => (
            <tr key={a.index} className={a.damage.length ? 'lv-damaged-row' : ''}>
              <td className="num">
                {a.index}
                <DamageMark messages={a.damage} />
              </td>
              <td className="num">{a.entry.id}</td>
              <td title={a.memory}>{a.memory}</td>
              <td className="num">{grouped(a.entry.offset)}</td>
              <td className="num">{grouped(a.entry.size)}</td>
              <td className="lv-users">{a.users.join('; ') || <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

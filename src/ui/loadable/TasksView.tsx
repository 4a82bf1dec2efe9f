/**
 * The Tasks view: each task (DLA, EMU) with its place in the submit list, its pre and post
 * events, its network descriptor and descriptor lists, and its op slots in order: engine, what the
 * slot does in one line, dependency count, consumers and fused parent (buttons to those slots),
 * the surfaces it reads and writes with the memory they resolve to, and damage marks. Then the
 * submit and event lists. Selecting a row selects the slot everywhere (graph, memory map, panel).
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { LoadableOverview, OpRow, SurfaceView, TaskView } from '../../worker/api';
import { useSlotContext } from './slot-context';
import { DamageMark, EngineSwatch, StructTree } from './parts';
import { formatBytes } from './data';
import { showLoadableView } from './state';

interface Props {
  tabId: string;
  overview: LoadableOverview;
  selected: number | null;
  theme: 'light' | 'dark';
}

export const TasksView = memo(function TasksView({ tabId, overview: o, selected, theme }: Props) {
  const damage = o.damage.length;
  return (
    <div className="lv-scroll" data-testid="loadable-tasks">
      <section className="lv-card lv-head" aria-label="Loadable">
        <h2>
          {o.file} <span className="muted">NVDLA loadable {o.version}</span>
        </h2>
        <dl className="lv-facts">
          <Fact name="identifier" value={o.identifier ?? '(none: a KMD regression file)'} />
          <Fact name="firmware interface" value={o.firmware ?? '(no DLA task)'} />
          <Fact name="size" value={formatBytes(o.size)} />
          <Fact name="tasks" value={o.tasks.map((t) => `${t.interfaceName} ${t.ops.length}`).join(' + ') || '0'} />
          <Fact name="memory · addresses" value={`${o.memory.length} · ${o.addresses.length}`} />
          <Fact name="events · submits" value={`${o.events.length} · ${o.submits.length}`} />
          <Fact name="tensors · relocs · blobs" value={`${o.tensors.length} · ${o.relocs.length} · ${o.blobs.length}`} />
        </dl>
        {damage > 0 && (
          <p className="lv-damage-note">
            <DamageMark messages={[`${damage} unreadable or inconsistent places`]} /> {damage} place{damage === 1 ? '' : 's'} could not be read or do not fit together; they are
            marked where they belong.{' '}
            <button type="button" className="link" onClick={() => showLoadableView(tabId, 'damage')}>
              See all
            </button>
          </p>
        )}
      </section>
      {o.tasks.map((t) => (
        <TaskCard key={t.index} task={t} selected={selected} theme={theme} />
      ))}
      <div className="lv-pair">
        <section className="lv-card" aria-label="Submit list">
          <h3>Submit list</h3>
          <table className="lv-table" aria-label="Submits">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">id</th>
                <th scope="col">tasks</th>
              </tr>
            </thead>
            <tbody>
              {o.submits.map((s) => (
                <tr key={s.index}>
                  <td className="num">{s.index}</td>
                  <td className="num">{s.entry.id}</td>
                  <td>
                    {s.entry.task_id.join(', ')}
                    <DamageMark messages={s.damage} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section className="lv-card" aria-label="Event list">
          <h3>Event list</h3>
          <table className="lv-table" aria-label="Events">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">id</th>
                <th scope="col">op</th>
                <th scope="col">target</th>
                <th scope="col">value</th>
                <th scope="col">type</th>
                <th scope="col">used by</th>
              </tr>
            </thead>
            <tbody>
              {o.events.map((e) => (
                <tr key={e.index}>
                  <td className="num">{e.index}</td>
                  <td className="num">{e.entry.id}</td>
                  <td>{e.op}</td>
                  <td className="num">{e.entry.target}</td>
                  <td className="num">{e.entry.val}</td>
                  <td className="muted">{e.type}</td>
                  <td>
                    {e.usedBy.join(', ') || <span className="muted">no task</span>}
                    <DamageMark messages={e.damage} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </div>
  );
});

function Fact({ name, value }: { name: string; value: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function TaskCard({ task: t, selected, theme }: { task: TaskView; selected: number | null; theme: 'light' | 'dark' }) {
  const [showNetwork, setShowNetwork] = useState(false);
  const title = `Task ${t.index} · ${t.interfaceName}`;
  return (
    <section className="lv-card" aria-label={title}>
      <div className="lv-task-head">
        <h2>
          {title} <span className="muted">id {t.id} · instance {t.instance}</span>
        </h2>
        <span className="lv-chips">
          <span className="lv-chip" title="submit-list entries that run this task">
            submit {t.submits.length ? t.submits.join(', ') : '—'}
          </span>
          <span className="lv-chip" title="events the task waits for before it starts">
            pre {t.preActions.length ? t.preActions.map((a) => a.text).join('; ') : '—'}
          </span>
          <span className="lv-chip" title="events the task signals when it ends">
            post {t.postActions.length ? t.postActions.map((a) => a.text).join('; ') : '—'}
          </span>
        </span>
        <DamageMark messages={t.damage} label={`task ${t.index} damaged`} />
      </div>
      <p className="muted lv-note">
        {t.layoutNote}
        {t.kind === 'DLA' ? ` · ${t.ops.length} op slot${t.ops.length === 1 ? '' : 's'} · ${t.luts} LUT${t.luts === 1 ? '' : 's'}` : ''} · task address list [{t.addressList.join(', ')}]
      </p>
      {t.network && (
        <details className="lv-network" open={showNetwork} onToggle={(e) => setShowNetwork(e.currentTarget.open)}>
          <summary>Network descriptor and descriptor lists</summary>
          <ul className="lv-lists">
            {t.lists.map((x) => (
              <li key={x.role}>
                <b>{x.role}</b>: <span className="mono">{x.text}</span>
              </li>
            ))}
          </ul>
          {showNetwork && <StructTree s={t.network} showReserved={false} label={`Task ${t.index} network descriptor`} />}
        </details>
      )}
      {t.ops.length > 0 ? <SlotTable task={t} selected={selected} theme={theme} /> : t.kind !== 'other' && <p className="muted">No op slot could be read.</p>}
    </section>
  );
}

const EVENT_SHORT: Record<string, string> = {
  OP_COMPLETED: 'completed',
  OP_PROGRAMMED: 'programmed',
  OP_ENABLED: 'enabled',
  CDMA_WT_DONE: 'weights loaded',
  CDMA_DT_DONE: 'data loaded',
};

function SlotTable({ task: t, selected, theme }: { task: TaskView; selected: number | null; theme: 'light' | 'dark' }) {
  const isEmu = t.kind === 'EMU';
  const ctx = useSlotContext();
  const body = useRef<HTMLTableSectionElement>(null);
  const nodeOfSlot = useMemo(() => new Map(t.ops.map((r) => [r.slot, r.node])), [t]);
  // a slot selected elsewhere (graph, memory map) scrolls into view here
  useEffect(() => {
    const row = selected === null ? null : body.current?.querySelector<HTMLElement>(`tr[data-node="${selected}"]`);
    row?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  return (
    <table className="lv-table lv-slots" aria-label={`Task ${t.index} ${isEmu ? 'EMU ops' : 'op slots'}`}>
      <thead>
        <tr>
          <th scope="col">{isEmu ? 'op' : 'slot'}</th>
          <th scope="col">engine</th>
          <th scope="col">what it does</th>
          {ctx.layers && <th scope="col" title="the Caffe layers this slot was compiled from">Caffe layers</th>}
          {!isEmu && <th scope="col" title="dependency_count: events the slot waits for">deps</th>}
          {!isEmu && <th scope="col">consumers</th>}
          {!isEmu && <th scope="col">fused parent</th>}
          <th scope="col">reads</th>
          <th scope="col">writes</th>
        </tr>
      </thead>
      <tbody ref={body}>
        {t.ops.map((r) => (
          <SlotRow key={r.node} r={r} isEmu={isEmu} selected={selected === r.node} theme={theme} nodeOfSlot={nodeOfSlot} />
        ))}
      </tbody>
    </table>
  );
}

const SlotRow = memo(function SlotRow({ r, isEmu, selected, theme, nodeOfSlot }: { r: OpRow; isEmu: boolean; selected: boolean; theme: 'light' | 'dark'; nodeOfSlot: Map<number, number> }) {
  const ctx = useSlotContext();
  const selectNode = ctx.select;
  const go = (slot: number) => {
    const n = nodeOfSlot.get(slot);
    if (n !== undefined) void selectNode(n);
  };
  const marked = ctx.marked?.has(r.node) === true;
  return (
    <tr data-node={r.node} aria-selected={selected} data-marked={marked || undefined} className={`${selected ? 'lv-selected' : ''}${marked ? ' lv-marked' : ''}${r.damage.length ? ' lv-damaged-row' : ''}`} onClick={() => void selectNode(r.node)}>
      <td className="num">
        <button type="button" className="lv-rowbtn" aria-label={`Select ${r.type} ${isEmu ? 'op' : 'slot'} ${r.slot} of task ${r.task}`} onClick={(e) => { e.stopPropagation(); void selectNode(r.node); }}>
          {r.slot}
        </button>
        <DamageMark messages={r.damage} />
      </td>
      <td className="lv-engine">
        <EngineSwatch engine={r.engine} theme={theme} />
        {r.type}
      </td>
      <td className="lv-summary">{r.summary}</td>
      {ctx.layers && <td className="lv-layers">{ctx.layers(r.task, r.slot).join(', ') || <span className="muted">—</span>}</td>}
      {!isEmu && <td className="num">{r.dependencyCount}</td>}
      {!isEmu && (
        <td>
          {r.consumers.length === 0 && <span className="muted">—</span>}
          {r.consumers.map((c) => (
            <button
              key={`${c.engine}${c.slot}`}
              type="button"
              className="lv-chip lv-chip-btn"
              title={`${c.engine} slot ${c.slot} is told on ${c.event}`}
              onClick={(e) => {
                e.stopPropagation();
                go(c.slot);
              }}
            >
              {c.engine} {c.slot} <span className="muted">{EVENT_SHORT[c.event] ?? c.event}</span>
            </button>
          ))}
        </td>
      )}
      {!isEmu && (
        <td>
          {r.fusedParent ? (
            <button
              type="button"
              className="lv-chip lv-chip-btn"
              title={`fused with slot ${r.fusedParent.slot} (${r.fusedParent.event})`}
              onClick={(e) => {
                e.stopPropagation();
                go(r.fusedParent!.slot);
              }}
            >
              {r.fusedParent.slot} <span className="muted">{EVENT_SHORT[r.fusedParent.event] ?? r.fusedParent.event}</span>
            </button>
          ) : (
            <span className="muted">—</span>
          )}
        </td>
      )}
      <td>
        <Surfaces list={r.surfaces.filter((s) => s.role === 'read')} />
      </td>
      <td>
        <Surfaces list={r.surfaces.filter((s) => s.role === 'write')} />
      </td>
    </tr>
  );
});

/** `src_data m3+0 "data"` per surface, the full resolution in the tooltip. */
function Surfaces({ list }: { list: SurfaceView[] }) {
  if (!list.length) return <span className="muted">—</span>;
  return (
    <ul className="lv-surfaces">
      {list.map((s) => (
        <li key={s.name} title={`${s.name}: ${s.size} bytes · ${s.text}`} className={s.chain || s.text.startsWith('on the fly') ? '' : 'lv-unresolved'}>
          <span className="mono">{s.name}</span>{' '}
          <span className="muted">
            {s.chain ? `m${s.chain.memId}+${s.chain.memOffset}${s.chain.tensor !== null ? ` "${s.chain.tensor}"` : s.chain.blob !== null ? ` ${s.chain.blob}` : ''}` : s.text.startsWith('on the fly') ? 'on the fly' : 'unresolved'}
          </span>
        </li>
      ))}
    </ul>
  );
}

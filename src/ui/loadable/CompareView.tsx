/**
 * Two loadables side by side, judged by the semantic equivalence of notes/nvdla.md section 13
 * (the comparison runs in the worker). The sections are listed with their difference counts; a
 * list section shows A's and B's rows beside each other with the differing cells highlighted in
 * both; the blob section shows each task's op slots in both files with the slots whose
 * descriptors differ highlighted, and for the slot chosen both sides' descriptors field by field
 * with the differing fields highlighted (the other side's value beside each); weight and other
 * byte differences follow as ranges.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Doc } from '../store';
import type { LoadableDiff, LoadableOverview, SectionDiff, SlotView } from '../../worker/api';
import { activate } from '../actions';
import { useCompare, useOverview, useSlot } from './data';
import { cellText, differingCells, isListSection, LIST_COLUMNS, SECTION_TITLES, slotDiffs, type ListSection, type SlotDiff } from './compare-model';
import { EngineSwatch, StructHead, StructTree } from './parts';
import { closeLoadableCompare, openLoadableCompare } from './state';

interface Props {
  tabId: string;
  a: Doc;
  b: Doc | null;
  theme: 'light' | 'dark';
}

export function CompareView({ tabId, a, b, theme }: Props) {
  const diff = useCompare(a.workerDocId, b?.workerDocId ?? null);
  const oa = useOverview(a.workerDocId);
  const ob = useOverview(b?.workerDocId ?? null);
  const [section, setSection] = useState<SectionDiff['section'] | null>(null);
  const d = diff.data;
  useEffect(() => {
    if (d && section === null) setSection(d.sections.find((s) => !s.equal)?.section ?? 'blobs');
  }, [d, section]);
  if (!b) {
    return (
      <div className="lv-scroll">
        <p className="pad">The other loadable of this comparison was closed. <button type="button" onClick={() => closeLoadableCompare(tabId)}>Back to the tasks</button></p>
      </div>
    );
  }
  const differing = d ? d.sections.filter((s) => !s.equal) : [];
  const total = differing.reduce((n, s) => n + s.count, 0);
  const current = d?.sections.find((s) => s.section === section) ?? null;
  return (
    <div className="lv-compare" data-testid="loadable-compare">
      <div className="lv-compare-head">
        <button type="button" onClick={() => closeLoadableCompare(tabId)} title="Back to this loadable's tasks">
          ← Back
        </button>
        <span className="lv-side lv-side-a">A</span>
        <span className="mono ellipsis" title={a.title}>
          {a.title}
        </span>
        <span className="lv-side lv-side-b">B</span>
        <button type="button" className="link mono ellipsis" title={`Go to tab ${b.title}`} onClick={() => activate(b.id)}>
          {b.title}
        </button>
        <button
          type="button"
          onClick={() => {
            openLoadableCompare(b.id, a.id);
            activate(b.id);
          }}
          title="Compare the other way round, in the other tab"
        >
          Swap
        </button>
        <span className="spacer" />
        {diff.error && <span className="diag-error">{diff.error}</span>}
        {!d && !diff.error && <span className="muted">Comparing in the worker…</span>}
        {d && (
          <span className={`lv-verdict ${d.equivalent ? 'lv-verdict-eq' : 'lv-verdict-ne'}`} role="status" data-testid="compare-verdict">
            {d.equivalent ? 'Equivalent (notes section 13)' : `Different: ${total} difference${total === 1 ? '' : 's'} in ${differing.length} section${differing.length === 1 ? '' : 's'}`}
          </span>
        )}
      </div>
      {d && (
        <div className="lv-compare-body">
          <nav className="lv-sections" aria-label="Sections">
            <ul role="tablist" aria-orientation="vertical">
              {d.sections.map((s) => (
                <li key={s.section} role="none">
                  <button type="button" role="tab" aria-selected={s.section === section} className={s.equal ? 'lv-sec-eq' : 'lv-sec-ne'} data-section={s.section} onClick={() => setSection(s.section)}>
                    <span>{SECTION_TITLES[s.section]}</span>
                    <span className="lv-count">{s.equal ? '✓' : s.count}</span>
                  </button>
                </li>
              ))}
            </ul>
          </nav>
          <div className="lv-compare-content" role="tabpanel" aria-label={current ? SECTION_TITLES[current.section] : 'Section'}>
            {current && oa.data && ob.data && <SectionBody section={current} diff={d} a={a} b={b} oa={oa.data} ob={ob.data} theme={theme} />}
          </div>
        </div>
      )}
    </div>
  );
}

function SectionBody({ section, diff, a, b, oa, ob, theme }: { section: SectionDiff; diff: LoadableDiff; a: Doc; b: Doc; oa: LoadableOverview; ob: LoadableOverview; theme: 'light' | 'dark' }) {
  if (section.section === 'blobs') return <BlobsSection diff={diff} section={section} a={a} b={b} oa={oa} ob={ob} theme={theme} />;
  if (isListSection(section.section)) return <ListSection section={section} name={section.section} oa={oa} ob={ob} titleA={a.title} titleB={b.title} />;
  if (section.section === 'version') {
    return (
      <table className="lv-table lv-version" aria-label="Versions">
        <tbody>
          <tr className={section.equal ? '' : 'lv-diff'}>
            <th scope="row">A</th>
            <td className="mono">{oa.version}</td>
          </tr>
          <tr className={section.equal ? '' : 'lv-diff'}>
            <th scope="row">B</th>
            <td className="mono">{ob.version}</td>
          </tr>
        </tbody>
      </table>
    );
  }
  return <DiffTable differences={section.differences} count={section.count} label="Readability" empty="Both files read whole: no damage on either side." />;
}

function DiffTable({ differences, count, label, empty }: { differences: SectionDiff['differences']; count: number; label: string; empty: string }) {
  if (differences.length === 0) return <p className="muted">{empty}</p>;
  return (
    <>
      <table className="lv-table lv-diff-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">where</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
          </tr>
        </thead>
        <tbody>
          {differences.map((x, i) => (
            <tr key={i}>
              <td className="mono">{x.path}</td>
              <td className={`mono ${x.a === null ? 'muted' : 'lv-diff'}`}>{x.a ?? '(absent)'}</td>
              <td className={`mono ${x.b === null ? 'muted' : 'lv-diff'}`}>{x.b ?? '(absent)'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {count > differences.length && <p className="muted">and {count - differences.length} more (the first {differences.length} are listed)</p>}
    </>
  );
}

function ListSection({ section, name, oa, ob, titleA, titleB }: { section: SectionDiff; name: ListSection; oa: LoadableOverview; ob: LoadableOverview; titleA: string; titleB: string }) {
  const [all, setAll] = useState(false);
  const { rows, length } = useMemo(() => differingCells(section), [section]);
  // the columns that differ come first (the rest follow, scrolled to)
  const cols = useMemo(() => {
    const differ = new Set<string>();
    for (const set of rows.values()) for (const f of set) differ.add(f);
    const all = LIST_COLUMNS[name];
    return differ.has('*') ? all : [...all.filter((c) => differ.has(c)), ...all.filter((c) => !differ.has(c))];
  }, [rows, name]);
  const n = Math.max(lengthOf(oa, name), lengthOf(ob, name));
  const indices = all ? Array.from({ length: n }, (_, i) => i) : [...rows.keys()].sort((x, y) => x - y);
  const side = (o: LoadableOverview, title: string, which: 'A' | 'B') => (
    <section className="lv-compare-side" aria-label={`${which}: ${SECTION_TITLES[name]}`}>
      <h4>
        <span className={`lv-side lv-side-${which.toLowerCase()}`}>{which}</span> <span className="mono ellipsis">{title}</span> <span className="muted">{lengthOf(o, name)} entries</span>
      </h4>
      <div className="lv-hscroll">
        <table className="lv-table" aria-label={`${which} ${SECTION_TITLES[name]}`}>
          <thead>
            <tr>
              <th scope="col">#</th>
              {cols.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {indices.map((i) => {
              const diffs = rows.get(i);
              const missing = i >= lengthOf(o, name);
              return (
                <tr key={i} className={diffs ? 'lv-diff-row' : ''} data-row={i}>
                  <td className="num">{i}</td>
                  {missing ? (
                    <td colSpan={cols.length} className="muted">
                      (no entry {i})
                    </td>
                  ) : (
                    cols.map((c) => (
                      <td key={c} data-col={c} className={`mono${diffs && (diffs.has(c) || diffs.has('*')) ? ' lv-diff' : ''}`}>
                        {cellText(o, name, i, c)}
                      </td>
                    ))
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
  return (
    <div>
      <div className="lv-compare-tools">
        <span className="muted">
          {section.equal ? 'Equal in both.' : `${section.count} difference${section.count === 1 ? '' : 's'} in ${rows.size} entr${rows.size === 1 ? 'y' : 'ies'}`}
          {length ? ` · the lists differ in length (${lengthOf(oa, name)} and ${lengthOf(ob, name)})` : ''}
        </span>
        <label className="lv-check">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> all entries
        </label>
      </div>
      <div className="lv-compare-pair">
        {side(oa, titleA, 'A')}
        {side(ob, titleB, 'B')}
      </div>
    </div>
  );
}

function lengthOf(o: LoadableOverview, name: ListSection): number {
  switch (name) {
    case 'task_list':
      return o.tasks.length;
    case 'submit_list':
      return o.submits.length;
    case 'event_list':
      return o.events.length;
    case 'memory_list':
      return o.memory.length;
    case 'address_list':
      return o.addresses.length;
    case 'tensor_desc_list':
      return o.tensors.length;
    case 'reloc_list':
      return o.relocs.length;
  }
}

function BlobsSection({ diff, section, a, b, oa, ob, theme }: { diff: LoadableDiff; section: SectionDiff; a: Doc; b: Doc; oa: LoadableOverview; ob: LoadableOverview; theme: 'light' | 'dark' }) {
  const { slots, other } = useMemo(() => slotDiffs(diff), [diff]);
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => {
    if (chosen === null && slots.size) setChosen([...slots.keys()][0]!);
  }, [slots, chosen]);
  const tasks = Math.max(oa.tasks.length, ob.tasks.length);
  const pick = chosen ? slots.get(chosen) ?? null : null;
  const [ct, cs] = chosen ? chosen.split(':').map(Number) : [null, null];
  const nodeA = ct !== null ? oa.tasks[ct!]?.ops.find((r) => r.slot === cs)?.node ?? null : null;
  const nodeB = ct !== null ? ob.tasks[ct!]?.ops.find((r) => r.slot === cs)?.node ?? null : null;
  return (
    <div>
      <p className="muted lv-note">
        {section.equal
          ? 'Every blob is byte-identical in both files.'
          : `${slots.size} op slot${slots.size === 1 ? '' : 's'} with differing descriptor fields; ${other.length} other blob difference${other.length === 1 ? '' : 's'}${section.count > section.differences.length ? ` (the first ${section.differences.length} of ${section.count} differences are listed)` : ''}.`}
      </p>
      {slots.size > 0 && (
        <>
          {Array.from({ length: tasks }, (_, t) => (
            <TaskSlots key={t} task={t} oa={oa} ob={ob} slots={slots} chosen={chosen} onChoose={setChosen} theme={theme} />
          ))}
          {pick && <SlotCompare pick={pick} a={a} b={b} nodeA={nodeA} nodeB={nodeB} />}
        </>
      )}
      {other.length > 0 && (
        <>
          <h4>Other blob differences</h4>
          <DiffTable differences={other} count={other.length} label="Other blob differences" empty="" />
        </>
      )}
    </div>
  );
}

function TaskSlots({ task, oa, ob, slots, chosen, onChoose, theme }: { task: number; oa: LoadableOverview; ob: LoadableOverview; slots: Map<string, SlotDiff>; chosen: string | null; onChoose: (k: string) => void; theme: 'light' | 'dark' }) {
  const ta = oa.tasks[task];
  const tb = ob.tasks[task];
  const n = Math.max(ta?.ops.length ?? 0, tb?.ops.length ?? 0);
  if (n === 0) return null;
  const differing = [...slots.values()].filter((s) => s.task === task).length;
  const side = (o: typeof ta, which: 'A' | 'B') => (
    <table className="lv-table lv-slots" aria-label={`${which} task ${task} op slots`}>
      <thead>
        <tr>
          <th scope="col">
            <span className={`lv-side lv-side-${which.toLowerCase()}`}>{which}</span> slot
          </th>
          <th scope="col">engine</th>
          <th scope="col">what it does</th>
        </tr>
      </thead>
      <tbody>
        {Array.from({ length: n }, (_, i) => {
          const r = o?.ops[i];
          const key = `${task}:${r?.slot ?? i}`;
          const sd = slots.get(key);
          return (
            <tr key={i} className={`${sd ? 'lv-diff-row' : ''}${chosen === key ? ' lv-selected' : ''}`} data-slot={r?.slot ?? i} aria-selected={chosen === key} onClick={() => sd && onChoose(key)}>
              <td className="num">
                {sd ? (
                  <button type="button" className="lv-rowbtn" aria-label={`Compare task ${task} slot ${r?.slot ?? i}`} onClick={(e) => { e.stopPropagation(); onChoose(key); }}>
                    {r?.slot ?? i}
                  </button>
                ) : (
                  (r?.slot ?? i)
                )}
                {sd && <span className="lv-count-badge" title={`${sd.count} differing field${sd.count === 1 ? '' : 's'}`}>{sd.count}</span>}
              </td>
              <td className="lv-engine">
                {r && <EngineSwatch engine={r.engine} theme={theme} />}
                {r?.type ?? <span className="muted">(none)</span>}
              </td>
              <td className="lv-summary">{r?.summary}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
  return (
    <section className="lv-card" aria-label={`Task ${task} op slots in both`}>
      <h4>
        Task {task} <span className="muted">{ta?.interfaceName ?? tb?.interfaceName} · {differing} slot{differing === 1 ? '' : 's'} differ</span>
      </h4>
      <div className="lv-compare-pair">
        {side(ta, 'A')}
        {side(tb, 'B')}
      </div>
    </section>
  );
}

function SlotCompare({ pick, a, b, nodeA, nodeB }: { pick: SlotDiff; a: Doc; b: Doc; nodeA: number | null; nodeB: number | null }) {
  const sa = useSlot(a.workerDocId, nodeA);
  const sb = useSlot(b.workerDocId, nodeB);
  const [reserved, setReserved] = useState(false);
  const [every, setEvery] = useState(false);
  const box = useRef<HTMLElement>(null);
  // a slot chosen in the lists above comes into view
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [pick.task, pick.slot]);
  const sideOf = (s: SlotView | null | undefined, which: 'A' | 'B', title: string) => (
    <section className="lv-compare-side" aria-label={`${which} slot ${pick.slot} descriptors`}>
      <h4>
        <span className={`lv-side lv-side-${which.toLowerCase()}`}>{which}</span> <span className="mono ellipsis">{title}</span>
      </h4>
      {!s && <p className="muted">{(which === 'A' ? nodeA : nodeB) === null ? 'No such slot in this file.' : 'Loading…'}</p>}
      {s?.descriptors.filter((d) => every || pick.fields.has(d.role)).map((d) => {
        const fields = pick.fields.get(d.role);
        const highlight = new Set(fields ? fields.keys() : []);
        const other = new Map<string, string>();
        for (const [path, v] of fields ?? []) other.set(path, (which === 'A' ? v.b : v.a) ?? '(absent)');
        return (
          <div key={d.role} className="lv-desc" data-role={d.role}>
            <StructHead s={d} />
            <StructTree s={d} highlight={highlight} otherValues={other} showReserved={reserved} label={`${which} ${d.role} descriptor`} />
          </div>
        );
      })}
    </section>
  );
  return (
    <section ref={box} className="lv-card lv-slot-compare" aria-label={`Task ${pick.task} slot ${pick.slot} in both`}>
      <div className="lv-desc-head">
        <h4>
          Task {pick.task} slot {pick.slot} {pick.engine}: {pick.count} differing field{pick.count === 1 ? '' : 's'}{' '}
          <span className="muted">
            ({[...pick.fields.entries()].map(([role, f]) => `${role}: ${[...f.keys()].join(', ')}`).join('; ')})
          </span>
        </h4>
        <span>
          <label className="lv-check">
            <input type="checkbox" checked={every} onChange={(e) => setEvery(e.target.checked)} /> equal descriptors too
          </label>{' '}
          <label className="lv-check">
            <input type="checkbox" checked={reserved} onChange={(e) => setReserved(e.target.checked)} /> reserved fields
          </label>
        </span>
      </div>
      <div className="lv-compare-pair">
        {sideOf(sa.data, 'A', a.title)}
        {sideOf(sb.data, 'B', b.title)}
      </div>
    </section>
  );
}

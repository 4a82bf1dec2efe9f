/**
 * The Tensors & relocs view (bindable tensor descriptors; relocations with the descriptor field
 * each one patches) and the Damage view (every unreadable or inconsistent place, with a way to
 * the row or slot it belongs to).
 */
import { memo } from 'react';
import type { DamageView, LoadableOverview } from '../../worker/api';
import { selectNode } from '../actions';
import { DamageMark } from './parts';
import { showLoadableView, type LoadableViewName } from './state';
import { grouped } from '../capabilities';

export const TensorsView = memo(function TensorsView({ overview: o }: { overview: LoadableOverview }) {
  return (
    <div className="lv-scroll" data-testid="loadable-tensors">
      <section className="lv-card" aria-label="Tensor descriptors">
        <h3>Tensor descriptors (bindable inputs and outputs)</h3>
        {o.tensors.length === 0 ? (
          <p className="muted">None: nothing is bound at run time.</p>
        ) : (
          <table className="lv-table" aria-label="Tensor descriptors table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">name</th>
                <th scope="col">kind</th>
                <th scope="col">n x c x h x w</th>
                <th scope="col">format</th>
                <th scope="col">type</th>
                <th scope="col">category</th>
                <th scope="col">pixel format / mapping</th>
                <th scope="col">size</th>
                <th scope="col">memory + offset</th>
                <th scope="col">strides 0..3</th>
              </tr>
            </thead>
            <tbody>
              {o.tensors.map((t) => (
                <tr key={t.index} className={t.damage.length ? 'lv-damaged-row' : ''}>
                  <td className="num">
                    {t.index}
                    <DamageMark messages={t.damage} />
                  </td>
                  <td className="mono">{t.entry.name}</td>
                  <td>{t.kind}</td>
                  <td className="mono">
                    {t.entry.n}x{t.entry.c}x{t.entry.h}x{t.entry.w}
                  </td>
                  <td>{t.format}</td>
                  <td>{t.type}</td>
                  <td>{t.category}</td>
                  <td>
                    {t.pixelFormat} <span className="muted">{t.pixelMapping}</span>
                  </td>
                  <td className="num">{grouped(t.entry.size)}</td>
                  <td className="mono">
                    m{t.entry.mem_id}+{t.entry.offset}
                  </td>
                  <td className="mono">{[t.entry.stride_0, t.entry.stride_1, t.entry.stride_2, t.entry.stride_3].join(' / ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="lv-card" aria-label="Relocations">
        <h3>Relocations</h3>
        <p className="muted lv-note">Where the runtime patches a descriptor when a bound tensor's stride changes: the address whose strides change, and the field written.</p>
        {o.relocs.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <table className="lv-table" aria-label="Relocations table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">type</th>
                <th scope="col">address</th>
                <th scope="col">interface</th>
                <th scope="col">writes (memory + offset: field)</th>
              </tr>
            </thead>
            <tbody>
              {o.relocs.map((r) => (
                <tr key={r.index} className={r.damage.length ? 'lv-damaged-row' : ''}>
                  <td className="num">
                    {r.index}
                    <DamageMark messages={r.damage} />
                  </td>
                  <td>{r.type}</td>
                  <td>{r.address}</td>
                  <td>
                    {r.interfaceName} <span className="muted">{r.subInterface}</span>
                  </td>
                  <td className="mono">{r.target}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
});

/** Which view shows a damaged place's row. */
function viewOf(path: string): LoadableViewName | null {
  if (/^(task|task_list|submit_list|event_list)\[/.test(path)) return 'tasks';
  if (/^(memory_list|address_list)\[/.test(path)) return 'memory';
  if (/^(tensor_desc_list|reloc_list)\[/.test(path)) return 'tensors';
  if (/^blobs\[/.test(path)) return 'blobs';
  return null;
}

export const DamageList = memo(function DamageList({ tabId, overview: o }: { tabId: string; overview: LoadableOverview }) {
  const nodeOf = new Map<string, number>();
  for (const t of o.tasks) for (const r of t.ops) nodeOf.set(`${r.task}:${r.slot}`, r.node);
  const go = (x: DamageView) => {
    const m = /^task\[(\d+)\]\.(?:slot|op)\[(\d+)\]/.exec(x.path);
    const node = m ? nodeOf.get(`${m[1]}:${m[2]}`) : undefined;
    const view = viewOf(x.path);
    if (view) showLoadableView(tabId, view);
    if (node !== undefined) void selectNode(node);
  };
  return (
    <div className="lv-scroll" data-testid="loadable-damage">
      <section className="lv-card" aria-label="Damage">
        <h3>Unreadable and inconsistent places</h3>
        {o.damage.length === 0 ? (
          <p className="muted">None: every list, blob and descriptor read whole and every reference leads somewhere.</p>
        ) : (
          <>
            <p className="muted lv-note">What could not be read took its default and the rest of the file was read; each place is also marked ⚠ on its row.</p>
            <table className="lv-table" aria-label="Damage table">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">kind</th>
                  <th scope="col">where</th>
                  <th scope="col">byte</th>
                  <th scope="col">why</th>
                </tr>
              </thead>
              <tbody>
                {o.damage.map((x, i) => (
                  <tr key={i} className="lv-damaged-row">
                    <td className="num">{i}</td>
                    <td>{x.kind}</td>
                    <td className="mono">
                      {viewOf(x.path) ? (
                        <button type="button" className="link mono" onClick={() => go(x)} title="Show this place">
                          {x.path}
                        </button>
                      ) : (
                        x.path || '(file)'
                      )}
                    </td>
                    <td className="num">{x.offset ?? ''}</td>
                    <td>{x.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
    </div>
  );
});

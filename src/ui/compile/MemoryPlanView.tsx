/**
 * The memory plan over time: for each pool the memory resolver filled, offset (down) against op
 * slot (across), every buffer a rectangle from the op that first uses it to the op after which it
 * is freed. Space the resolver hands out again shows as rectangles stacked at the same offsets
 * one after another; weights and other data copied in at load time span the whole run.
 * Hovering says what a buffer is; clicking picks its Caffe layer (marked here and in the
 * loadable views).
 */
import { useMemo, useState } from 'react';
import { scaleLinear } from 'd3';
import type { PlannedPool } from '../../worker/api';
import { formatBytes } from '../loadable/data';
import { planRects, type PlanRect } from './model';
import type { CompileTab } from './state';
import { grouped } from '../capabilities';

const W = 960;
const H = 220;
const M = { left: 64, right: 12, top: 8, bottom: 28 };

export function MemoryPlanView({ t, theme, onLayer }: { t: CompileTab; theme: 'light' | 'dark'; onLayer(id: number | null): void }) {
  const s = t.result?.summary;
  const plan = s?.memory ?? null;
  if (!s || !plan) return <p className="muted pad">No memory plan: the compile stopped before resolveMemory.</p>;
  const layerId = (name: string) => s.sources.find((x) => x.name === name)?.id ?? null;
  const marked = t.layer !== null ? (s.sources.find((x) => x.id === t.layer)?.name ?? null) : null;
  return (
    <div className="lv-scroll compile-plan" data-testid="memory-plan">
      <section className="lv-card">
        <h2>Memory plan</h2>
        <p className="muted lv-note">
          Each pool as offset (down) against op slot (across), in execution order ({plan.ops.length} op slots). A rectangle is one buffer from its first to its last use;
          rectangles at the same height one after another are space the memory resolver reused. Weights and other data copied in at load time live for the whole run
          (hatched). Click a buffer to mark its Caffe layer.
        </p>
        {plan.pools.map((p) => (
          <PoolPlot key={p.name} pool={p} ops={plan.ops} theme={theme} marked={marked} onPick={(name) => onLayer(name ? layerId(name) : null)} rects={planRects(plan, p.name, W - M.left - M.right, H - M.top - M.bottom)} />
        ))}
        {plan.outside.length > 0 && (
          <p className="muted">
            In memory of their own (bindable input and output, not in a pool): {plan.outside.map((o) => `${o.buffer} (${o.surface}, ${formatBytes(o.size)})`).join(', ')}
          </p>
        )}
      </section>
    </div>
  );
}

function PoolPlot({ pool, ops, rects, theme, marked, onPick }: { pool: PlannedPool; ops: { task: number; slot: number; name: string }[]; rects: PlanRect[]; theme: 'light' | 'dark'; marked: string | null; onPick(layer: string | null): void }) {
  const [hover, setHover] = useState<{ r: PlanRect; x: number; y: number } | null>(null);
  const innerW = W - M.left - M.right;
  const innerH = H - M.top - M.bottom;
  const top = Math.max(1, pool.used, ...pool.buffers.map((b) => b.offset + b.size));
  const y = useMemo(() => scaleLinear().domain([0, top]).range([0, innerH]), [top, innerH]);
  const x = useMemo(() => scaleLinear().domain([0, Math.max(1, ops.length)]).range([0, innerW]), [ops.length, innerW]);
  const dark = theme === 'dark';
  const fillOf = (r: PlanRect) => (r.content ? (dark ? '#5b6f86' : '#9fb3c8') : dark ? '#3f9ee0' : '#0062a3');
  const taskStarts = ops.map((o, i) => (i > 0 && ops[i - 1]!.task !== o.task ? i : -1)).filter((i) => i > 0);
  const xticks = x.ticks(Math.min(12, ops.length)).filter((v) => Number.isInteger(v));
  if (!pool.buffers.length) {
    return (
      <div className="compile-pool">
        <h3>
          {pool.name} <span className="muted">nothing placed</span>
        </h3>
      </div>
    );
  }
  return (
    <div className="compile-pool" data-pool={pool.name}>
      <h3>
        {pool.name}{' '}
        <span className="muted">
          {formatBytes(pool.used)} used of {formatBytes(pool.size)} · {pool.buffers.length} buffers · {pool.reused} placed in reused space
        </span>
      </h3>
      <svg viewBox={`0 0 ${W} ${H}`} className="compile-pool-svg" role="group" aria-label={`${pool.name}: offset against op slot`} onMouseLeave={() => setHover(null)}>
        <defs>
          <pattern id={`hatch-${pool.name}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill={dark ? '#5b6f86' : '#9fb3c8'} />
            <line x1="0" y1="0" x2="0" y2="6" stroke={dark ? '#3a4656' : '#7d93aa'} strokeWidth="2" />
          </pattern>
        </defs>
        <g transform={`translate(${M.left},${M.top})`}>
          <rect width={innerW} height={innerH} className="compile-plot-bg" />
          {taskStarts.map((i) => (
            <line key={i} x1={x(i)} x2={x(i)} y1={0} y2={innerH} className="compile-task-line" />
          ))}
          {rects.map((r) => {
            const on = marked !== null && r.layers.includes(marked);
            return (
              <rect
                key={`${r.buffer}:${r.first}`}
                x={r.x}
                y={r.y}
                width={r.w}
                height={r.h}
                fill={r.content ? `url(#hatch-${pool.name})` : fillOf(r)}
                className={`compile-buf${on ? ' on' : ''}`}
                data-buffer={r.buffer}
                tabIndex={0}
                role="button"
                aria-label={`${r.buffer}: ${r.size} bytes at offset ${r.offset}, op slots ${r.first} to ${r.last}${r.layers.length ? `, Caffe ${r.layers.join(', ')}` : ''}`}
                onMouseMove={(e) => setHover({ r, x: e.clientX, y: e.clientY })}
                onFocus={(e) => {
                  const b = e.currentTarget.getBoundingClientRect();
                  setHover({ r, x: b.left + b.width / 2, y: b.bottom });
                }}
                onBlur={() => setHover(null)}
                onClick={() => onPick(r.layers[0] ?? null)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    onPick(r.layers[0] ?? null);
                  }
                }}
              />
            );
          })}
          {/* offset axis */}
          {y.ticks(4).map((v) => (
            <g key={v} transform={`translate(0,${y(v)})`}>
              <line x1={-4} x2={0} className="compile-axis" />
              <text x={-6} dy="0.32em" textAnchor="end" className="compile-tick">
                {formatBytes(v)}
              </text>
            </g>
          ))}
          {/* op slot axis */}
          {xticks.map((v) => (
            <g key={v} transform={`translate(${x(v + 0.5)},${innerH})`}>
              <line y1={0} y2={4} className="compile-axis" />
              <text y={16} textAnchor="middle" className="compile-tick">
                {v < ops.length ? `${ops[v]!.task}:${ops[v]!.slot}` : ''}
              </text>
            </g>
          ))}
        </g>
      </svg>
      {hover && (
        <div className="lv-tip" role="tooltip" style={{ left: Math.min(hover.x + 14, window.innerWidth - 380), top: hover.y + 14 }}>
          <div>
            <b>{hover.r.buffer}</b> {formatBytes(hover.r.size)} at offset {grouped(hover.r.offset)}
          </div>
          <div>
            op slots {ops[hover.r.first] ? `${ops[hover.r.first]!.task}:${ops[hover.r.first]!.slot} (${ops[hover.r.first]!.name})` : hover.r.first} to{' '}
            {ops[hover.r.last] ? `${ops[hover.r.last]!.task}:${ops[hover.r.last]!.slot} (${ops[hover.r.last]!.name})` : hover.r.last}
            {hover.r.content ? ' · copied in at load time' : ''}
          </div>
          <div className="muted">
            {hover.r.users.join(', ')} {hover.r.layers.length ? `· Caffe ${hover.r.layers.join(', ')}` : ''}
          </div>
        </div>
      )}
    </div>
  );
}

/**
 * Harness for the profile Timeline: a synthetic run of n marks (default 100,000) shaped like an
 * NNAPI benchmark capture (one app thread, three driver threads, nested executions), rendered by
 * the real component. http://localhost:5181/e2e/harness/timeline.html?n=100000&theme=dark
 * Exposes window.__timelineHarness = { marks, buildMs } and (from the component) window.__npuTimelineStats.
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { TimelineMark, TimelineThread } from '../../src/core/systrace/model';
import { Timeline } from '../../src/ui/profile/Timeline';
import '../../src/ui/profile/profile.css';
import { seededRandom } from '../../src/core/random';

declare global {
  interface Window {
    __timelineHarness?: { marks: number; buildMs: number };
  }
}

const params = new URLSearchParams(location.search);
const target = Math.max(10, Number(params.get('n') ?? 100000));
const theme = params.get('theme') === 'dark' ? 'dark' : 'light';
document.documentElement.dataset.theme = theme;


export function syntheticThreads(n: number): TimelineThread[] {
  const rand = seededRandom(42);
  let id = 0;
  const mk = (parent: TimelineMark | null, layer: string, phase: string, name: string, b: number, e: number, extra: Partial<TimelineMark> = {}): TimelineMark => {
    const m: TimelineMark = {
      id: id++,
      parent: parent ? parent.id : null,
      depth: parent ? parent.depth + 1 : 0,
      line: 100 + id,
      beginUs: b,
      endUs: e,
      mark: `B|1000|[NN_${layer}_${phase}]${name}`,
      name,
      layer,
      phase,
      effectivePhase: phase,
      appPhase: 'PBM',
      subtract: false,
      addedDetail: false,
      elapsedUs: e - b,
      selfUs: e - b,
      countedUs: e - b,
      statKeys: [`PBM_${layer}_${phase}`],
      ...extra,
    };
    return m;
  };
  const app: TimelineMark[] = [];
  const drivers: TimelineMark[][] = [[], [], []];
  // one execution makes ~12 marks: LA_PE > LR_PE > (LR_PIO, LI_PE > LI_PCO, LR_PR); driver: LD_PE > LD_PIO, LD_PCO > LC_PCO, LD_PR
  const perExec = 12;
  const execs = Math.max(1, Math.floor((n - 1) / perExec));
  const root = mk(null, 'LA', 'PO', 'synthetic_model', 0, 0);
  app.push(root);
  let t = 1000;
  for (let i = 0; i < execs; i++) {
    const len = 200 + Math.floor(rand() * 600);
    const b = t;
    const e = t + len;
    const pe = mk(root, 'LA', 'PE', `BenchmarkModel::run #${i}`, b, e);
    const lr = mk(pe, 'LR', 'PE', 'ANeuralNetworksExecution_compute', b + 5, e - 5);
    const io = mk(lr, 'LR', 'PIO', 'ANeuralNetworksExecution_setInput', b + 6, b + 30);
    const li = mk(lr, 'LI', 'PE', 'HIDL::IPreparedModel::execute::client', b + 32, e - 30, { subtract: true });
    const lico = mk(li, 'LI', 'PCO', 'HIDL::IExecutionCallback::wait', b + 40, e - 40);
    const pr = mk(lr, 'LR', 'PR', 'ANeuralNetworksEvent_wait', e - 28, e - 8);
    app.push(pe, lr, io, li, lico, pr);
    const dr = drivers[i % 3]!;
    const db = b + 35;
    const de = e - 33;
    const span = de - db;
    const ld = mk(null, 'LD', 'PE', 'HIDL::IPreparedModel::execute::server', db, de);
    const dio = mk(ld, 'LD', 'PIO', 'Driver::mapInputs', db + 1, db + Math.floor(span * 0.15));
    const dco = mk(ld, 'LD', 'PCO', 'Driver::runOnNpu', db + Math.floor(span * 0.16), db + Math.floor(span * 0.85));
    const lc = mk(dco, 'LC', 'PCO', 'CpuFallback::conv2d', db + Math.floor(span * 0.2), db + Math.floor(span * 0.4));
    const dpr_ = mk(ld, 'LD', 'PR', 'Driver::copyOutputs', db + Math.floor(span * 0.86), de - 1);
    const ign = mk(ld, 'LX', 'PE', 'HIDL::IExecutionCallback::notify::client', de - 1, de, { ignored: true });
    dr.push(ld, dio, dco, lc, dpr_, ign);
    t = e + 20 + Math.floor(rand() * 80);
  }
  root.endUs = t;
  root.elapsedUs = root.selfUs = root.countedUs = t;
  return [
    { tid: 1001, tgid: 1000, task: 'BenchmarkWorker', kind: 'app', marks: app },
    ...drivers.map((marks, k) => ({ tid: 2001 + k, tgid: 2000, task: `HwBinder:2000_${k + 1}`, kind: 'driver' as const, marks })),
  ];
}

const t0 = performance.now();
const threads = syntheticThreads(target);
const marks = threads.reduce((s, th) => s + th.marks.length, 0);
window.__timelineHarness = { marks, buildMs: performance.now() - t0 };

function Harness() {
  const [selected, setSelected] = useState<TimelineMark | null>(null);
  return (
    <div>
      <div className="harness-bar">
        <strong>Timeline harness</strong>
        <span>{marks.toLocaleString('en-US')} marks</span>
        <span data-testid="harness-selected">{selected ? selected.name : 'no selection'}</span>
      </div>
      <div className="pv harness-host">
        <section className="pv-card pv-timeline" aria-label="Timeline">
          <Timeline threads={threads} theme={theme} highlight={null} selectedId={selected?.id ?? null} onSelect={setSelected} label="synthetic run" />
        </section>
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Harness />
  </StrictMode>,
);

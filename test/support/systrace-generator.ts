/**
 * Seeded random NNAPI systrace captures, written from the cases of the trace contract
 * (test/fixtures/systrace/upstream/contract-between-code-and-parser.txt) and the runtime's real
 * tag usage (notes/systrace.md section 1): an application thread with LA / LR marks, IPC calls
 * with their automatic HIDL marks, a driver process answering them on binder threads, CPU
 * fallback with [SW] switches, [SUB] subtraction, one-time initialisation, utility code,
 * warmup / benchmark phases, asynchronous (startCompute .. Event_wait) and synchronous
 * executions, several runs, incomplete runs, untracked threads, odd thread names, both ftrace
 * layouts (with and without the TGID column) in HTML or plain text, and random scopes nested in
 * every way the parser accepts. A small share of captures is hostile on purpose (illegal nesting,
 * unbalanced ends, unpaired executions, lines AOSP's parser rejects) so that the differential
 * test also sees where AOSP stops.
 *
 * Pure TypeScript (no Node APIs): the same seed always gives the same capture.
 */

/** mulberry32: a small, well-mixed 32-bit PRNG (no library offers a seedable one we already use). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
}

export interface Thread {
  tid: number;
  tgid: number;
  task: string;
}

interface Event {
  us: number;
  th: Thread;
  /** full mark text: `B|<tgid>|name`, `E|<tgid>` or `E` */
  mark: string;
}

/** Hostile variations (AOSP stops with an exception on most of them). */
export const HOSTILE_KINDS = [
  'illegal-nesting',
  'unbalanced-end',
  'start-without-wait',
  'execute-without-notify',
  'idevice-client-untracked',
  'one-char-task',
  'four-part-tag',
  'hidl-without-side',
  'bare-mark',
  'unclosed-tag',
  'old-bare-end-first',
  'dashes-bare-end',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export interface GeneratorOptions {
  /** runs (LA_PO scopes), default random 1..4 */
  runs?: number;
  /** force a hostile variation (default: ~12% of captures get a random one) */
  hostile?: HostileKind | null;
  /** size factor: 0 small (for committed goldens) .. 2 large; default random 0..1 */
  size?: number;
  /** force the systrace HTML or the plain ftrace text form (default: either, at random) */
  form?: 'html' | 'ftrace';
}

export interface GeneratedCapture {
  seed: number;
  /** a file name that says what the capture is: `cap-<seed>.html` / `.txt` */
  name: string;
  text: string;
  /** what the capture exercises, for reports (`runs:3`, `old-format`, `warmup`, `hostile:...`) */
  features: string[];
}

const MODEL_NAMES = ['mobilenet_quantized', 'HDRNet_QUANT8', 'inception_v3', 'tts_float', 'asr float', 'NaNet', 'model[x]', 'ssd-mobilenet', 'mod\u00e8le_\u00e9t\u00e9', '\u6a21\u578b', 'say "hi"\\'];
const ODD_TASKS = ['<...>', 'GLThread 35', 'HwBinder:784_1', 'allocator@1.0-s', 'worker-12', 'a (b)', 'xy', 'sixteen_chars_xx', 'NN-9', 'th\u00e9read', 'tab\tname', '12345'];

/** The simulated clock and event list, with per-thread open-scope stacks. */
class Sim {
  us: number;
  events: Event[] = [];
  /** per thread: for each open scope, how many E marks close it (1 + switches) */
  stacks = new Map<Thread, number[]>();
  constructor(
    readonly rng: Rng,
    startUs: number,
    readonly bareEnd: (th: Thread) => boolean,
  ) {
    this.us = startUs;
  }
  /**
   * Runs `body` on another thread's clock that starts now: its events interleave by time with the
   * caller's later ones (the final capture is sorted by time). Returns the time it ends.
   */
  fork(w: World, body: () => void): number {
    const sub = new Sim(this.rng, this.us, this.bareEnd);
    sub.events = this.events;
    const saved = w.sim;
    w.sim = sub;
    try {
      body();
    } finally {
      w.sim = saved;
    }
    return sub.us;
  }
  tick(max = 900): void {
    const r = this.rng.next();
    if (r < 0.06) return; // same timestamp
    if (r < 0.1) this.us += this.rng.int(20_000, 400_000);
    else this.us += this.rng.int(1, max);
  }
  stack(th: Thread): number[] {
    let s = this.stacks.get(th);
    if (!s) this.stacks.set(th, (s = []));
    return s;
  }
  emit(th: Thread, mark: string): void {
    this.events.push({ us: this.us, th, mark });
  }
  begin(th: Thread, name: string): void {
    this.tick();
    this.emit(th, `B|${th.tgid}|${name}`);
    this.stack(th).push(1);
  }
  /** `[SW]` inside the innermost open scope of `th`: one more E closes that scope */
  switchTo(th: Thread, name: string): void {
    const s = this.stack(th);
    if (!s.length) return;
    this.tick();
    this.emit(th, `B|${th.tgid}|[SW]${name}`);
    s[s.length - 1]! += 1;
  }
  end(th: Thread): void {
    const s = this.stack(th);
    const n = s.pop() ?? 1;
    for (let i = 0; i < n; i++) {
      this.tick();
      this.emit(th, this.bareEnd(th) ? 'E' : `E|${th.tgid}`);
    }
  }
  scope(th: Thread, name: string, body?: () => void): void {
    this.begin(th, name);
    body?.();
    this.end(th);
  }
  /** closes every scope still open on every thread (end of a complete run) */
  closeAll(): void {
    for (const [th, s] of this.stacks) while (s.length) this.end(th);
  }
}

type Layer = 'LA' | 'LR' | 'LI' | 'LD' | 'LC' | 'LU';
const LOWER: Record<string, Layer[]> = { LA: ['LR'], LR: ['LI', 'LC'], LI: ['LD'], LD: [], LC: [], LU: [] };
const SUB_PE = ['PIO', 'PTR', 'PCO', 'PR'];

/** Phases a child may take under a parent phase (section 1 of the notes), plus PU and PI. */
function childPhases(parent: string): string[] {
  const out = [parent, 'PU', 'PI'];
  if (parent === 'PO') out.push('PI', 'PP', 'PC', 'PE', 'PT', ...SUB_PE);
  if (parent === 'PWU' || parent === 'PBM') out.push('PE', ...SUB_PE);
  if (parent === 'PE') out.push(...SUB_PE);
  return out;
}

interface World {
  rng: Rng;
  sim: Sim;
  app: Thread;
  worker: Thread;
  appBinder: Thread;
  drv: Thread[];
  /** the driver runs in another process (false: in-process / CPU only) */
  hasDriver: boolean;
  /** runtime (LR) marks are written (false: Android 8.1 style, HIDL and app marks only) */
  runtime: boolean;
  /** the app writes LA marks */
  appMarks: boolean;
  features: Set<string>;
  size: number;
  /** a second NNAPI client process (AOSP's README: results are valid with one only) */
  secondApp: Thread | null;
}

const fname = (r: Rng, base: string): string => (r.chance(0.15) ? `${base}${r.pick(['', '_1_1', '_1_2', '_1_3'])}` : base);

/**
 * A random scope tree that follows the nesting rules, on one thread, inside a scope of `layer` /
 * `phase` whose parent has `parentPhase`. In an app process LD marks count as CPU and in a driver
 * process LC marks as driver, so the layers below are chosen by process kind.
 */
function nested(w: World, th: Thread, layer: Layer, phase: string, depth: number, parentPhase = 'PO'): void {
  const { rng, sim } = w;
  const inDriver = w.drv.includes(th);
  const n = depth > 3 ? 0 : rng.int(0, 3 - Math.min(depth, 2));
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    if (r < 0.12 && depth > 0 && layer !== 'LU') {
      // switch the current scope to another function: a PE subphase to another (TRANS -> COMP), else the same phase
      const ph = SUB_PE.includes(phase) && (parentPhase === 'PE' || SUB_PE.includes(parentPhase)) ? rng.pick(SUB_PE) : phase;
      sim.switchTo(th, `[NN_${layer}_${ph}]switched${i}`);
      w.features.add('switch');
      continue;
    }
    if (layer === 'LU') {
      sim.scope(th, `[NN_LU_PU]util${depth}_${i}`, () => nested(w, th, 'LU', phase, depth + 1, phase));
      continue;
    }
    let cl: Layer = layer;
    let lower = LOWER[layer] ?? [];
    if (!inDriver) lower = lower.filter((l) => l !== 'LD');
    if (inDriver) lower = lower.filter((l) => l !== 'LC');
    if (r < 0.45 && lower.length) cl = rng.pick(lower);
    else if (r < 0.52) cl = 'LU';
    let cp = rng.pick(childPhases(phase));
    if (cp === 'PO') cp = 'PP'; // an [NN_LA_PO] mark would start a new run
    if (cl === 'LU') cp = 'PU';
    let prefix = '';
    if (rng.chance(0.08) && depth > 0 && cl !== 'LU') {
      // [SUB]: time of an upper layer inside a lower one (VersionedIDevice::prepareModel style)
      const upper: Layer[] = layer === 'LI' ? ['LR'] : layer === 'LD' ? ['LI', 'LR'] : layer === 'LC' ? ['LR'] : ['LR'];
      cl = rng.pick(upper);
      cp = phase === 'PU' ? 'PU' : phase;
      prefix = '[SUB]';
      w.features.add('subtract');
    }
    if (cp === 'PI') w.features.add('init');
    const name = `${prefix}[NN_${cl}_${cp}]fn${depth}_${i}${rng.chance(0.1) ? ' detail' : ''}`;
    const effPhase = cp === 'PU' ? phase : cp;
    sim.scope(th, name, () => nested(w, th, cl, effPhase, depth + 1, phase));
  }
}

/** A synchronous IPC call: LI scope, HIDL client mark, the driver's server side. */
function ipcCall(w: World, method: string, phase: string, driverBody?: (d: Thread) => void): void {
  const { sim, rng } = w;
  const client = `HIDL::IDevice::${method}::client`;
  sim.scope(w.app, `[NN_LI_${phase}]${method.replace(/_1_\d$/, '')}`, () => {
    if (rng.chance(0.9)) {
      sim.scope(w.app, client, () => {
        if (w.hasDriver) {
          const d = rng.pick(w.drv);
          sim.scope(d, `HIDL::IDevice::${method}::server`, () => driverBody?.(d));
        } else if (rng.chance(0.5)) {
          // in-process (passthrough) HAL: driver marks on the app thread become CPU
          // (its driver marks count as CPU inside IPC, which AOSP rejects: rarely)
          sim.scope(w.app, `HIDL::IDevice::${method}::passthrough`, () => rng.chance(0.15) && driverBody?.(w.app));
          w.features.add('passthrough');
        }
      });
    }
    if (method.startsWith('prepareModel') && rng.chance(0.6)) {
      sim.scope(w.app, '[SUB][NN_LR_PC]VersionedIDevice::prepareModel');
      w.features.add('subtract');
    }
  });
}

function preparation(w: World): void {
  const { sim, rng } = w;
  const body = (): void => {
    const calls = ['ANeuralNetworksModel_create', 'ANeuralNetworksModel_addOperand', 'ANeuralNetworksModel_setOperandValue', 'ANeuralNetworksModel_addOperation', 'ANeuralNetworksModel_identifyInputsAndOutputs', 'ANeuralNetworksModel_finish'];
    const n = rng.int(1, 2 + 3 * w.size);
    for (let i = 0; i < n; i++) {
      const c = i === 0 ? calls[0]! : rng.pick(calls);
      sim.scope(w.app, `[NN_LR_PP]${c}`, () => {
        if (rng.chance(0.15)) {
          sim.scope(w.app, '[NN_LR_PI]DeviceManager::get');
          w.features.add('init');
        }
        if (rng.chance(0.1)) sim.scope(w.app, '[NN_LU_PU]utility');
        if (rng.chance(0.1)) sim.scope(w.app, '[NN_LR_PP]ModelBuilder::detail');
        if (rng.chance(0.1)) sim.scope(w.app, 'HIDL::IAllocator::allocate::client');
      });
    }
  };
  if (!w.runtime) return;
  if (w.appMarks && rng.chance(0.7)) sim.scope(w.app, '[NN_LA_PP]createModel', body);
  else body();
}

function compilation(w: World): void {
  const { sim, rng } = w;
  const body = (): void => {
    if (w.runtime) {
      sim.scope(w.app, '[NN_LR_PC]ANeuralNetworksCompilation_create', () => {
        if (rng.chance(0.4)) ipcCall(w, fname(rng, 'getCapabilities'), 'PI', (d) => rng.chance(0.4) && sim.scope(d, `[NN_${d === w.app ? 'LC' : 'LD'}_PI]SampleDriver::getCapabilities`));
        if (rng.chance(0.4)) ipcCall(w, fname(rng, 'getSupportedOperations'), 'PC');
        if (rng.chance(0.2)) sim.scope(w.app, '[NN_LI_PC]getSupportedExtensions', () => sim.scope(w.app, 'HIDL::IDevice::getSupportedExtensions::client'));
      });
      if (w.appMarks && rng.chance(0.2)) {
        // app not using PT: termination calls inside the compilation phase (moved by the parser)
        sim.scope(w.app, '[NN_LR_PT]ANeuralNetworksModel_free');
        w.features.add('wrong-app-phase');
      }
      sim.scope(w.app, '[NN_LR_PC]ANeuralNetworksCompilation_finish', () => {
        if (w.hasDriver || rng.chance(0.5)) {
          ipcCall(w, fname(rng, 'prepareModel'), 'PC', (d) => {
            if (rng.chance(0.7)) sim.scope(d, `[NN_${d === w.app ? 'LC' : 'LD'}_PC]SampleDriver::prepareModel`);
            if (d !== w.app && rng.chance(0.8)) sim.scope(d, 'HIDL::IPreparedModelCallback::notify::client');
          });
          if (rng.chance(0.5)) sim.scope(w.appBinder, 'HIDL::IPreparedModelCallback::notify::server');
        } else nested(w, w.app, 'LR', 'PC', 1, 'PC');
      });
    } else if (w.hasDriver) {
      // Android 8.1: only the driver side is visible
      const d = rng.pick(w.drv);
      sim.scope(d, 'HIDL::IDevice::getSupportedOperations::server');
      sim.scope(d, 'HIDL::IDevice::prepareModel::server', () => sim.scope(d, 'HIDL::IPreparedModelCallback::notify::client'));
    }
  };
  if (w.appMarks && rng.chance(0.7)) sim.scope(w.app, '[NN_LA_PC]compile', body);
  else body();
}

/** The driver side of one execution (HIDL server, driver marks, callback). */
function driverExecution(w: World, notify = true): void {
  const { sim, rng } = w;
  const d = rng.pick(w.drv);
  sim.scope(d, 'HIDL::IPreparedModel::execute::server', () => {
    if (rng.chance(0.5)) sim.scope(d, '[NN_LD_PIO]SampleDriver::setInputs');
    if (rng.chance(0.6)) sim.scope(d, '[NN_LD_PE]SampleDriver::execute', () => rng.chance(0.3) && nested(w, d, 'LD', 'PE', 2, 'PE'));
    if (rng.chance(0.3)) sim.scope(d, '[NN_LC_PCO]cpu_in_driver');
    if (notify) sim.scope(d, 'HIDL::IExecutionCallback::notify::client');
  });
  if (rng.chance(0.4)) sim.scope(w.appBinder, 'HIDL::IExecutionCallback::notify::server');
}

/** Runtime-side compute: IPC to the driver or CPU fallback. */
function computeInside(w: World, th: Thread): void {
  const { sim, rng } = w;
  if (w.hasDriver && rng.chance(0.75)) {
    sim.scope(th, '[NN_LR_PIO]StepExecutor::startCompute', () => {
      sim.switchTo(th, '[NN_LI_PE]DriverPreparedModel::execute');
      sim.scope(th, 'HIDL::IPreparedModel::execute::client', () => driverExecution(w));
      if (rng.chance(0.6)) sim.switchTo(th, '[NN_LR_PR]DriverPreparedModel::results');
    });
    w.features.add('driver');
  } else {
    sim.scope(th, '[NN_LC_PTR]convFloat32', () => {
      if (rng.chance(0.7)) sim.switchTo(th, '[NN_LC_PCO]optimized_ops::Conv');
    });
    if (rng.chance(0.3)) sim.scope(th, '[NN_LC_PCO]optimized_ops::Add');
    if (rng.chance(0.3)) sim.scope(th, '[NN_LD_PE]SampleDriver::inProcess'); // LD in an app process becomes LC
    if (rng.chance(0.3)) sim.scope(th, '[NN_LC_PE]CpuExecutor::run', () => sim.scope(th, '[NN_LC_PCO]op'));
    w.features.add('cpu');
  }
}

function oneExecution(w: World, hostile: HostileKind | null, k: number): void {
  const { sim, rng } = w;
  const app = w.app;
  const body = (): void => {
    if (!w.runtime) {
      if (w.hasDriver) driverExecution(w, !(hostile === 'execute-without-notify' && k === 0));
      return;
    }
    sim.scope(app, '[NN_LR_PE]ANeuralNetworksExecution_create');
    for (let i = rng.int(1, 2); i > 0; i--) sim.scope(app, `[NN_LR_PIO]ANeuralNetworksExecution_setInput${rng.chance(0.3) ? 'FromMemory' : ''}`);
    sim.scope(app, `[NN_LR_PIO]ANeuralNetworksExecution_setOutput${rng.chance(0.3) ? 'FromMemory' : ''}`);
    const mode = rng.next();
    if (mode < 0.55) {
      // asynchronous: startCompute .. Event_wait; the work may run on a worker thread
      w.features.add('async');
      const onWorker = rng.chance(0.4);
      sim.scope(app, '[NN_LR_PE]ANeuralNetworksExecution_startCompute', () => {
        if (!onWorker) computeInside(w, app);
        if (rng.chance(0.3)) sim.scope(app, '[NN_LR_PE]ANeuralNetworksEvent_create');
      });
      let doneAt = sim.us;
      if (onWorker) {
        w.features.add('worker');
        // the worker computes while the app returns from startCompute and waits: concurrent marks
        const concurrent = rng.chance(0.6);
        const work = (): void => {
          const s = w.sim;
          if (rng.chance(0.5)) s.scope(w.worker, '[NN_LR_PE]asyncStartComputePartitioned', () => computeInside(w, w.worker));
          else {
            // the worker only issues the IPC call: an untracked thread (dropped upstream)
            s.scope(w.worker, 'HIDL::IPreparedModel::execute::client', () => w.hasDriver && driverExecution(w));
            w.features.add('untracked');
          }
        };
        if (concurrent) {
          doneAt = sim.fork(w, work);
          w.features.add('concurrent');
        } else work();
      }
      if (!(hostile === 'start-without-wait' && k === 0)) {
        sim.scope(app, '[NN_LR_PE]ANeuralNetworksEvent_wait', () => {
          if (sim.us < doneAt) sim.us = doneAt;
        });
      }
      sim.scope(app, `[NN_LR_${rng.chance(0.5) ? 'PT' : 'PE'}]ANeuralNetworksEvent_free`);
    } else if (mode < 0.85) {
      w.features.add('sync');
      sim.scope(app, '[NN_LR_PE]ANeuralNetworksExecution_compute', () => computeInside(w, app));
    } else {
      w.features.add('burst');
      sim.scope(app, '[NN_LR_PE]ANeuralNetworksExecution_burstCompute', () => nested(w, app, 'LR', 'PE', 1, 'PE'));
    }
    sim.scope(app, `[NN_LR_${rng.chance(0.5) ? 'PT' : 'PE'}]ANeuralNetworksExecution_free`);
  };
  if (w.appMarks && rng.chance(0.75)) {
    sim.scope(app, '[NN_LA_PE]BenchmarkModel::run', () => {
      if (rng.chance(0.2)) sim.scope(app, '[NN_LA_PIO]setInputs');
      body();
      if (rng.chance(0.2)) sim.scope(app, '[NN_LA_PR]readResults');
      // written with [SW] by old benchmark apps but as a scope of its own: upstream drops the [SW]
      if (rng.chance(0.1)) sim.scope(app, '[SW][NN_LA_PR]executeWithCompilation');
    });
  } else body();
}

function executions(w: World, hostile: HostileKind | null): void {
  const { sim, rng } = w;
  const n = () => rng.int(1, 1 + 2 * w.size);
  const r = rng.next();
  let k = 0;
  const runSome = (): void => {
    for (let i = n(); i > 0; i--) oneExecution(w, hostile, k++);
  };
  if (w.appMarks && r < 0.35) {
    // warmup and benchmark (AOSP's benchmark app); sometimes only one of them
    const which = rng.next();
    if (which < 0.9 || which >= 0.95) {
      w.features.add('warmup');
      sim.scope(w.app, '[NN_LA_PWU]warmup', runSome);
    }
    if (which < 0.95) {
      w.features.add('benchmark');
      sim.scope(w.app, '[NN_LA_PBM]benchmark', runSome);
    }
  } else runSome();
}

function termination(w: World): void {
  const { sim, rng } = w;
  if (!w.runtime) return;
  const body = (): void => {
    for (const c of ['ANeuralNetworksCompilation_free', 'ANeuralNetworksModel_free', 'ANeuralNetworksMemory_free']) {
      if (rng.chance(0.7)) sim.scope(w.app, `[NN_LR_PT]${c}`);
    }
  };
  if (w.appMarks && rng.chance(0.6)) sim.scope(w.app, '[NN_LA_PT]teardown', body);
  else body();
}

function noise(w: World, others: Thread[]): void {
  const { sim, rng } = w;
  if (rng.chance(0.3)) {
    const th = rng.pick(others);
    sim.scope(th, rng.pick(['eglSwapBuffers', 'HIDL::IMapper::importBuffer::passthrough', 'HIDL::IServiceManager::get::client', 'Choreographer#doFrame']));
  }
  if (rng.chance(0.15)) sim.scope(w.app, rng.pick(['RenderThread::draw', 'app_section', 'HIDL::IServiceManager::get::client']));
  if (w.secondApp && rng.chance(0.7)) {
    const th = w.secondApp;
    const call = rng.pick(['[NN_LR_PP]ANeuralNetworksModel_create', '[NN_LR_PC]ANeuralNetworksCompilation_finish', '[NN_LR_PE]ANeuralNetworksExecution_compute']);
    sim.scope(th, call, () => {
      if (call.includes('_PE]') && rng.chance(0.5)) sim.scope(th, '[NN_LC_PCO]cpu_op');
    });
  }
}

function run(w: World, hostile: HostileKind | null, others: Thread[], index: number): void {
  const { sim, rng } = w;
  const body = (): void => {
    noise(w, others);
    if (rng.chance(0.8)) preparation(w);
    if (rng.chance(0.85)) compilation(w);
    if (rng.chance(0.9)) executions(w, hostile);
    if (rng.chance(0.15)) {
      // random legal nesting on the app thread
      const top = rng.pick(['PP', 'PC', 'PE', 'PT', 'PI']);
      sim.scope(w.app, `[NN_LR_${top}]random_${index}`, () => nested(w, w.app, 'LR', top, 1, w.appMarks ? 'PO' : top));
      w.features.add('random-nesting');
    }
    if (w.appMarks && rng.chance(0.2)) {
      const top = rng.pick(['PP', 'PC', 'PE', 'PT']);
      sim.scope(w.app, `[NN_LA_${top}]random_app_${index}`, () => nested(w, w.app, 'LA', top, 1, 'PO'));
      w.features.add('random-nesting');
    }
    if (rng.chance(0.8)) termination(w);
    if (hostile === 'illegal-nesting' && index === 0) {
      sim.scope(w.app, '[NN_LR_PP]outer', () => sim.scope(w.app, '[NN_LA_PP]app_inside_runtime'));
    }
    noise(w, others);
  };
  if (w.appMarks && (index > 0 || rng.chance(0.9))) sim.scope(w.app, `[NN_LA_PO]${rng.pick(MODEL_NAMES)}${rng.chance(0.05) ? ' ' : ''}`, body);
  else body();
}

/** One ftrace line. */
function line(e: Event, fmt: { tgidColumn: boolean; dashes: boolean; decimals: number }, rng: Rng): string {
  const sec = Math.floor(e.us / 1e6);
  let frac = String(e.us - sec * 1e6).padStart(6, '0');
  if (fmt.decimals === 9) frac += '000';
  else if (fmt.decimals === 3) frac = frac.slice(0, 3);
  const ts = `${sec}.${frac}`.padStart(12);
  const task = e.th.task.padStart(16);
  const pid = String(e.th.tid).padEnd(5);
  const cpu = `[00${rng.int(0, 7)}]`;
  const flags = rng.pick(['...1', 'd..2', '.N.1']);
  if (fmt.tgidColumn) {
    const tg = fmt.dashes ? '-----' : String(e.th.tgid).padStart(5);
    return `${task}-${pid} (${tg}) ${cpu} ${flags} ${ts}: tracing_mark_write: ${e.mark}`;
  }
  return `${task}-${pid} ${cpu} ${flags} ${ts}: tracing_mark_write: ${e.mark}`;
}

const NOISE_LINES = [
  '          <idle>-0     (-----) [001] d..2   {T}: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=NeuralNetworks next_pid=5143 next_prio=120',
  '  surfaceflinger-614   (  614) [002] ...1   {T}: tracing_mark_write: C|614|VSYNC-sf|1',
  '  surfaceflinger-614   (  614) [002] ...1   {T}: tracing_mark_write: S|614|async|42',
  '     kworker/1:1-51    (   51) [001] ...1   {T}: workqueue_execute_start: work struct 00000000',
];

/** Generates one capture from a seed. */
export function generateCapture(seed: number, options: GeneratorOptions = {}): GeneratedCapture {
  const rng = new Rng(seed * 2654435761 + 12345);
  const features = new Set<string>();
  const hostile: HostileKind | null = options.hostile !== undefined ? options.hostile : rng.chance(0.12) ? rng.pick(HOSTILE_KINDS) : null;
  if (hostile) features.add(`hostile:${hostile}`);
  const size = options.size ?? rng.next();
  const tgidColumn = hostile === 'dashes-bare-end' || (hostile !== 'old-bare-end-first' && rng.chance(0.8));
  if (!tgidColumn) features.add('old-format');
  const htmlDrawn = rng.chance(0.5);
  const html = options.form ? options.form === 'html' : htmlDrawn;
  features.add(html ? 'html' : 'ftrace-text');
  const appPid = rng.int(300, 32000);
  const drvPid = rng.int(300, 32000);
  const oddNames = rng.chance(0.3);
  const task = (normal: string): string => (oddNames && rng.chance(0.5) ? rng.pick(ODD_TASKS) : normal);
  if (oddNames) features.add('odd-names');
  const app: Thread = { tid: appPid, tgid: appPid, task: task('NeuralNetworks') };
  if (hostile === 'one-char-task') app.task = 'x';
  const worker: Thread = { tid: appPid + 7, tgid: appPid, task: task('<...>') };
  const appBinder: Thread = { tid: appPid + 3, tgid: appPid, task: task(`HwBinder:${appPid}_1`) };
  const drv: Thread[] = [
    { tid: drvPid, tgid: drvPid, task: task('android.hardwar') },
    { tid: drvPid + 2, tgid: drvPid, task: task(`HwBinder:${drvPid}_1`) },
  ];
  const others: Thread[] = [
    { tid: 614, tgid: 614, task: 'surfaceflinger' },
    { tid: 1739, tgid: 1500, task: 'GLThread 35' },
  ];
  const bareStyle = rng.next();
  // new Android writes `E|<pid>`, older ones a bare `E`; the old layout needs the pid in `B|..|`
  const bareEnd = (th: Thread): boolean => (bareStyle < 0.3 ? true : bareStyle < 0.4 ? (th.tid + th.task.length) % 2 === 0 : false);
  const sim = new Sim(rng, rng.int(100, 2_000_000) * 1_000_000 + rng.int(0, 999_999), bareEnd);
  const runtime = rng.chance(0.85);
  if (!runtime) features.add('no-runtime');
  const w: World = {
    rng,
    sim,
    app,
    worker,
    appBinder,
    drv,
    hasDriver: rng.chance(0.7),
    runtime,
    appMarks: rng.chance(0.85),
    features,
    size,
    secondApp: rng.chance(0.05) ? { tid: appPid + 101, tgid: appPid + 100, task: 'other_client' } : null,
  };
  if (w.secondApp) features.add('second-app');
  // a capture without NNAPI marks at all (AOSP still prints a table of n/a and -)
  const empty = !hostile && rng.chance(0.02);
  if (empty) {
    features.add('no-nnapi-marks');
    w.runtime = false;
    w.appMarks = false;
    w.hasDriver = false;
  }
  if (w.hasDriver) features.add('driver-process');
  if (!w.appMarks) features.add('no-app-marks');
  const runs = options.runs ?? (empty ? 1 : rng.int(1, size > 0.6 ? 4 : 3));
  features.add(`runs:${runs}`);

  if (hostile === 'old-bare-end-first') sim.emit(app, 'E');
  if (hostile === 'idevice-client-untracked') sim.scope(others[1]!, 'HIDL::IDevice::getCapabilities::client');

  const truncate = rng.chance(0.12);
  const dropMidEnd = runs > 1 && rng.chance(0.1);
  for (let i = 0; i < runs; i++) {
    const before = sim.events.length;
    if (empty) noise(w, others);
    else run(w, hostile, others, i);
    if (dropMidEnd && i === 0) {
      // an E lost in the middle of the first run: that run is incomplete, the next PO resets it
      const ends = sim.events.map((e, k) => (k >= before && e.th === app && e.mark[0] === 'E' ? k : -1)).filter((k) => k >= 0);
      if (ends.length > 1) {
        sim.events.splice(ends[rng.int(0, ends.length - 2)]!, 1);
        features.add('incomplete-run');
      }
    }
    sim.closeAll();
    if (rng.chance(0.2)) sim.tick(5000);
  }
  if (hostile === 'unbalanced-end') sim.events.splice(rng.int(0, sim.events.length), 0, { us: sim.events[0]?.us ?? sim.us, th: app, mark: 'E' });
  if (hostile === 'four-part-tag') sim.scope(app, '[NN_LR_PE_X]four_parts');
  if (hostile === 'hidl-without-side') sim.scope(app, 'HIDL::IFoo::bar');
  if (hostile === 'bare-mark') sim.scope(app, 'Bfoo');
  if (hostile === 'unclosed-tag') sim.scope(app, '[NN_LR_PE');
  if (truncate && sim.events.length > 4) {
    sim.events.length = rng.int(Math.floor(sim.events.length / 2), sim.events.length - 1);
    features.add('truncated');
  }
  // keep the ftrace order (by time; ties keep their order)
  const order = sim.events.map((e, i) => [e, i] as const).sort((a, b) => a[0].us - b[0].us || a[1] - b[1]);
  const fmt = {
    tgidColumn,
    dashes: hostile === 'dashes-bare-end' || (tgidColumn && bareStyle >= 0.4 && rng.chance(0.1)),
    decimals: rng.chance(0.05) ? rng.pick([3, 9]) : 6,
  };
  if (fmt.dashes) features.add('tgid-dashes');
  if (hostile === 'dashes-bare-end') order.push([{ us: sim.us + 1, th: app, mark: 'E' }, order.length]);
  const lines: string[] = [];
  for (const [e] of order) {
    if (rng.chance(0.03)) lines.push(rng.pick(NOISE_LINES).replace('{T}', `${Math.floor(e.us / 1e6)}.${String(e.us % 1e6).padStart(6, '0')}`));
    let l = line(e, fmt, rng);
    if (rng.chance(0.01)) l = `\t${l.trimStart()}`;
    // trailing blanks belong to the mark upstream reads (harmless on an app mark or an end)
    if ((e.mark.includes('[NN_LA_') || e.mark[0] === 'E') && rng.chance(0.02)) l += ' ';
    lines.push(l);
  }
  const header = tgidColumn
    ? ['# tracer: nop', '#', `# entries-in-buffer/entries-written: ${lines.length}/${lines.length}   #P:8`, '#', '#                                      _-----=> irqs-off', '#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION', '#              | |        |      |   ||||       |         |']
    : ['# tracer: nop', '#', '#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION', '#              | |       |   ||||       |         |'];
  const eol = rng.chance(0.05) ? '\r\n' : '\n';
  if (eol !== '\n') features.add('crlf');
  let text: string;
  if (html) {
    text = [
      '<!DOCTYPE html>',
      '<html>',
      '<head i18n-values="dir:textdirection;">',
      '<meta charset="utf-8"/>',
      '<title>Android System Trace</title>',
      '<script>',
      '  // viewer code: "tracing_mark_write: B|1|[NN_LA_PO]not_a_mark" before the trace is ignored',
      '</script>',
      '</head>',
      '<body>',
      '  <script class="trace-data" type="application/text">',
      'PROCESS DUMP',
      'USER           PID  PPID     VSZ    RSS WCHAN  PC S NAME',
      '  </script>',
      '  <script class="trace-data" type="application/text">',
      ...header,
      ...lines,
      '  </script>',
      '<!-- END TRACE -->',
      `  ${lines[0] ?? ''}`,
      '</body>',
      '</html>',
      '',
    ].join(eol);
  } else {
    text = [...header, ...lines].join(eol) + (rng.chance(0.95) ? eol : '');
  }
  features.add(`marks:${order.length < 100 ? '<100' : order.length < 500 ? '<500' : '500+'}`);
  return { seed, name: `cap-${seed}.${html ? 'html' : 'txt'}`, text, features: [...features].sort() };
}

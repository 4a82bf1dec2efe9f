/**
 * The run loop of parse_systrace.py: tracked threads, runs split at `[NN_LA_PO]`, per-thread
 * trackers sharing one AppPhase, and per run the statistics, tables and timeline. Never throws on
 * bad input: what upstream turns into an exception becomes a Diagnostic (and `fatal` records
 * where AOSP's parser would have stopped).
 */
import type { Diagnostic } from '../errors';
import { type Aggregate, aggregateTimes } from './aggregate';
import type { MarkLine, SystraceTrace } from './input';
import {
  type AnalyseOptions,
  type DroppedMark,
  type FatalError,
  type PhaseLayerTable,
  type RunResult,
  type RunTimes,
  type SystraceAnalysis,
  type TimelineMark,
  type TimelineThread,
  type TrackedThread,
} from './model';
import { functionName, parseTag } from './naming';
import { buildTable, statsDetail, treeDetail } from './output';
import { type CallNode, elapsedLessSubtracted, exactClock, IdSource, isAddedDetail, maxDepth, phaseOf, upstreamClock } from './tree';
import { AppPhase, MarkError, type Stats, Tracker } from './tracker';

/** Deeper trees are not analysed (recursive rules; upstream's own limit is Python's ~1000). */
export const MAX_TREE_DEPTH = 2000;

export const NO_RUNTIME_MESSAGE = '*** No NNAPI Runtime trace present - check your systrace setup ***';
export const INCOMPLETE_MESSAGE = 'Incomplete trace, not able to print all statistics';

const DEVICE_SERVER = /HIDL::IDevice.*::server/;

function toRunTimes(agg: Aggregate, scale: number): RunTimes {
  const conv = (t: Record<string, Record<string, number>>): PhaseLayerTable => {
    const out: PhaseLayerTable = {};
    for (const [p, row] of Object.entries(t)) {
      const r: Record<string, number | null> = {};
      for (const [l, v] of Object.entries(row)) r[l] = Number.isNaN(v) ? null : v / scale;
      out[p] = r;
    }
    return out;
  };
  const times: RunTimes['times'] = conv(agg.times);
  const selfTimes: RunTimes['selfTimes'] = conv(agg.selfTimes);
  for (const ap of ['PWU', 'PBM'] as const) {
    const n = agg.nested[ap];
    if (n) {
      times[ap] = conv(n.times);
      selfTimes[ap] = conv(n.selfTimes);
    }
  }
  return { times, selfTimes, executionCounts: { ...agg.executionCounts }, hasWarmupAndBenchmark: agg.hasWarmupAndBenchmark };
}

function timelineOf(tracker: Tracker, statKeys: Map<number, string[]>, lastUs: number): TimelineThread {
  // counted time follows chains of same-layer detail: skip it on trees too deep to analyse
  const counted = maxDepth(tracker.root) <= MAX_TREE_DEPTH;
  const marks: TimelineMark[] = [];
  // iterative pre-order; dummies are skipped (their children are drawn at the dummy's place)
  const stack: [CallNode, number | null, number][] = [];
  const kids = tracker.root.children;
  for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i]!, null, 0]);
  while (stack.length) {
    const [n, parent, depth] = stack.pop()!;
    let childParent = parent;
    let childDepth = depth;
    if (!n.isDummy) {
      const elapsed = exactClock.elapsed(n);
      let childSum = 0;
      let open = elapsed === null;
      for (const c of n.children) {
        if (c.copyOf !== undefined) continue;
        const ce = exactClock.elapsed(c);
        if (ce === null) open = true;
        else childSum += ce;
      }
      const m: TimelineMark = {
        id: n.id,
        parent,
        depth,
        line: n.line,
        beginUs: n.startUs,
        endUs: n.endUs,
        mark: n.mark ?? '',
        name: functionName(n.mark ?? ''),
        layer: n.layer ?? 'LX',
        phase: n.phase ?? 'PU',
        effectivePhase: phaseOf(n) ?? 'PU',
        appPhase: n.appPhase ?? 'PO',
        subtract: n.subtract,
        addedDetail: isAddedDetail(n),
        elapsedUs: elapsed,
        selfUs: open || elapsed === null ? null : elapsed - childSum,
        countedUs: elapsed === null || !counted ? null : elapsedLessSubtracted(n, exactClock),
        statKeys: statKeys.get(n.id) ?? [],
      };
      if (n.copyOf !== undefined) {
        m.copyOf = n.copyOf;
        if (n.copyReason) m.copyReason = n.copyReason;
      }
      if (n.synthetic) m.synthetic = true;
      if (n.switched) m.switched = true;
      if (m.endUs === null && lastUs >= m.beginUs) {
        // still open at the end of an incomplete run: the bar runs to the run's last mark
        m.endUs = null;
      }
      marks.push(m);
      childParent = n.id;
      childDepth = depth + 1;
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, childParent, childDepth]);
  }
  if (tracker.ignored.length) {
    const depthOf = new Map(marks.map((m) => [m.id, m.depth]));
    for (const { node: n, into } of tracker.ignored) {
      const parent = into.isRoot ? null : into.id;
      const depth = parent === null ? 0 : (depthOf.get(parent) ?? 0) + 1;
      depthOf.set(n.id, depth);
      const elapsed = exactClock.elapsed(n);
      marks.push({
        id: n.id,
        parent,
        depth,
        line: n.line,
        beginUs: n.startUs,
        endUs: n.endUs,
        mark: n.mark ?? '',
        name: functionName(n.mark ?? ''),
        layer: 'LX',
        phase: n.phase ?? 'PU',
        effectivePhase: n.phase ?? 'PU',
        appPhase: n.appPhase ?? 'PO',
        subtract: false,
        addedDetail: false,
        ignored: true,
        elapsedUs: elapsed,
        selfUs: elapsed,
        countedUs: 0,
        statKeys: [],
      });
    }
  }
  return { tid: tracker.tid, tgid: tracker.tgid, task: tracker.task, kind: tracker.isDriver ? 'driver' : 'app', marks };
}

/** Analyse a read trace: runs, statistics, tables, timeline and diagnostics. */
export function analyse(trace: SystraceTrace, options: AnalyseOptions = {}): SystraceAnalysis {
  const file = trace.file;
  const specialCaseLrPe = options.specialCaseLrPe ?? true;
  const wantTimeline = options.timeline ?? true;
  const wantTables = options.tables ?? true;
  const diagnostics: Diagnostic[] = [...trace.diagnostics];
  const marks = trace.marks;

  let fatal: FatalError | undefined;
  const setFatal = (f: FatalError): void => {
    if (!fatal) fatal = f;
  };
  if (trace.failure) setFatal({ stage: 'input', line: trace.failure.line, message: trace.failure.message });

  // pass 1 (upstream parse_trace_part): tracked threads in order of their first [NN or IDevice
  // server mark, each with the process id of its LAST such mark; driver processes
  const trackedTgid = new Map<string, string>();
  const driverTgids = new Set<string>();
  const first = new Map<string, MarkLine>();
  const taskOf = new Map<string, string>();
  let hasRuntimeTrace = false;
  for (const m of marks) {
    if (!taskOf.has(m.pid) || taskOf.get(m.pid) === '<...>') taskOf.set(m.pid, m.task);
    if (m.mark.includes('[NN')) {
      trackedTgid.set(m.pid, m.tgidKey);
      if (m.mark.includes('NN_LR')) hasRuntimeTrace = true;
    }
    if (m.mark.includes('HIDL::IDevice') && m.mark.includes('::server')) {
      trackedTgid.set(m.pid, m.tgidKey);
      driverTgids.add(m.tgidKey);
    }
    if (trackedTgid.has(m.pid) && !first.has(m.pid)) first.set(m.pid, m);
  }
  const trackedOrder: TrackedThread[] = [];
  for (const [pid, tgidKey] of trackedTgid) {
    const m = first.get(pid)!;
    trackedOrder.push({ pid, tid: m.tid, tgid: /^\d+$/.test(tgidKey) ? Number(tgidKey) : -1, task: taskOf.get(pid) ?? m.task, kind: driverTgids.has(tgidKey) ? 'driver' : 'app' });
  }
  if (!hasRuntimeTrace && trace.header !== null) {
    diagnostics.push({ severity: 'warning', file, message: NO_RUNTIME_MESSAGE, source: 'no-runtime-trace' });
  }
  if (trace.header !== null && trackedOrder.length === 0) {
    diagnostics.push({ severity: 'warning', file, message: 'the trace has no NNAPI marks ([NN_...] or HIDL::IDevice server marks): nothing to count' });
  }

  const ids = new IdSource();
  const appPhase = new AppPhase();
  const trackers = new Map<string, Tracker>();
  for (const t of trackedOrder) trackers.set(t.pid, new Tracker(t.pid, t.tid, t.tgid, t.task, t.kind === 'driver', appPhase, ids));
  const trackerList = [...trackers.values()];
  const trackedTgids = new Set(trackedOrder.map((t) => trackedTgid.get(t.pid)!));

  const runs: RunResult[] = [];
  const droppedMarks: DroppedMark[] = [];
  const droppedPerThread = new Map<string, { count: number; example: DroppedMark }>();
  let startingMark = '';
  let runFirstLine = marks.length ? marks[0]!.line : 0;
  let runLastLine = runFirstLine;
  let runLastUs = 0;
  let firstRun = true;
  let markErrorsReported = 0;

  /** upstream `print_stats` at the end of a run (at the next `[NN_LA_PO]` or at the end of input) */
  const finishRun = (): void => {
    const index = runs.length;
    const runDiags: Diagnostic[] = [];
    const complete = trackerList.every((t) => t.isComplete());
    const reached = !fatal;
    const run: RunResult = {
      index,
      startingMark,
      firstLine: runFirstLine,
      lastLine: runLastLine,
      status: complete ? 'complete' : 'incomplete',
      output: !reached ? 'not-reached' : complete ? 'printed' : 'incomplete',
      printed: false,
      threads: [],
      diagnostics: runDiags,
    };
    let statsUp: Stats[] | null = null;
    if (!complete) {
      const open = trackerList.filter((t) => !t.isComplete()).map((t) => `${t.pid} (${t.task})`);
      runDiags.push({
        severity: 'warning',
        file,
        line: runFirstLine,
        message: `${INCOMPLETE_MESSAGE}: run ${index + 1}${startingMark ? ` (${startingMark})` : ''} has marks still open at its end on thread ${open.join(', ')}`,
        source: 'incomplete-run',
      });
    } else {
      const runFailed = (line: number | undefined, message: string): void => {
        run.status = 'invalid';
        if (run.output === 'printed') {
          run.output = 'failed';
          setFatal({ stage: 'run', run: index, ...(line !== undefined ? { line } : {}), message });
        }
      };
      const deep = trackerList.find((t) => maxDepth(t.root) > MAX_TREE_DEPTH);
      if (deep) {
        const message = `marks on thread ${deep.pid} nest deeper than ${MAX_TREE_DEPTH} levels; run ${index + 1} is not analysed`;
        runDiags.push({ severity: 'error', file, line: runFirstLine, message, source: 'limit' });
        runFailed(runFirstLine, message);
      } else {
        let nestings = 0;
        for (const t of trackerList) {
          for (const e of t.rewrite()) {
            const msg = `illegal nesting on thread ${t.pid}: ${e.problem} (${e.path})`;
            if (nestings++ < 20) runDiags.push({ severity: 'error', file, line: e.node.line, path: e.path, message: msg, source: 'nesting' });
            runFailed(e.node.line, msg);
          }
        }
        if (nestings > 20) runDiags.push({ severity: 'error', file, line: runFirstLine, message: `${nestings - 20} more illegal nestings in run ${index + 1}`, source: 'nesting' });
        statsUp = trackerList.map((t) => t.calculateStats(upstreamClock));
        const up = aggregateTimes(trackerList, statsUp, upstreamClock, specialCaseLrPe, wantTables);
        for (const f of up.failures) {
          runDiags.push({ severity: 'error', file, line: runFirstLine, message: f.message, source: f.kind });
          runFailed(runFirstLine, f.message);
        }
        run.upstream = toRunTimes(up, 1);
        if (wantTables) {
          const statsEx = trackerList.map((t) => t.calculateStats(exactClock));
          const ex = aggregateTimes(trackerList, statsEx, exactClock, specialCaseLrPe, false);
          run.exact = toRunTimes(ex, 1000);
          const src = { upstream: up, exact: ex };
          run.tables = {
            self: buildTable(startingMark, src, {}),
            total: buildTable(startingMark, src, { totalTimes: true }),
            perExecutionSelf: buildTable(startingMark, src, { perExecution: true }),
            perExecutionTotal: buildTable(startingMark, src, { perExecution: true, totalTimes: true }),
          };
        }
        if (options.detail) {
          let d = '';
          trackerList.forEach((t, i) => (d += statsDetail(t, statsUp![i]!)));
          for (const t of trackerList) d += treeDetail(t.root);
          run.detailText = d;
        }
      }
    }
    run.printed = run.output === 'printed';
    if (wantTimeline) {
      const statKeys = new Map<number, string[]>();
      if (statsUp) {
        for (const s of statsUp) {
          for (const [key, e] of s) {
            for (const it of e.items) {
              const l = statKeys.get(it.node.id);
              if (l) l.push(key);
              else statKeys.set(it.node.id, [key]);
            }
          }
        }
      }
      run.threads = trackerList.filter((t) => t.root.children.length > 0).map((t) => timelineOf(t, statKeys, runLastUs));
    }
    for (const d of runDiags) diagnostics.push(d);
    runs.push(run);
  };

  for (const m of marks) {
    const tracker = trackers.get(m.pid);
    if (!tracker && (m.mark.includes('HIDL::IDevice') || m.mark.includes('[NN_'))) {
      const message = `thread ${m.pid} (${m.task}) writes the IDevice mark "${m.mark.slice(0, 80)}" but never an NNAPI mark or an IDevice server mark, so it is not tracked`;
      diagnostics.push({ severity: 'error', file, line: m.line, message, source: 'untracked-idevice' });
      setFatal({ stage: 'untracked-mark', line: m.line, message, lineText: m.text });
    }
    if (tracker && m.mark.includes('[NN_LA_PO]')) {
      if (!firstRun) {
        finishRun();
        for (const t of trackerList) t.reset();
        appPhase.reset();
        runFirstLine = m.line;
      }
      startingMark = m.mark;
      firstRun = false;
    }
    runLastLine = m.line;
    runLastUs = m.timeUs;
    if (!tracker) {
      if (m.mark[0] === 'B' && trackedTgids.has(m.tgidKey)) {
        const t = parseTag(m.mark);
        if (!('error' in t) && t.layer !== 'LX') {
          const d: DroppedMark = { line: m.line, tid: m.tid, tgid: m.tgid, task: m.task, mark: m.mark, layer: t.layer, phase: t.phase };
          droppedMarks.push(d);
          const e = droppedPerThread.get(m.pid);
          if (e) e.count++;
          else droppedPerThread.set(m.pid, { count: 1, example: d });
        }
      }
      continue;
    }
    try {
      tracker.handleMark(m.timeUs, m.timeS, m.mark, m.line);
    } catch (e) {
      if (!(e instanceof MarkError)) throw e;
      const message =
        e.kind === 'unbalanced'
          ? `end mark without a begin mark on thread ${m.pid} (${m.task}). ${e.message}`
          : e.message;
      if (markErrorsReported++ < 20) diagnostics.push({ severity: 'error', file, line: m.line, message, source: e.kind });
      setFatal({ stage: 'mark', line: m.line, message, lineText: m.text, stdout: `failed on line ${m.line} ${m.text}${m.newline ? '\n' : ''}\n` });
    }
  }
  if (markErrorsReported > 20) {
    diagnostics.push({ severity: 'error', file, message: `${markErrorsReported - 20} more marks that AOSP's parser cannot handle` });
  }
  // upstream prints the last run at the end of input, even when nothing was tracked
  if (trace.header !== null) finishRun();

  for (const [pid, { count, example }] of droppedPerThread) {
    diagnostics.push({
      severity: 'info',
      file,
      line: example.line,
      message: `${count} mark${count === 1 ? '' : 's'} on untracked thread ${pid} (${example.task}) of process ${example.tgid} not counted, e.g. ${example.layer}_${example.phase} ${functionName(example.mark)}`,
      source: 'untracked-thread',
    });
  }

  return {
    file,
    format: trace.format,
    hasRuntimeTrace,
    threads: trackedOrder,
    runs,
    droppedMarks,
    diagnostics,
    ...(fatal ? { fatal } : {}),
    markCount: marks.length + (trace.skippedMarks ?? 0),
  };
}

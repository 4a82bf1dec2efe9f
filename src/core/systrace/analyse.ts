/**
 * The run loop of parse_systrace.py: tracked threads, runs split at `[NN_LA_PO]`, per-thread
 * trackers sharing one AppPhase, and per run the statistics, tables and timeline. Never throws on
 * bad input: what upstream turns into an exception becomes a Diagnostic (and `fatal` records
 * where AOSP's parser would have stopped).
 */
import type { Diagnostic } from '../errors';
import { type Aggregate, aggregateTimes } from './aggregate';
import type { SystraceTrace } from './input';
import {
  type AnalyseOptions,
  type DroppedMark,
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
  const diagnostics: Diagnostic[] = [...trace.diagnostics];
  const marks = trace.marks;

  // pass 1: tracked threads (in order of their first NN / IDevice server mark) and driver processes
  const trackedOrder: TrackedThread[] = [];
  const tracked = new Map<number, TrackedThread>();
  const driverTgids = new Set<number>();
  const taskOf = new Map<number, string>();
  let hasRuntimeTrace = false;
  for (const m of marks) {
    if (!taskOf.has(m.tid) || taskOf.get(m.tid) === '<...>') taskOf.set(m.tid, m.task);
    const isNn = m.mark.includes('[NN');
    const isServer = DEVICE_SERVER.test(m.mark);
    if (m.mark.includes('NN_LR')) hasRuntimeTrace = true;
    if (isServer) driverTgids.add(m.tgid);
    if ((isNn || isServer) && !tracked.has(m.tid)) {
      const t: TrackedThread = { tid: m.tid, tgid: m.tgid, task: m.task, kind: 'app' };
      tracked.set(m.tid, t);
      trackedOrder.push(t);
    }
  }
  for (const t of trackedOrder) {
    t.kind = driverTgids.has(t.tgid) ? 'driver' : 'app';
    const name = taskOf.get(t.tid);
    if (name) t.task = name;
  }
  if (!hasRuntimeTrace && trace.header !== null) {
    diagnostics.push({ severity: 'warning', file, message: NO_RUNTIME_MESSAGE, source: 'no-runtime-trace' });
  }
  if (trace.header !== null && trackedOrder.length === 0) {
    diagnostics.push({ severity: 'warning', file, message: 'the trace has no NNAPI marks ([NN_...] or HIDL::IDevice server marks): nothing to count' });
  }

  const ids = new IdSource();
  const appPhase = new AppPhase();
  const trackers = new Map<number, Tracker>();
  for (const t of trackedOrder) trackers.set(t.tid, new Tracker(t.tid, t.tgid, t.task, t.kind === 'driver', appPhase, ids));
  const trackerList = [...trackers.values()];
  const trackedTgids = new Set(trackedOrder.map((t) => t.tgid));

  const runs: RunResult[] = [];
  const droppedMarks: DroppedMark[] = [];
  const droppedPerThread = new Map<number, { count: number; example: DroppedMark }>();
  let fatal: SystraceAnalysis['fatal'];
  let startingMark = '';
  let runFirstLine = marks.length ? marks[0]!.line : 0;
  let runLastLine = runFirstLine;
  let runLastUs = 0;
  let first = true;
  let unbalancedReported = 0;

  const setFatal = (line: number | undefined, message: string, lineText?: string): void => {
    if (!fatal) fatal = { line, message, ...(lineText !== undefined ? { lineText } : {}) };
  };

  const finishRun = (printLine: number | undefined): void => {
    const index = runs.length;
    const runDiags: Diagnostic[] = [];
    const complete = trackerList.every((t) => t.isComplete());
    const run: RunResult = {
      index,
      startingMark,
      firstLine: runFirstLine,
      lastLine: runLastLine,
      status: complete ? 'complete' : 'incomplete',
      printed: false,
      threads: [],
      diagnostics: runDiags,
    };
    let statsUp: Stats[] | null = null;
    if (trackerList.length === 0) {
      run.status = 'invalid';
    } else if (!complete) {
      const open = trackerList.filter((t) => !t.isComplete()).map((t) => `${t.tid} (${t.task})`);
      runDiags.push({
        severity: 'warning',
        file,
        line: runFirstLine,
        message: `${INCOMPLETE_MESSAGE}: run ${index + 1}${startingMark ? ` (${startingMark})` : ''} has marks still open at its end on thread ${open.join(', ')}`,
        source: 'incomplete-run',
      });
    } else {
      const deep = trackerList.find((t) => maxDepth(t.root) > MAX_TREE_DEPTH);
      if (deep) {
        run.status = 'invalid';
        runDiags.push({
          severity: 'error',
          file,
          line: runFirstLine,
          message: `marks on thread ${deep.tid} nest deeper than ${MAX_TREE_DEPTH} levels; run ${index + 1} is not analysed`,
          source: 'limit',
        });
        setFatal(printLine, `marks nest deeper than ${MAX_TREE_DEPTH} levels`);
      } else {
        for (const t of trackerList) {
          for (const e of t.rewrite()) {
            run.status = 'invalid';
            const msg = `illegal nesting on thread ${t.tid}: ${e.problem} (${e.path})`;
            runDiags.push({ severity: 'error', file, line: e.node.line, path: e.path, message: msg, source: 'nesting' });
          }
        }
        if (run.status === 'invalid') setFatal(runDiags.find((d) => d.source === 'nesting')?.line, runDiags.find((d) => d.source === 'nesting')!.message);
        statsUp = trackerList.map((t) => t.calculateStats(upstreamClock));
        const statsEx = trackerList.map((t) => t.calculateStats(exactClock));
        const up = aggregateTimes(trackerList, statsUp, upstreamClock, specialCaseLrPe, true);
        const ex = aggregateTimes(trackerList, statsEx, exactClock, specialCaseLrPe, false);
        for (const p of up.problems) {
          runDiags.push({ severity: 'error', file, line: runFirstLine, message: p, source: 'execution-pairs' });
          if (run.status === 'complete') run.status = 'invalid';
          setFatal(printLine, p);
        }
        run.upstream = toRunTimes(up, 1);
        run.exact = toRunTimes(ex, 1000);
        const src = { upstream: up, exact: ex };
        run.tables = {
          self: buildTable(startingMark, src, {}),
          total: buildTable(startingMark, src, { totalTimes: true }),
          perExecutionSelf: buildTable(startingMark, src, { perExecution: true }),
          perExecutionTotal: buildTable(startingMark, src, { perExecution: true, totalTimes: true }),
        };
        if (options.detail) {
          let d = '';
          trackerList.forEach((t, i) => (d += statsDetail(t, statsUp![i]!)));
          for (const t of trackerList) d += treeDetail(t.root);
          run.detailText = d;
        }
      }
    }
    if (run.status !== 'complete' || fatal) run.printed = false;
    else run.printed = true;
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
    if (m.mark.includes('[NN_LA_PO]')) {
      if (!first) {
        finishRun(m.line);
        for (const t of trackerList) t.reset();
        appPhase.reset();
        runFirstLine = m.line;
      }
      startingMark = m.mark;
      first = false;
    }
    runLastLine = m.line;
    runLastUs = m.timeUs;
    const tracker = trackers.get(m.tid);
    if (!tracker) {
      if (m.mark[0] === 'B' && trackedTgids.has(m.tgid)) {
        const t = parseTag(m.mark);
        if (!('error' in t) && t.layer !== 'LX') {
          const d: DroppedMark = { line: m.line, tid: m.tid, tgid: m.tgid, task: m.task, mark: m.mark, layer: t.layer, phase: t.phase };
          droppedMarks.push(d);
          const e = droppedPerThread.get(m.tid);
          if (e) e.count++;
          else droppedPerThread.set(m.tid, { count: 1, example: d });
        }
      }
      continue;
    }
    try {
      tracker.handleMark(m.timeUs, m.timeS, m.mark, m.line);
    } catch (e) {
      if (!(e instanceof MarkError)) throw e;
      if (e.kind === 'unbalanced') {
        if (unbalancedReported++ < 20) {
          diagnostics.push({
            severity: 'error',
            file,
            line: m.line,
            message: `end mark without a begin mark on thread ${m.tid} (${m.task}); ignored. ${e.message}`,
            source: 'unbalanced',
          });
        }
      } else {
        diagnostics.push({ severity: 'error', file, line: m.line, message: `${e.message}; the mark is ignored`, source: 'tag' });
      }
      setFatal(m.line, e.message, m.text);
    }
  }
  if (unbalancedReported > 20) {
    diagnostics.push({ severity: 'error', file, message: `${unbalancedReported - 20} more end marks without a begin mark`, source: 'unbalanced' });
  }
  if (trackerList.length > 0 || marks.length > 0) finishRun(undefined);

  for (const [tid, { count, example }] of droppedPerThread) {
    diagnostics.push({
      severity: 'info',
      file,
      line: example.line,
      message: `${count} mark${count === 1 ? '' : 's'} on untracked thread ${tid} (${example.task}) of process ${example.tgid} not counted, e.g. ${example.layer}_${example.phase} ${functionName(example.mark)}`,
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
    markCount: marks.length,
  };
}

/**
 * Per-thread tracking (AOSP `parser/tracker.py`): builds the call tree of one thread from its
 * B/E marks, and computes the per-thread statistics after the tree rewrites.
 */
import { MARKER_SUBTRACT, MARKER_SWITCH, parseTag, upstreamFunctionName } from './naming';
import {
  addMissingLaNodes,
  type CallNode,
  type Clock,
  copySubtractedInitAndWrongLa,
  elapsedLessSubtracted,
  IdSource,
  isAddedDetail,
  makeRoot,
  phaseOf,
  removeDummies,
  removeIgnored,
  validateNesting,
  type NestingError,
} from './tree';
import { isExecutionSubphase } from './model';

/**
 * The application phase stack shared by all trackers (PWU / PBM, default PO). Upstream pushes at
 * every LA_PWU / LA_PBM begin but never pops (its end test compares the method `node.phase`, not
 * the phase, with PWU / PBM): once a warmup starts, every later mark of the run belongs to PWU,
 * after a benchmark starts to PBM, until the next run resets the stack. Reproduced, since every
 * table depends on it.
 */
export class AppPhase {
  stack: string[] = [];
  current(): string {
    return this.stack.length ? this.stack[this.stack.length - 1]! : 'PO';
  }
  push(p: string): void {
    this.stack.push(p);
  }
  pop(): void {
    this.stack.pop();
  }
  reset(): void {
    this.stack = [];
  }
}

export interface StatItem {
  node: CallNode;
  value: number;
}

export interface StatEntry {
  total: number;
  items: StatItem[];
}

/** Ordered map of `<app_phase>_<layer>_<phase>` -> total and contributing nodes. */
export type Stats = Map<string, StatEntry>;

export interface BeginEnd {
  node: CallNode;
}

export class MarkError extends Error {
  constructor(
    message: string,
    /** unbalanced: `E` with nothing open (upstream: Exception); tag: unreadable tag (ValueError /
     * AssertionError); function-name: an `E` closing a mark without a function field (IndexError) */
    readonly kind: 'unbalanced' | 'tag' | 'function-name',
  ) {
    super(message);
  }
}

export const UNBALANCED_END_MESSAGE =
  'Unable to process a trace termination mark, please check that the collected trace are including full application lifecycles.';

export class Tracker {
  root!: CallNode;
  current!: CallNode;
  stack: CallNode[] = [];
  /** `begins_and_ends_ms`: function key -> closed nodes in order of their end */
  beginsAndEnds = new Map<string, CallNode[]>();
  laPeCounts = new Map<string, number>();
  /** every node pushed in this run, in order (for the timeline) */
  pushed: CallNode[] = [];
  rewritten = false;
  nestingErrors: NestingError[] = [];
  /** LX nodes deleted by the rewrites, with the node that took their children */
  ignored: { node: CallNode; into: CallNode }[] = [];

  constructor(
    /** the PID column text (upstream's key) */
    readonly pid: string,
    readonly tid: number,
    readonly tgid: number,
    readonly task: string,
    readonly isDriver: boolean,
    readonly appPhase: AppPhase,
    private readonly ids: IdSource,
  ) {
    this.reset();
  }

  reset(): void {
    this.root = makeRoot(this.ids);
    this.current = this.root;
    this.stack = [];
    this.beginsAndEnds = new Map();
    this.laPeCounts = new Map();
    this.pushed = [];
    this.rewritten = false;
    this.nestingErrors = [];
    this.ignored = [];
  }

  private push(node: CallNode): void {
    node.parent = this.current;
    this.current.children.push(node);
    this.stack.push(this.current);
    this.current = node;
    this.pushed.push(node);
  }

  private newNode(timeUs: number, timeS: number, line: number): CallNode {
    return {
      id: this.ids.take(),
      isRoot: false,
      isDummy: false,
      startUs: timeUs,
      startS: timeS,
      endUs: null,
      endS: null,
      mark: null,
      layer: null,
      phase: null,
      appPhase: null,
      subtract: false,
      switched: false,
      line,
      children: [],
      parent: null,
    };
  }

  /**
   * `handle_mark`. Throws MarkError where upstream raises; the tracker stays usable (the bad
   * `E` is ignored; a mark with an unreadable tag is pushed as an ignored LX node).
   */
  handleMark(timeUs: number, timeS: number, markIn: string, line: number): void {
    let mark = markIn;
    if (mark[0] === 'B') {
      if (mark.includes('ANeuralNetworksEvent_free') || mark.includes('ANeuralNetworksExecution_free')) {
        mark = mark.split('_PT').join('_PE');
      }
      if (mark.includes('getSupportedExtensions')) mark = mark.split('_PC').join('_PI');
      else if (mark.includes('[SW][NN_LA_PR]executeWithCompilation')) mark = mark.split('[SW]').join('');
      const sw = mark.includes(MARKER_SWITCH);
      const subtract = mark.includes(MARKER_SUBTRACT);
      if (sw) {
        this.handleMark(timeUs, timeS, 'E', line);
        const dummy = this.newNode(timeUs, timeS, line);
        dummy.isDummy = true;
        this.push(dummy);
      }
      const t = parseTag(mark);
      let layer: string;
      let phase: string;
      let tagError: string | null = null;
      if ('error' in t) {
        layer = 'LX';
        phase = 'PU';
        tagError = t.error;
      } else {
        layer = t.layer;
        phase = t.phase;
      }
      if (layer === 'LA' && (phase === 'PWU' || phase === 'PBM')) this.appPhase.push(phase);
      layer = this.isDriver ? layer.split('LC').join('LD') : layer.split('LD').join('LC');
      if (layer === 'LA' && phase === 'PE') {
        const ap = this.appPhase.current();
        this.laPeCounts.set(ap, (this.laPeCounts.get(ap) ?? 0) + 1);
      }
      const node = this.newNode(timeUs, timeS, line);
      node.mark = mark;
      node.layer = layer;
      node.phase = phase;
      node.appPhase = this.appPhase.current();
      node.subtract = subtract;
      node.switched = sw || subtract;
      this.push(node);
      if (tagError) throw new MarkError(tagError, 'tag');
    } else if (mark[0] === 'E') {
      if (this.current.isRoot) throw new MarkError(UNBALANCED_END_MESSAGE, 'unbalanced');
      const node = this.current;
      node.endUs = timeUs;
      node.endS = timeS;
      this.current = this.stack.pop()!;
      if (node.isDummy) return;
      // no AppPhase pop here: see AppPhase
      const fn = upstreamFunctionName(node.mark ?? '');
      if (fn === null) {
        throw new MarkError(
          `the mark "${(node.mark ?? '').slice(0, 80)}" closed here has no function name field (B|<pid>|<name>); upstream stops with an IndexError`,
          'function-name',
        );
      }
      const key = `${node.appPhase}::${fn}`;
      let list = this.beginsAndEnds.get(key);
      if (!list) this.beginsAndEnds.set(key, (list = []));
      list.push(node);
    }
  }

  isComplete(): boolean {
    return this.current.isRoot;
  }

  /** The tree rewrites of `calculate_stats` (once per run). Returns nesting problems. */
  rewrite(): NestingError[] {
    if (this.rewritten) return this.nestingErrors;
    this.rewritten = true;
    removeIgnored(this.root, (node, into) => this.ignored.push({ node, into }));
    removeDummies(this.root);
    copySubtractedInitAndWrongLa(this.root, this.ids);
    addMissingLaNodes(this.root, this.ids);
    this.nestingErrors = validateNesting(this.root);
    return this.nestingErrors;
  }

  /** `calculate_stats` (recurse) with one arithmetic. */
  calculateStats(clock: Clock): Stats {
    const stats: Stats = new Map();
    const add = (key: string, value: number, node: CallNode): void => {
      let e = stats.get(key);
      if (!e) stats.set(key, (e = { total: 0.0, items: [] }));
      e.total = e.total + value;
      e.items.push({ node, value });
    };
    // iterative pre-order with the set of layers already inside a PE node
    const stack: [CallNode, ReadonlySet<string>][] = [];
    for (let i = this.root.children.length - 1; i >= 0; i--) stack.push([this.root.children[i]!, new Set()]);
    while (stack.length) {
      const [n, inPe] = stack.pop()!;
      const ph = phaseOf(n);
      const layer = n.layer ?? '';
      if (!isAddedDetail(n) && !n.subtract) {
        const v = elapsedLessSubtracted(n, clock) ?? 0.0;
        add(`${n.appPhase}_${layer}_${ph}`, v, n);
        if (isExecutionSubphase(ph) && !inPe.has(layer)) add(`${n.appPhase}_${layer}_PE`, v, n);
      }
      let childInPe = inPe;
      if (ph === 'PE' && !inPe.has(layer)) {
        const s = new Set(inPe);
        s.add(layer);
        childInPe = s;
      }
      for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, childInPe]);
    }
    return stats;
  }

  /** Execution count for an app phase: Execution_create count if > 0, else the LA_PE count. */
  executionCount(appPhase: string): number {
    const creates = this.beginsAndEnds.get(`${appPhase}::ANeuralNetworksExecution_create`)?.length ?? 0;
    return creates > 0 ? creates : (this.laPeCounts.get(appPhase) ?? 0);
  }
}

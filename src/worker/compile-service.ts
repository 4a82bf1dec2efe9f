/**
 * Compile methods of the model service (issues 13 and 14), for documents with the `compile`
 * capability (a Caffe net with its weights): the compile form, and `compile`, which runs the
 * NVDLA compiler here in the worker and hands the compile view two documents like any other:
 * the stage graphs (canonical, engine, the engine graph after each pass) as a document with the
 * `graph` capability, and the loadable it wrote opened through the format registry (the
 * loadable views read it). A new compile of the same document closes the two before it.
 * Loaded by `service.ts` on first use.
 */
import * as Comlink from 'comlink';
import type { CompileForm, CompileProgress, CompileViewResult, ModelWorkerApi } from './api';
import { openDocument, serviceOf, type OpenedDocument } from '../core/document';
import { FormatError, toErrorInfo } from '../core/errors';
import type { GraphService } from '../core/format';
import type { Graph } from '../core/graph/model';
import type { CompiledNet, StageTables } from '../core/nvdla/service';
import { pause } from './pause';

export type CompileApi = Pick<ModelWorkerApi, 'compileForm' | 'compile' | 'compiledLoadable' | 'compiledStage'>;

export interface CompileHost {
  /** the document with its values (a large caffemodel opened from its skeleton: once the whole file is read) */
  doc(docId: string): Promise<OpenedDocument>;
  /** keeps a document made here under a new id (the graph calls then reach it) */
  adopt(doc: OpenedDocument): string;
  close(docId: string): Promise<void>;
}

/** The stage graphs of a compile as a document with the `graph` capability. */
function stageDocument(net: CompiledNet, file: string): OpenedDocument {
  const graphs = net.summary.graphs.map((g) => ({ id: g.id, name: g.name, stats: g.stats }));
  const main = graphs[0];
  return {
    format: 'nvdla-compile',
    summary: {
      format: 'nvdla-compile',
      file,
      formatLabel: `NVDLA compile of ${file}`,
      description: '',
      properties: [],
      graphs,
      metadata: [],
      signatures: [],
      buffers: { count: 0, bytes: 0, external: 0 },
      counts: { kind: 'graph', graphs: graphs.length, nodes: main?.stats.nodes ?? 0, edges: main?.stats.edges ?? 0 },
      capabilities: ['graph'],
    },
    diagnostics: [],
    services: { graph: withCanonicalIds(net.graph) },
  };
}

/**
 * The canonical graph's nodes as nvdla_compiler names them (`n-0`, `n-1`, ... in its dumps and
 * logs), with the layer they stand for: `n-0 · conv1` in the box, the find box and the panel's
 * node list. The other stage graphs are named by NVDLA already (`dc-conv-0`, `bias-0`, ...).
 */
function withCanonicalIds(service: GraphService): GraphService {
  let canonical: Graph | null = null;
  return {
    ...service,
    graph(graphId) {
      const g = service.graph(graphId);
      if (graphId !== 'canonical') return g;
      canonical ??= { ...g, nodes: g.nodes.map((n) => (n.kind === 'op' && n.name !== n.id ? { ...n, name: n.name ? `${n.id} · ${n.name}` : n.id } : n)) };
      return canonical;
    },
  };
}

const FORM_SPECS = async () => (await import('../core/nvdla/service')).COMPILE_OPTION_SPECS;

/** what the progress bar says for a step of the core's compile */
function stepText(step: string, done: number, total: number): string {
  if (step === 'network') return 'building the network from the Caffe layers';
  if (step === 'canonical') return 'the canonical graph';
  if (step === 'generateGraph') return 'the engine graph (generateGraph)';
  if (step === 'emit') return 'emit: writing the loadable';
  // the passes are steps 3 .. total - 2
  return `pass ${done - 2} of ${total - 4}: ${step}`;
}

export function createCompileService(host: CompileHost): { api: CompileApi; forget(docId: string): void } {
  /** per source document: the documents of its last compile */
  const made = new Map<string, string[]>();
  /** per source document: the bytes of its last loadable (the loadable document reads them too) */
  const loadables = new Map<string, Uint8Array>();
  /** per source document: the compile in progress (a new one, or forgetting the document, cancels it) */
  const running = new Map<string, { aborted: boolean }>();
  /** per stage-graph document: the compile it shows (its stage tables are built when asked for) */
  const nets = new Map<string, CompiledNet>();
  const closeMade = async (docId: string) => {
    for (const id of made.get(docId) ?? []) {
      nets.delete(id);
      await host.close(id);
    }
    made.delete(docId);
  };
  return {
    forget(docId) {
      const r = running.get(docId);
      if (r) r.aborted = true;
      running.delete(docId);
      loadables.delete(docId);
      void closeMade(docId);
    },
    api: {
      async compileForm(docId): Promise<CompileForm> {
        const doc = await host.doc(docId);
        const specs = [...(await FORM_SPECS())];
        const defaults = (await import('../core/nvdla/service')).COMPILE_DEFAULTS;
        return { specs, defaults: { ...defaults }, calibrationFiles: serviceOf(doc, 'compile').calibrationFiles() };
      },
      async compiledLoadable(docId): Promise<Uint8Array | null> {
        const bytes = loadables.get(docId);
        if (!bytes) return null;
        const copy = bytes.slice();
        return Comlink.transfer(copy, [copy.buffer]);
      },
      async compiledStage(graphDocId, graphId): Promise<StageTables> {
        const net = nets.get(graphDocId);
        if (!net) throw new FormatError({ kind: 'cancelled', file: 'NPU Studio', message: `the stage graphs ${graphDocId} are gone: a newer compile replaced them` });
        return net.stage(graphId);
      },
      async compile(docId, request, onProgress): Promise<CompileViewResult> {
        const t0 = performance.now();
        // one compile per document: a new one (an option changed) cancels the one before at its next step
        const before = running.get(docId);
        if (before) before.aborted = true;
        const signal = { aborted: false };
        running.set(docId, signal);
        // steps: reading, the core's steps (network ... emit), opening the loadable
        const total = (await import('../core/nvdla/compile')).NVDLA_COMPILE_STEPS.length + 2;
        const step = (s: string, done: number) => onProgress?.({ step: s, done, total } satisfies CompileProgress);
        const file = (await host.doc(docId).catch(() => null))?.summary.file ?? 'NPU Studio';
        try {
          step('reading the net and its weights', 0);
          const doc = await host.doc(docId);
          const service = serviceOf(doc, 'compile');
          const calibration = request.calibration
            ? { file: request.calibration.file, ...(request.calibration.blob ? { text: await request.calibration.blob.text() } : {}) }
            : null;
          const net = await service.compile({ options: request.options, calibration, ...(request.shown !== undefined ? { shown: request.shown } : {}) }, request.caffeGraphId, {
            signal,
            now: () => performance.now(),
            onProgress: async (p) => {
              step(stepText(p.step, p.done, p.total), p.done + 1);
              await pause();
            },
          });
          if (signal.aborted) throw new FormatError({ kind: 'cancelled', file, message: 'the compile was cancelled: a newer one of the same net replaced it' });
          step('opening the loadable', total - 1);
          await closeMade(docId);
          loadables.delete(docId);
          const ids: string[] = [];
          const graphDocId = net.summary.graphs.length ? host.adopt(stageDocument(net, doc.summary.file)) : null;
          if (graphDocId) {
            ids.push(graphDocId);
            nets.set(graphDocId, net);
          }
          let loadableDocId: string | null = null;
          if (net.bytes) {
            // opened from the bytes as they are: through a Blob (host.open, as a dropped file is)
            // it cost two more copies of the loadable (51 MB for ResNet-50)
            const loadable = await openDocument([{ name: net.summary.loadableName, bytes: net.bytes }]);
            loadableDocId = host.adopt(loadable);
            ids.push(loadableDocId);
          }
          if (signal.aborted) {
            // a newer compile started while the loadable opened: it owns the view now
            for (const id of ids) {
              nets.delete(id);
              await host.close(id);
            }
            throw new FormatError({ kind: 'cancelled', file, message: 'the compile was cancelled: a newer one of the same net replaced it' });
          }
          made.set(docId, ids);
          if (net.bytes) loadables.set(docId, net.bytes);
          step('done', total);
          const { originsSidecarText } = await import('../core/nvdla/service');
          const result: CompileViewResult = {
            ok: true,
            graphDocId,
            loadableDocId,
            summary: net.summary,
            originsText: net.summary.origins ? originsSidecarText(net.summary.origins) : null,
            ms: performance.now() - t0,
          };
          performance.measure(`npu:compile ${file}`, { start: t0, end: performance.now() });
          return result;
        } catch (e) {
          return { ok: false, error: toErrorInfo(e, file) };
        } finally {
          if (running.get(docId) === signal) running.delete(docId);
        }
      },
    },
  };
}

/**
 * Partition methods of the model service (issue 3): the circle model is read and prepared once
 * per document (`preparePartition`), then every `.part` edit is a parse + validate + partition
 * over flat arrays. Output files and the value check are built here too, never on the UI thread.
 */
import { zipSync, type Zippable } from 'fflate';
import * as Comlink from 'comlink';
import type { ModelWorkerApi, PartitionFilesResult, PartitionPlanView, PartitionTextResult, PartitionVocabulary } from './api';
import { read } from '../core/circle/read';
import { FormatError } from '../core/errors';
import {
  allOpcodeNames, connFileName, hoverText, parsePart, partCompletions, partition, preparePartition, writePartition,
  type ParsedPart, type PartitionPlan, type PreparedModel,
} from '../core/partition';
import { checkPartition, type CheckPart } from '../core/partition/check';

export interface PartitionSource {
  name: string;
  bytes: Uint8Array;
  format: string;
}

type PartitionApi = Pick<ModelWorkerApi, 'partitionText' | 'partitionHover' | 'partitionVocabulary' | 'partitionFiles' | 'checkPartition'>;

interface State {
  prepared: PreparedModel;
  /** the last text parsed, with its result (hover and completion reuse it) */
  text: string | null;
  parsed: ParsedPart | null;
  plan: PartitionPlan | null;
}

function planView(plan: PartitionPlan, parsed: ParsedPart): PartitionPlanView {
  const backendIndex = new Map(plan.backends.map((b, i) => [b, i] as const));
  const operatorBackend = new Int32Array(plan.operatorBackend.length);
  for (let i = 0; i < operatorBackend.length; i++) operatorBackend[i] = backendIndex.get(plan.operatorBackend[i]!) ?? -1;
  return {
    backends: plan.backends,
    defaultBackend: plan.defaultBackend,
    comply: parsed.table?.comply ?? 'opcode',
    parts: plan.parts.map((p) => ({ number: p.number, fileName: p.fileName, backend: p.backend, operators: Int32Array.from(p.operators), inputs: p.inputs, outputs: p.outputs })),
    operatorBackend,
    operatorPart: plan.operatorPart,
    warnings: plan.warnings,
    connFile: connFileName(plan.sourceFile, 'json'),
  };
}

export function createPartitionService(source: (docId: string) => PartitionSource): { api: PartitionApi; forget(docId: string): void } {
  const states = new Map<string, State>();

  const state = (docId: string): State => {
    let s = states.get(docId);
    if (!s) {
      const src = source(docId);
      if (src.format !== 'circle') throw new FormatError({ kind: 'unsupported', file: src.name, message: 'only circle models can be partitioned' });
      const model = read(src.bytes, src.name);
      if (model.subgraphs.length === 0) throw new FormatError({ kind: 'unsupported', file: src.name, message: 'the model has no subgraph to partition' });
      s = { prepared: preparePartition(model, src.name), text: null, parsed: null, plan: null };
      states.set(docId, s);
    }
    return s;
  };

  /** parses `text` unless it is the text parsed last; partitions when valid */
  const update = (s: State, text: string): { parsed: ParsedPart; plan: PartitionPlan | null } => {
    if (s.text !== text || !s.parsed) {
      s.parsed = parsePart(text, 'partition.part', { model: s.prepared });
      s.plan = s.parsed.table ? partition(s.prepared, s.parsed.table) : null;
      s.text = text;
    }
    return { parsed: s.parsed, plan: s.plan };
  };

  const api: PartitionApi = {
    async partitionText(docId, text): Promise<PartitionTextResult> {
      const s = state(docId);
      const t0 = performance.now();
      s.text = null; // always re-run: the figure is the real work
      const { parsed, plan } = update(s, text);
      const view = plan ? planView(plan, parsed) : null;
      return { diagnostics: parsed.diagnostics, plan: view, ms: performance.now() - t0 };
    },
    async partitionHover(docId, text, line, column) {
      const s = state(docId);
      const { parsed } = update(s, text);
      return hoverText(s.prepared, parsed, line, column);
    },
    async partitionVocabulary(docId): Promise<PartitionVocabulary> {
      const s = state(docId);
      const c = partCompletions(s.prepared, null);
      return { opcodes: c.opcodes, nodeNames: c.nodeNames, allOpcodes: allOpcodeNames(), operators: s.prepared.opCount, operatorOpcodes: s.prepared.opcodeNames };
    },
    async partitionFiles(docId, text, partFileName): Promise<PartitionFilesResult> {
      const s = state(docId);
      const t0 = performance.now();
      const { plan } = update(s, text);
      if (!plan) throw new Error('the .part text has errors: fix them to download the parts');
      const src = source(docId);
      const out = writePartition(s.prepared, plan, { sourceBytes: src.bytes });
      const files = [...out.files, { name: partFileName, bytes: new TextEncoder().encode(text) }];
      const zippable: Zippable = {};
      for (const f of files) zippable[f.name] = [f.bytes, { level: f.name.endsWith('.circle') ? 1 : 6 }];
      const zip = zipSync(zippable);
      const result: PartitionFilesResult = { files: files.map((f) => ({ name: f.name, size: f.bytes.length })), zip, ms: performance.now() - t0 };
      return Comlink.transfer(result, [zip.buffer]);
    },
    async checkPartition(docId, text) {
      const s = state(docId);
      const t0 = performance.now();
      const { plan } = update(s, text);
      if (!plan) throw new Error('the .part text has errors: fix them to run the check');
      const src = source(docId);
      const out = writePartition(s.prepared, plan, { sourceBytes: src.bytes });
      const parts: CheckPart[] = plan.parts.map((p) => {
        const bytes = out.files.find((f) => f.name === p.fileName)!.bytes;
        return { file: p.fileName, model: read(bytes, p.fileName), inputs: p.inputs, outputs: p.outputs };
      });
      const result = checkPartition(s.prepared.model, parts, { seed: 1 });
      return { ...result, ms: performance.now() - t0 };
    },
  };
  return { api, forget: (docId) => void states.delete(docId) };
}

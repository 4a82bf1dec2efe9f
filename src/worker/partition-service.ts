/**
 * Partition methods of the model service (issue 3), for documents with the `partition`
 * capability: the model is prepared once per document (the document's `prepared()`), then every
 * `.part` edit is a parse + validate + partition over flat arrays. Everything the editor needs
 * from the text (diagnostics, completion, hover, the key under the cursor, click-to-assign edits,
 * the line deciding each operator) is computed here, never on the UI thread; so are the output
 * files and the value check. Loaded by `service.ts` on the first partition call.
 */
import { zipSync, type Zippable } from 'fflate';
import * as Comlink from 'comlink';
import type { ModelWorkerApi, PartitionFilesResult, PartitionPlanView, PartitionTextResult, PartitionVocabulary } from './api';
import { read } from '../core/circle/read';
import { serviceOf, type OpenedDocument } from '../core/document';
import { FormatError } from '../core/errors';
import type { PartitionService } from '../core/format';
import {
  allOpcodeNames, connFileName, hoverText, parsePart, partCompletions, partition, readIni, writePartition,
  type IniDocument, type ParsedPart, type PartitionPlan, type PreparedModel,
} from '../core/partition';
import { assignEdit, complyOf, completionsAt, decidingLines, keyAt } from '../core/partition/assist';
import { checkPartition, type CheckPart } from '../core/partition/check';

export type PartitionApi = Pick<
  ModelWorkerApi,
  'partitionText' | 'partitionHover' | 'partitionCompletions' | 'partitionKeyAt' | 'partitionAssignEdit' | 'partitionVocabulary' | 'partitionFiles' | 'checkPartition'
>;

interface State {
  service: PartitionService;
  prepared: PreparedModel;
  /** the last text parsed, with its result (hover and completion reuse it) */
  text: string | null;
  parsed: ParsedPart | null;
  plan: PartitionPlan | null;
  /** the last text read as INI only (completion and the cursor's key: no validation, no partition) */
  iniText: string | null;
  ini: IniDocument | null;
}

/** The plan in the columnar form the UI reads (see `PartitionPlanView`), and the buffers to transfer. */
function planView(plan: PartitionPlan, parsed: ParsedPart): { view: PartitionPlanView; transfer: ArrayBuffer[] } {
  const backendIndex = new Map(plan.backends.map((b, i) => [b, i] as const));
  const operatorBackend = new Int32Array(plan.operatorBackend.length);
  for (let i = 0; i < operatorBackend.length; i++) operatorBackend[i] = backendIndex.get(plan.operatorBackend[i]!) ?? -1;
  const P = plan.parts.length;
  const fileNames = new Array<string>(P);
  const partBackend = new Int32Array(P);
  const partOperatorCount = new Int32Array(P);
  const partInputStart = new Int32Array(P + 1);
  const partOutputStart = new Int32Array(P + 1);
  let ni = 0, no = 0;
  for (let i = 0; i < P; i++) {
    const p = plan.parts[i]!;
    ni += p.inputTensors.length;
    no += p.outputTensors.length;
    partInputStart[i + 1] = ni;
    partOutputStart[i + 1] = no;
  }
  const partInputs = new Int32Array(ni);
  const partOutputs = new Int32Array(no);
  const tensorNames: string[] = [];
  const compact = new Map<number, number>();
  const nameIndex = (t: number, name: string) => {
    let k = compact.get(t);
    if (k === undefined) {
      k = tensorNames.length;
      tensorNames.push(name);
      compact.set(t, k);
    }
    return k;
  };
  for (let i = 0; i < P; i++) {
    const p = plan.parts[i]!;
    fileNames[i] = p.fileName;
    partBackend[i] = backendIndex.get(p.backend) ?? -1;
    partOperatorCount[i] = p.operators.length;
    let k = partInputStart[i]!;
    for (let j = 0; j < p.inputTensors.length; j++) partInputs[k++] = nameIndex(p.inputTensors[j]!, p.inputs[j]!);
    k = partOutputStart[i]!;
    for (let j = 0; j < p.outputTensors.length; j++) partOutputs[k++] = nameIndex(p.outputTensors[j]!, p.outputs[j]!);
  }
  // a copy: the worker keeps its plan (hover, download, check) and the copy is transferred
  const operatorPart = plan.operatorPart.slice();
  const view: PartitionPlanView = {
    backends: plan.backends,
    defaultBackend: plan.defaultBackend,
    comply: parsed.table?.comply ?? 'opcode',
    fileNames, partBackend, partOperatorCount, partInputStart, partInputs, partOutputStart, partOutputs, tensorNames,
    operatorBackend,
    operatorPart,
    warnings: plan.warnings,
    connFile: connFileName(plan.sourceFile, 'json'),
  };
  const transfer = [operatorBackend, operatorPart, partBackend, partOperatorCount, partInputStart, partInputs, partOutputStart, partOutputs].map((a) => a.buffer as ArrayBuffer);
  return { view, transfer };
}

export function createPartitionService(doc: (docId: string) => OpenedDocument): { api: PartitionApi; forget(docId: string): void } {
  const states = new Map<string, State>();

  const state = (docId: string): State => {
    let s = states.get(docId);
    if (!s) {
      const service = serviceOf(doc(docId), 'partition');
      s = { service, prepared: service.prepared(), text: null, parsed: null, plan: null, iniText: null, ini: null };
      states.set(docId, s);
    }
    return s;
  };

  /** the INI reading of `text` (the full parse's when it is that text) */
  const iniOf = (s: State, text: string): IniDocument => {
    if (s.text === text && s.parsed) return s.parsed.document;
    if (s.iniText !== text || !s.ini) {
      s.ini = readIni(text);
      s.iniText = text;
    }
    return s.ini;
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
      const pv = plan ? planView(plan, parsed) : null;
      const operatorLines = decidingLines(s.prepared, parsed.document, complyOf(parsed));
      const result: PartitionTextResult = { diagnostics: parsed.diagnostics, plan: pv?.view ?? null, operatorLines, ms: performance.now() - t0 };
      // per-operator and per-part arrays move, they are not copied
      return Comlink.transfer(result, [...(pv?.transfer ?? []), operatorLines.buffer as ArrayBuffer]);
    },
    async partitionHover(docId, text, line, column) {
      const s = state(docId);
      const { parsed } = update(s, text);
      return hoverText(s.prepared, parsed, line, column);
    },
    async partitionCompletions(docId, text, line, column) {
      const s = state(docId);
      return completionsAt(s.prepared, text, iniOf(s, text), line, column);
    },
    async partitionKeyAt(_docId, text, line) {
      return keyAt(text, line);
    },
    async partitionAssignEdit(_docId, text, section, key, value) {
      return assignEdit(text, section, key, value);
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
      if (!plan) throw new FormatError({ kind: 'semantic', file: partFileName, message: 'the .part text has errors: fix them to download the parts' });
      const out = writePartition(s.prepared, plan, { sourceBytes: s.service.source.bytes });
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
      if (!plan) throw new FormatError({ kind: 'semantic', file: 'the .part text', message: 'it has errors: fix them to run the check' });
      const out = writePartition(s.prepared, plan, { sourceBytes: s.service.source.bytes });
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

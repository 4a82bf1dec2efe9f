/**
 * Partitioning of circle models across backends (circle-partitioner, partitioner.md):
 * `.part` reader with diagnostics, grouping/merge/cleanup, part models, conn files.
 *
 * Typical use (worker or CLI):
 *   const prepared = preparePartition(model, 'Net.circle');   // once per model
 *   const parsed = parsePart(text, 'Net.part', { model: prepared });
 *   if (parsed.table) { const plan = partition(prepared, parsed.table); ... }
 */
export { readIni, unescapeKey, escapeKey, MAX_DIAGNOSTICS, type IniDocument, type IniEntry, type IniSection, type PartDiagnostic } from './ini';
export {
  parsePart,
  backendOfOperator,
  keyCapture,
  entryAt,
  hoverText,
  partCompletions,
  isOpcodeName,
  allOpcodeNames,
  PARTITION_SECTION,
  OPCODE_SECTION,
  OPNAME_SECTION,
  DEFAULT_KEY,
  type PartitionTable,
  type ParsedPart,
  type PartOverrides,
  type Comply,
  type KeyCapture,
  type PartCompletions,
} from './table';
export { preparePartition, type PreparedModel } from './prepare';
export { partition, partFileName, connFileName, type PartitionPlan, type PartPlan } from './algorithm';
export { buildPartModel, partOperatorOrder, sourceOrigins, SOURCE_TABLE_NAME, OP_TABLE_NAME, type PartModelOptions, type SourceOrigins } from './modules';
export { connJson, connIni, readConnJson, type ConnInfo } from './conn';
export { writePartition, type PartitionOutput, type PartitionFile } from './output';

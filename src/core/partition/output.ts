/**
 * All output files of a partition, as circle-partitioner writes them into its work folder:
 * `NAME.00001_<backend>.circle` ..., `NAME.conn.json`, `NAME.conn.ini` (in that order).
 */
import { write } from '../circle/write';
import type { PartitionPlan } from './algorithm';
import { connFileName } from './algorithm';
import { connIni, connJson } from './conn';
import { buildPartModel, type PartModelOptions } from './modules';
import type { PreparedModel } from './prepare';

export interface PartitionFile {
  name: string;
  bytes: Uint8Array;
}

export interface PartitionOutput {
  files: PartitionFile[];
}

export interface WritePartitionOptions extends PartModelOptions {
  /** bytes of the source file (needed when its buffers are external: extended-buffer files) */
  sourceBytes?: Uint8Array;
}

export function writePartition(prepared: PreparedModel, plan: PartitionPlan, options: WritePartitionOptions = {}): PartitionOutput {
  const files: PartitionFile[] = [];
  const enc = new TextEncoder();
  for (const part of plan.parts) {
    const model = buildPartModel(prepared, plan, part.index, options);
    files.push({ name: part.fileName, bytes: write(model, options.sourceBytes ? { sourceBytes: options.sourceBytes } : {}) });
  }
  files.push({ name: connFileName(plan.sourceFile, 'json'), bytes: enc.encode(connJson(plan)) });
  files.push({ name: connFileName(plan.sourceFile, 'ini'), bytes: enc.encode(connIni(plan)) });
  return { files };
}

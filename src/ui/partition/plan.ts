/** Reading the columnar `PartitionPlanView` (worker/api.ts) part by part. */
import type { PartitionPlanView } from '../../worker/api';

export function partCount(plan: PartitionPlanView): number {
  return plan.fileNames.length;
}

/** `00001`, `00002`, ... for part `i` (0-based, output order) */
export function partNumber(i: number): string {
  return String(i + 1).padStart(5, '0');
}

export function partBackend(plan: PartitionPlanView, i: number): string {
  return plan.backends[plan.partBackend[i] ?? -1] ?? '';
}

function names(list: Int32Array, start: Int32Array, i: number, all: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = start[i]!; k < start[i + 1]!; k++) out.push(all[list[k]!]!);
  return out;
}

/** the input tensor names of part `i`, as `.conn.json` lists them */
export function partInputs(plan: PartitionPlanView, i: number): string[] {
  return names(plan.partInputs, plan.partInputStart, i, plan.tensorNames);
}

/** the output tensor names of part `i`, as `.conn.json` lists them */
export function partOutputs(plan: PartitionPlanView, i: number): string[] {
  return names(plan.partOutputs, plan.partOutputStart, i, plan.tensorNames);
}

/**
 * The DLA configuration a loadable was compiled for. The loadable does not name it, but the
 * weight layout (atomic C / K) and the feature data atom (32 bytes on nv_full and nv_large, 8 on
 * nv_small) depend on it (notes/nvdla.md section 6, nvdla/hw `cmod/include/nvdla_config*.h`), so
 * it is inferred: nv_small writes FEATURE_X8 tensors and INT8_8 EMU buffers and strides that are
 * multiples of 8 but not 32; anything else reads as nv_full. A caller may say which instead.
 */
import type { DecodedLoadable } from '../loadable/tasks';
import { member, valueOf } from '../loadable/structs';

export type DlaConfigName = 'nv_full' | 'nv_large' | 'nv_small';

export interface DlaHardware {
  name: DlaConfigName;
  /** channels per MAC atom (weights are grouped by it) */
  atomicC: number;
  /** kernels per group for int8 (half for int16 / fp16) */
  atomicK: number;
  /** bytes of a feature data atom in memory (32 or 8) */
  atomBytes: number;
}

export const DLA_CONFIGS: Record<DlaConfigName, DlaHardware> = {
  nv_full: { name: 'nv_full', atomicC: 64, atomicK: 32, atomBytes: 32 },
  nv_large: { name: 'nv_large', atomicC: 64, atomicK: 32, atomBytes: 32 },
  nv_small: { name: 'nv_small', atomicC: 8, atomicK: 8, atomBytes: 8 },
};

const FEATURE_X8 = 37;

/** The configuration, and the sentence saying how it was chosen. */
export function inferHardware(d: DecodedLoadable): { hardware: DlaHardware; reason: string } {
  if (d.loadable.tensor_desc_list.some((t) => t.pixel_format === FEATURE_X8)) {
    return { hardware: DLA_CONFIGS.nv_small, reason: 'a tensor descriptor uses FEATURE_X8 (8-byte atoms): nv_small' };
  }
  let strides = 0;
  let notMultipleOf32 = 0;
  for (const t of d.tasks) {
    if (t.kind === 'EMU') {
      for (const o of t.ops) {
        const f = o.buffers && valueOf(o.buffers, 'src_data.format');
        if (f === 1) return { hardware: DLA_CONFIGS.nv_small, reason: `task ${t.index} EMU op ${o.slot} reads INT8_8 buffers (8-byte atoms): nv_small` };
      }
    }
    if (t.kind !== 'DLA') continue;
    for (const s of t.slots) {
      if (!s.surface) continue;
      for (const name of ['src_data', 'dst_data']) {
        const c = member(s.surface, name);
        if (!c?.fields) continue;
        const type = valueOf(c, 'type');
        const size = valueOf(c, 'size') ?? 0;
        const line = valueOf(c, 'line_stride') ?? 0;
        if (type === 2 || size === 0 || line === 0) continue;
        // image inputs have their own line alignment; only feature cubes say the atom size
        if (s.opType === 1 && name === 'src_data' && s.op && valueOf(s.op, 'data_format') !== 36) continue;
        strides++;
        if (line % 32 !== 0) notMultipleOf32++;
      }
    }
  }
  if (strides > 0 && notMultipleOf32 > 0) {
    return { hardware: DLA_CONFIGS.nv_small, reason: `${notMultipleOf32} of ${strides} feature line strides are not multiples of 32 bytes: nv_small (8-byte atoms)` };
  }
  return { hardware: DLA_CONFIGS.nv_full, reason: 'feature data in 32-byte atoms: nv_full (nv_large computes the same)' };
}

import type { Kernels } from '../kernels/kernels';
import type { Loadable } from '../loadable/model';
import type { DecodedLoadable } from '../loadable/tasks';
import type { DlaHardware } from './hardware';

/**
 * What runs of the same loadable can share (a service keeps one): the decoded tasks, the
 * configuration, the pristine images of SET memory (weights, descriptors: read in place, copied
 * only when an op writes them) and the weights already decoded from them.
 */
export class DlaRunCache {
  decoded: DecodedLoadable | null = null;
  inferred: { hardware: DlaHardware; reason: string } | null = null;
  readonly images = new Map<number, Uint8Array>();
  /** decoded weights (K x C x R x S) by memory, offset and geometry */
  readonly weights = new Map<string, Float32Array>();
  /** weights in the float kernels' memory, for the kernels they were allocated with */
  kernels: Kernels | null = null;
  readonly kernelWeights = new Map<string, Float32Array>();
  constructor(readonly loadable: Loadable) {}
}


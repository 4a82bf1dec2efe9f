/**
 * Which Caffe layers an op slot computes: through the origins our compiler records on every
 * engine node (core/origin ids = Caffe layer indexes, unioned when nodes fuse), from the compile
 * that wrote the loadable. A loadable that nvdla_compiler wrote has no origins; our compiler
 * reproduces nvdla_compiler's loadables op slot for op slot, so compiling the same net with the
 * same options gives its mapping too (`matchCompile` finds the options).
 *
 * The layer a slot's output is compared with is the last of its origins in net order (an SDP that
 * fused ip1 and relu1 writes relu1's output). CONV slots are not compared: their output is the
 * accumulator stream before the bias and activation the SDP adds.
 */
import type { Loadable } from '../loadable/model';
import { read } from '../loadable/read';
import { decodeTasks } from '../loadable/tasks';
import { compileNvdla, type NvdlaCompileResult } from '../nvdla/compile';
import type { CaffeDeploy, CaffeWeights } from '../nvdla/network/caffe-input';
import type { NvdlaCompileOptions } from '../nvdla/options';
import type { CalibrationTable } from '../nvdla/calibrate/table';

export interface SlotLayers {
  task: number;
  slot: number;
  /** batch item this slot computes */
  batch: number;
  /** the engine node's name (`bias-0`, `pdp-1`, `cpu-sm-0`) */
  node: string;
  /** every Caffe layer in the slot's origins, in net order */
  layers: string[];
  /** the layer whose output the slot's output is compared with; null for CONV slots */
  compareWith: string | null;
  /**
   * the scale the compiler gave the slot's output tensor (int8: its integers times this are its
   * floats); null for fp16 or when the compile has none
   */
  tensorScale: number | null;
  /**
   * an output surface with gap channels (a channel concat whose inputs start on channel groups,
   * and the poolings reading it): per channel of the Caffe layer, its channel in the surface
   */
  channelPlaces?: number[];
}

/** The mapping of a compile's final engine graph. */
export function slotLayersOf(result: NvdlaCompileResult): SlotLayers[] {
  const graph = result.passes.at(-1)?.graph;
  const network = result.network;
  if (!graph || !network || !result.loadable) return [];
  const names = new Map(network.sources.map((s) => [s.id, s.name]));
  const edges = new Map(graph.edges.map((e) => [e.id, e]));
  const int8 = result.resolved?.profile.computePrecision === 'INT8';
  const out: SlotLayers[] = [];
  for (const n of graph.nodes) {
    if (n.taskId < 0) continue;
    const ids = [...n.origins].sort((a, b) => a - b);
    const layers = ids.map((id) => names.get(id) ?? `#${id}`);
    const scales = n.outputEdges.map((id) => edges.get(id)?.tensor?.channelScales ?? []).find((x) => x.length > 0) ?? [];
    const tensorScale = int8 && scales.length ? scales[0]! : null;
    let channelPlaces = n.outputEdges.map((id) => edges.get(id)?.tensor?.channelPlaces).find((x) => x !== undefined);
    // a deconvolution's Rubik contract writes its channels rounded up to the channel group: the layer's are the first ones
    const written = n.params.kind === 'rubik' && n.params.mode === 'CONTRACT' ? n.params.contract.outDims.c : 0;
    const channels = n.outputEdges.length ? (edges.get(n.outputEdges[0]!)?.tensor?.dims.c ?? 0) : 0;
    if (!channelPlaces && channels > 0 && written > channels) channelPlaces = Array.from({ length: channels }, (_, c) => c);
    n.dependency.forEach((d, batch) => {
      if (d.slot < 0) return;
      out.push({ task: n.taskId, slot: d.slot, batch, node: n.name, layers, compareWith: n.engineType === 'CONVOLUTION' || !layers.length ? null : layers[layers.length - 1]!, tensorScale, ...(channelPlaces ? { channelPlaces } : {}) });
    });
  }
  return out.sort((a, b) => a.task - b.task || a.slot - b.slot);
}

/** Per task, the engine of each op slot (DLA) or op (EMU): the shape two loadables must share to have the same slots. */
export function slotShape(l: Loadable): string[] {
  return decodeTasks(l).tasks.map((t) => (t.kind === 'DLA' ? t.slots.map((s) => s.engine).join(',') : t.kind === 'EMU' ? t.ops.map((o) => `EMU ${o.opName}`).join(',') : 'other'));
}

export interface MatchedCompile {
  options: Partial<NvdlaCompileOptions>;
  result: NvdlaCompileResult;
  mapping: SlotLayers[];
}

/**
 * Compiles the net with each configuration and profile (precision from the loadable's input
 * tensor) until one gives the loadable's op slots; null when none does.
 */
export function matchCompile(l: Loadable, deploy: CaffeDeploy, weights: CaffeWeights, calibtable?: CalibrationTable): MatchedCompile | null {
  const want = slotShape(l).join('|');
  const input = l.tensor_desc_list.find((t) => l.memory_list[t.mem_id] && (l.memory_list[t.mem_id]!.flags & 4) !== 0) ?? l.tensor_desc_list[0];
  const cprecision = input && input.data_type === 2 ? 'fp16' : 'int8';
  const small = l.tensor_desc_list.some((t) => t.pixel_format === 37);
  const targets = small ? (['nv_small'] as const) : (['nv_full', 'nv_large'] as const);
  for (const configtarget of targets)
    for (const profile of ['fast-math', 'basic', 'default'] as const) {
      const options: Partial<NvdlaCompileOptions> = { configtarget, cprecision, profile, ...(calibtable ? { calibtable } : {}) };
      const result = compileNvdla(deploy, weights, options);
      if (!result.bytes || !result.loadable) continue;
      if (slotShape(read(result.bytes, 'compiled.nvdla')).join('|') === want) return { options, result, mapping: slotLayersOf(result) };
    }
  return null;
}

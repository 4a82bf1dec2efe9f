/** NVDLA loadables: read, decode, map, dump, compare, write (notes/nvdla.md sections 2-5, 13, 16). */
// (the document, `./document.ts`, is not re-exported: the registry loads it lazily through `./format.ts`)
export { detect, read, LOADABLE_IDENTIFIER } from './read';
export { write } from './write';
export { decodeTasks, allOps, allDescriptors } from './tasks';
export type { DecodedLoadable, DecodedTask, DlaTask, EmuTask, OpSlot, EmuOp, SurfaceUse, Location } from './tasks';
export { slotGraph } from './slot-graph';
export { memoryMap } from './memory-map';
export type { MemoryArea, MemoryRegion } from './memory-map';
export { inspectJson, dumpText, inspectLoadable, dumpLoadable } from './inspect';
export type { InspectLoadableJson } from './inspect';
export { diffLoadables, diffText } from './diff';
export type { LoadableDiff, SectionDiff, Difference } from './diff';
export { toGraph, ENGINE_CATEGORY, SLOT_GRAPH_ID } from './graph';
export { nvdlaFormat } from './format';
export type { Loadable, Damage } from './model';

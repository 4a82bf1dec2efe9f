/** Origin-preserving circle optimizer: passes (one file each), the ordered pipeline, `optimize`. */
export { optimize, UnknownPassError, type OptimizeResult, type OptimizeOptions, type PassLog } from './optimize';
export { PIPELINE, PASS_NAMES, passByName } from './pipeline';
export { removeDeadItems, type CleanupCounts } from './cleanup';
export type { Pass } from './pass';
export { GraphEditor, workModel, type WorkModel } from './editor';

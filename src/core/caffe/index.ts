/**
 * Caffe: the face other parts of the studio use (see docs/ARCHITECTURE.md, "Caffe models"). The
 * document (`./document.ts`) is not re-exported: the registry loads it lazily through `./format.ts`.
 */
export { caffeFormat } from './format';
export type { CaffeDocument, CaffeTensorDetails } from './document';
export { detectCaffe, openCaffeModel, isCaffemodelName } from './model';
export type { CaffeModel, CaffeOpenOptions, CaffeSourceFile } from './model';
export { readPrototxt, readCaffemodel, readSolver, readNetMessage } from './read';
export type { CaffeFile, CaffeSolver } from './read';
export { upgradeNet, detectVersion } from './upgrade';
export type { CaffeVersion, SourceLocation, UpgradeStep } from './upgrade';
export { filterNet, stateMeetsRule } from './phase';
export type { Phase, NetState } from './phase';
export { buildNet, parameterCount, layerTypeCounts, activationBytes } from './net';
export type { CaffeNet, NetLayer, NetBlob, WeightBlob } from './net';
export { mergeWeights, layersWithoutWeights } from './merge';
export type { MergeReport, MergeRow } from './merge';
export { printTextProto } from './print';
export { sniffCaffe } from './sniff';
export { generateCaffemodel } from './random-weights';
export { imageToBlob, randomBlob, transformDefaults } from './input';
export type { RgbaImage, ImageTransform, ColorOrder } from './input';
export { readNpy, writeNpy, readNpz, writeNpz } from './npy';
export { inspectCaffe } from './inspect';
export type { CaffeInspectJson } from './inspect';
export { runForward, runProblems, topK } from './forward/run';
export type { RunOptions, RunResult, RunProgress, LayerRunStats } from './forward/run';
export { referenceKernels } from './forward/heavy';
export type { CaffeKernels, Conv2dParams, InnerProductParams } from './forward/heavy';
export { GRAPH_FOLDED, GRAPH_LAYERS } from './graph';
export { caffeRunService, feedInputs, runPlan, sliceOf } from './run-service';

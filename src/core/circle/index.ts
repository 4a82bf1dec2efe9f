/** The face of the circle format (DESIGN.md: one format = one folder with the same face). */
export { detect, read, resolveOpcode, CIRCLE_IDENTIFIER, TFLITE_IDENTIFIER } from './read';
export { write, encodeOpcode, type WriteOptions } from './write';
export { toGraph, summarize, graphStats, graphId, subgraphName, bufferHasData, bufferSize, metadataPreview, optionAttributes } from './graph';
export { tensorDetails, type TensorDetails, type TensorValues, type TensorQuantization } from './values';
export { builtinOperatorName, tensorTypeName, dtypeName, tensorTypeString, enumValueName, operatorType } from './names';
export { operatorCategory } from './categories';
export type * from './model';

/** ONE recipe (tflchef text format) -> CircleModel. */
export { buildFromRecipe, cookRecipe, CHEF_DESCRIPTION, CHEF_MODEL_VERSION } from './build';
export { OPS, CUSTOM_TYPES, suggestOpType, type OpSpec } from './ops';
export { fillTensor, gaussianSamples, MAX_FILL_BYTES } from './fill';
export { tflchefRoot, recipeType } from './schema';

/** tflchef.proto reflection, loaded from the committed JSON descriptor (scripts/gen-proto.mjs). */
import protobuf from 'protobufjs/light.js';
import descriptor from './generated/tflchef.json';

let root: protobuf.Root | null = null;

export function tflchefRoot(): protobuf.Root {
  if (!root) {
    root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
    root.resolveAll();
  }
  return root;
}

export function recipeType(): protobuf.Type {
  return tflchefRoot().lookupType('tflchef.ModelRecipe');
}

/** caffe.proto reflection, loaded from the committed JSON descriptor (scripts/gen-proto.mjs). */
import protobuf from 'protobufjs/light.js';
import descriptor from './generated/caffe.json';

let root: protobuf.Root | null = null;

export function caffeRoot(): protobuf.Root {
  if (!root) {
    root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
    root.resolveAll();
  }
  return root;
}

const typeCache = new Map<string, protobuf.Type>();

/** `caffeType('NetParameter')` -> caffe.NetParameter */
export function caffeType(name: string): protobuf.Type {
  let t = typeCache.get(name);
  if (!t) {
    t = caffeRoot().lookupType(`caffe.${name}`);
    typeCache.set(name, t);
  }
  return t;
}

/** The message type of a message-typed field, or null for scalars and enums. */
export function messageTypeOf(field: protobuf.Field): protobuf.Type | null {
  const r = field.resolvedType;
  return r !== null && 'fields' in r ? (r as protobuf.Type) : null;
}

/** The enum of an enum-typed field, or null. */
export function enumOf(field: protobuf.Field): protobuf.Enum | null {
  const r = field.resolvedType;
  return r !== null && !('fields' in r) ? (r as protobuf.Enum) : null;
}

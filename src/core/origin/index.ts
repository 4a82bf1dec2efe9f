/** Origins (luci-profile): table codecs, the origin model, the origin rules, related-op indexes. */
export {
  SOURCE_TABLE_NAME,
  OP_TABLE_NAME,
  decodeSourceTable,
  decodeOpTable,
  encodeSourceTable,
  encodeOpTable,
  checkOpTable,
  type SourceTable,
  type OpTable,
  type Decoded,
} from './tables';
export { type OriginSet, NO_ORIGIN, normalize, singleOrigin, compositeOrigin, absorb, fuse, replace, originUnion } from './rules';
export {
  type Origins,
  type OriginsJson,
  originsOf,
  synthesiseOrigins,
  attachOrigins,
  detachOrigins,
  hasOriginTables,
  operatorName,
  sourceName,
  originsJson,
} from './origins';
export { type OriginIndex, type RelatedOps, originIndex, relatedOps, relatedTo } from './related';
export { referencedBuffers, removeBuffers } from './buffers';

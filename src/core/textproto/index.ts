export { parseTextProto, fieldValue } from './parse';
export type { TextMessage, TextValue, TextScalar, TextPosition, MessagePositions, TextProtoResult, TextProtoOptions } from './parse';

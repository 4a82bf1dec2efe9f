/**
 * Reading Caffe files: `.prototxt` (protobuf text) and `.caffemodel` (protobuf binary), both
 * upgraded to V2 in memory (upgrade.ts). Text errors carry line:column, binary errors the byte
 * offset; unknown text fields are errors, as in Caffe's own TextFormat parse.
 */
import { FormatError, type Diagnostic } from '../errors';
import { parseTextProto } from '../textproto';
import { fromText, messages, type ProtoMessage } from './proto';
import { caffeType } from './schema';
import { looksBinary } from './sniff';
import { upgradeNet, type CaffeVersion, type SourceLocation, type UpgradeStep } from './upgrade';
import { unpackSkeleton } from './skeleton';
import { decodeBinary } from './wire';

/**
 * A net file as written, not upgraded: what nvdla_compiler's parser reads (it takes the V2
 * `layer` entries of the deploy and the `layer` or V1 `layers` entries of the weights as they
 * are, with no UpgradeNetAsNeeded).
 */
export interface CaffeNetAsWritten {
  file: string;
  encoding: 'text' | 'binary';
  /** the net as read, before upgrading */
  original: ProtoMessage;
  /** where each entry of `original.layer` / `original.layers` was written */
  originalSources: { layer: SourceLocation[]; layers: SourceLocation[] };
  diagnostics: Diagnostic[];
}

export interface CaffeFile extends CaffeNetAsWritten {
  /** format of the file as written */
  version: CaffeVersion;
  /** the upgraded V2 NetParameter */
  net: ProtoMessage;
  /** where each layer of `net.layer` was written */
  layerSources: SourceLocation[];
  steps: UpgradeStep[];
}

const utf8 = new TextDecoder('utf-8');

export function decodeText(bytes: Uint8Array | string, file: string): string {
  const text = typeof bytes === 'string' ? bytes : utf8.decode(bytes);
  if (text.trim().length === 0) throw new FormatError({ kind: 'empty', file, message: 'the file is empty (nothing but white space)' });
  return text;
}

/** A `.prototxt` as written (no upgrade): line:column of every layer entry. */
export function parsePrototxt(bytes: Uint8Array | string, file: string): CaffeNetAsWritten & { inputSource: SourceLocation } {
  if (typeof bytes !== 'string' && looksBinary(bytes)) {
    throw new FormatError({ kind: 'unsupported', file, offset: 0, message: 'this looks like a binary file (control characters in its first 256 bytes), not a protobuf text .prototxt; a binary net is a .caffemodel' });
  }
  const text = decodeText(bytes, file);
  const parsed = parseTextProto(text, caffeType('NetParameter'), file, { positions: true });
  const net = fromText(parsed.message);
  const at = (o: object | undefined): SourceLocation => {
    const p = o ? parsed.positions.get(o) : undefined;
    return p ? { line: p.line, column: p.column } : {};
  };
  const inputPos = parsed.positions.get(parsed.message)?.fields.input?.[0];
  return {
    file,
    encoding: 'text',
    original: net,
    originalSources: { layer: messages(net, 'layer').map(at), layers: messages(net, 'layers').map(at) },
    inputSource: inputPos ? { line: inputPos.line, column: inputPos.column } : {},
    diagnostics: parsed.diagnostics,
  };
}

export function readPrototxt(bytes: Uint8Array | string, file: string): CaffeFile {
  const { inputSource, ...parsed } = parsePrototxt(bytes, file);
  const sources = parsed.originalSources;
  const up = upgradeNet(parsed.original, file, { layerSources: sources, inputSource, netSource: sources.layers[0] ?? sources.layer[0] ?? {} });
  return { ...parsed, version: up.version, net: up.net, layerSources: up.layerSources, steps: up.steps, diagnostics: [...parsed.diagnostics, ...up.diagnostics] };
}

/**
 * A `.caffemodel` as written (no upgrade): byte offset of every layer entry; blob values stay
 * views into `bytes`. `skeleton`: `bytes` is a packed skeleton of the file (skeleton.ts, made by
 * the worker from a large file): the structure without the blob values, which are then absent.
 */
export function parseCaffemodel(bytes: Uint8Array, file: string, options: { skeleton?: boolean } = {}): CaffeNetAsWritten {
  if (bytes.length === 0) throw new FormatError({ kind: 'empty', file, message: 'the file is empty' });
  const skeleton = options.skeleton ? unpackSkeleton(bytes) : null;
  if (options.skeleton && !skeleton) throw new FormatError({ kind: 'internal', file, message: 'the skeleton of the file is damaged (a bug in NPU Studio)' });
  const decoded = decodeBinary(bytes, file, 'NetParameter', skeleton ? { skeleton } : {});
  const off = (o: number): SourceLocation => ({ offset: o });
  return {
    file,
    encoding: 'binary',
    original: decoded.message,
    originalSources: { layer: decoded.layerOffsets.layer.map(off), layers: decoded.layerOffsets.layers.map(off) },
    diagnostics: decoded.diagnostics,
  };
}

/** A `.caffemodel`, upgraded to V2 (see `parseCaffemodel`). */
export function readCaffemodel(bytes: Uint8Array, file: string, options: { skeleton?: boolean } = {}): CaffeFile {
  const parsed = parseCaffemodel(bytes, file, options);
  const sources = parsed.originalSources;
  const up = upgradeNet(parsed.original, file, { layerSources: sources, netSource: sources.layers[0] ?? { offset: 0 } });
  return { ...parsed, version: up.version, net: up.net, layerSources: up.layerSources, steps: up.steps, diagnostics: [...parsed.diagnostics, ...up.diagnostics] };
}

/** A NetParameter already parsed (e.g. a solver's inline net_param), upgraded like a file. */
export function readNetMessage(net: ProtoMessage, file: string): CaffeFile {
  const up = upgradeNet(net, file);
  return { file, encoding: 'text', version: up.version, original: net, originalSources: { layer: [], layers: [] }, net: up.net, layerSources: up.layerSources, steps: up.steps, diagnostics: up.diagnostics };
}

/** A solver file (SolverParameter) and the net it names. */
export interface CaffeSolver {
  file: string;
  solver: ProtoMessage;
  /** `net` or `train_net` path as written, if any */
  netPath: string | null;
  /** an inline `net_param` / `train_net_param` */
  inlineNet: ProtoMessage | null;
}

export function readSolver(bytes: Uint8Array | string, file: string): CaffeSolver {
  const text = decodeText(bytes, file);
  const parsed = parseTextProto(text, caffeType('SolverParameter'), file);
  const s = fromText(parsed.message);
  const netPath = typeof s.net === 'string' ? s.net : typeof s.train_net === 'string' ? s.train_net : null;
  const inline = (s.net_param ?? s.train_net_param) as ProtoMessage | undefined;
  return { file, solver: s, netPath, inlineNet: inline ?? null };
}

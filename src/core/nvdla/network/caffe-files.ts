/**
 * Reading the two Caffe files for the NVDLA network builder: the deploy `.prototxt` through
 * core/textproto (line:column on errors and on every layer), the `.caffemodel` through protobufjs
 * reflection over caffe.proto. Both give plain `NetParameter` objects as they are written: no
 * V0/V1 upgrade, since nvdla_compiler's parser reads the files as they are.
 *
 * This adapter stands in for core/caffe's reader until it is merged; the network builder only
 * sees `CaffeDeploy` / `CaffeWeights`.
 */
import protobuf from 'protobufjs/light.js';
import descriptor from '../../caffe/generated/caffe.json';
import { FormatError } from '../../errors';
import { parseTextProto, type TextMessage } from '../../textproto';
import type { CaffeDeploy, CaffeMessage, CaffeWeights, LayerSource } from './caffe-input';

let netType: protobuf.Type | null = null;

function netParameterType(): protobuf.Type {
  if (!netType) {
    const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
    root.resolveAll();
    netType = root.lookupType('caffe.NetParameter');
  }
  return netType;
}

export function readDeploy(text: string, file: string): CaffeDeploy {
  if (text.trim().length === 0) throw new FormatError({ kind: 'empty', file, message: 'the prototxt is empty' });
  const parsed = parseTextProto(text, netParameterType(), file, { positions: true });
  const net = parsed.message;
  const layers = net.layer;
  const layerSources: LayerSource[] = [];
  if (Array.isArray(layers)) {
    for (const l of layers as TextMessage[]) {
      const p = parsed.positions.get(l);
      layerSources.push(p ? { line: p.line, column: p.column } : {});
    }
  }
  return { file, net: net as CaffeMessage, layerSources };
}

export function readWeights(bytes: Uint8Array, file: string): CaffeWeights {
  if (bytes.length === 0) throw new FormatError({ kind: 'empty', file, message: 'the caffemodel is empty' });
  const type = netParameterType();
  let message: protobuf.Message;
  try {
    message = type.decode(bytes);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const m = /index out of range: (\d+)/.exec(text);
    throw new FormatError({
      kind: m ? 'truncated' : 'corrupt',
      file,
      ...(m ? { offset: Number(m[1]) } : {}),
      message: `the caffemodel is not a valid binary NetParameter (${text})`,
    });
  }
  const net = type.toObject(message, { enums: String, longs: Number, arrays: false, defaults: false }) as CaffeMessage;
  return { file, net };
}

/**
 * The two Caffe files as the NVDLA network builder takes them, read by core/caffe (the studio's
 * Caffe format folder): the deploy `.prototxt` through its text reader (line:column on errors and
 * on every layer), the `.caffemodel` through its wire decoder (byte offsets on errors; blob values
 * stay float32 views into the file, nothing is copied to read it).
 *
 * Both are the nets as written (`CaffeNetAsWritten.original`), never upgraded: nvdla_compiler's
 * parser (umd/core/src/compiler/caffe/CaffeParser.cpp) runs no UpgradeNetAsNeeded; it reads the
 * deploy's V2 `layer` entries and legacy `input` / `input_dim` / `input_shape` fields, and finds
 * weights by layer name in the caffemodel's `layer` entries or, when it has none, its V1 `layers`
 * (the builder, build.ts, does both). A V0/V1 deploy therefore has no layers for it, as upstream.
 *
 * In the worker the document has read both files already (core/caffe/model.ts): `deployOf` and
 * `weightsOf` take its `CaffeFile`s as they are, so a compile parses nothing again.
 */
import { parseCaffemodel, parsePrototxt, type CaffeNetAsWritten } from '../../caffe/read';
import type { CaffeDeploy, CaffeMessage, CaffeWeights, LayerSource } from './caffe-input';

/** The deploy net of a read prototxt, with where each `layer` entry was written. */
export function deployOf(file: CaffeNetAsWritten): CaffeDeploy {
  const layerSources: LayerSource[] = file.originalSources.layer.map((s) => (s.line !== undefined ? { line: s.line, ...(s.column !== undefined ? { column: s.column } : {}) } : {}));
  return { file: file.file, net: file.original as CaffeMessage, layerSources };
}

/** The weights net of a read caffemodel. */
export function weightsOf(file: CaffeNetAsWritten): CaffeWeights {
  return { file: file.file, net: file.original as CaffeMessage };
}

export function readDeploy(text: string, file: string): CaffeDeploy {
  return deployOf(parsePrototxt(text, file));
}

export function readWeights(bytes: Uint8Array, file: string): CaffeWeights {
  return weightsOf(parseCaffemodel(bytes, file));
}

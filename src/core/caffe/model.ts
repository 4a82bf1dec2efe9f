/**
 * A Caffe model as the studio opens it: a deploy net (prototxt) with optional trained weights
 * (caffemodel), or a caffemodel alone (its embedded net), or a solver naming its net; upgraded,
 * filtered for a phase, built with shapes at a chosen batch, and merged with the weights.
 */
import { FormatError, type Diagnostic } from '../errors';
import { transformDefaults } from './input';
import { checkEmbeddedWeights, mergeWeights, type MergeReport } from './merge';
import { buildNet, type CaffeNet } from './net';
import { filterNet, hasPhaseRules, type Phase } from './phase';
import { readCaffemodel, readNetMessage, readPrototxt, readSolver, type CaffeFile } from './read';
import { isCaffemodelName, looksBinary, sniffCaffe } from './sniff';

export { detectCaffe, isCaffemodelName } from './sniff';
import type { UpgradeStep } from './upgrade';

export interface CaffeSourceFile {
  name: string;
  bytes: Uint8Array;
  /** `bytes` is the packed skeleton of a large caffemodel (skeleton.ts), not the file */
  skeleton?: boolean;
}

export interface CaffeOpenOptions {
  /** default TEST */
  phase?: Phase;
  /** replaces the first dimension of every Input shape */
  batch?: number;
}

export interface CaffeModel {
  /** the net file (prototxt, or the caffemodel when opened alone) */
  netFile: CaffeFile;
  /** the weights file merged into it, if any */
  weightsFile: CaffeFile | null;
  /** a solver the net was found through */
  solverFile: string | null;
  phase: Phase;
  /** whether the phase changes the net (some layer has include/exclude rules) */
  phaseMatters: boolean;
  /** layers left out by the phase */
  excluded: string[];
  batch: number | null;
  net: CaffeNet;
  merge: MergeReport | null;
  /** image transform defaults from a train_test net's transform_param */
  transform: ReturnType<typeof transformDefaults>;
  steps: UpgradeStep[];
  diagnostics: Diagnostic[];
}

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 ? path.slice(i + 1) : path;
}

export function openCaffeModel(files: CaffeSourceFile[], options: CaffeOpenOptions = {}): CaffeModel {
  if (files.length === 0) throw new FormatError({ kind: 'empty', file: '(none)', message: 'no file was given' });
  const phase = options.phase ?? 'TEST';
  const main = files[0]!;
  const diagnostics: Diagnostic[] = [];
  const binaries = files.filter((f) => isCaffemodelName(f.name) || looksBinary(f.bytes));
  const texts = files.filter((f) => !binaries.includes(f));
  let netFile: CaffeFile;
  let weightsFile: CaffeFile | null = null;
  let solverFile: string | null = null;
  let transformSource: CaffeFile | null = null;
  const mainIsBinary = binaries.includes(main);
  if (mainIsBinary && texts.length === 0) {
    netFile = readCaffemodel(main.bytes, main.name, { skeleton: main.skeleton === true });
  } else {
    let deploy = mainIsBinary ? texts[0]! : main;
    let inline: CaffeFile | null = null;
    if (sniffCaffe(deploy.bytes) === 'solver') {
      const s = readSolver(deploy.bytes, deploy.name);
      solverFile = deploy.name;
      if (s.netPath) {
        const want = baseName(s.netPath);
        const found = files.find((f) => f !== deploy && baseName(f.name) === want);
        if (!found) throw new FormatError({ kind: 'unsupported', file: deploy.name, message: `this is a solver file; its net '${s.netPath}' was not among the files opened (open ${want} with it)` });
        deploy = found;
      } else if (s.inlineNet) {
        inline = readNetMessage(s.inlineNet, deploy.name);
      } else {
        throw new FormatError({ kind: 'unsupported', file: deploy.name, message: 'this is a solver file without a net, train_net or net_param' });
      }
    }
    netFile = inline ?? readPrototxt(deploy.bytes, deploy.name);
    const weights = mainIsBinary ? main : binaries[0];
    if (weights) weightsFile = readCaffemodel(weights.bytes, weights.name, { skeleton: weights.skeleton === true });
    // a second text net (e.g. train_test beside a deploy) supplies transform defaults
    const other = texts.find((f) => f !== deploy && f.name !== solverFile && sniffCaffe(f.bytes) === 'net');
    if (other) {
      try {
        transformSource = readPrototxt(other.bytes, other.name);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        diagnostics.push({ severity: 'warning', file: other.name, message: `not used for input defaults: ${e.info.message}` });
      }
    }
  }
  const filtered = filterNet(netFile.net, netFile.layerSources, { phase }, netFile.file);
  const net = buildNet(filtered.net, { file: netFile.file, layerSources: filtered.layerSources, ...(options.batch !== undefined ? { batch: options.batch } : {}) });
  let merge: MergeReport | null = null;
  if (weightsFile) merge = mergeWeights(net, weightsFile.net, weightsFile.file, weightsFile.layerSources);
  const embedded = checkEmbeddedWeights(net, netFile.file);
  const tSource = transformSource ?? netFile;
  const tNet = filterNet(tSource.net, tSource.layerSources, { phase }, tSource.file).net;
  const steps = [...netFile.steps];
  diagnostics.unshift(
    ...netFile.diagnostics,
    ...(weightsFile?.diagnostics ?? []),
    ...steps.map((s): Diagnostic => ({ severity: 'info', file: netFile.file, message: `upgrade: ${s.message}`, source: 'upgrade' })),
    ...net.diagnostics,
    ...(merge?.diagnostics ?? []),
    ...embedded,
  );
  return {
    netFile,
    weightsFile,
    solverFile,
    phase,
    phaseMatters: hasPhaseRules(netFile.net),
    excluded: filtered.excluded,
    batch: options.batch ?? null,
    net,
    merge,
    transform: transformDefaults(tNet),
    steps,
    diagnostics,
  };
}

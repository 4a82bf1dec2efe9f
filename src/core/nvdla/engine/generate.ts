/**
 * `engine_ast::generateGraph` (EngineAST.cpp): the engine graph that mirrors the canonical one.
 * Every canonical edge becomes an engine data edge with the same number (`e-0`...); every
 * canonical node becomes one or more engine nodes (`transformCanNode`): a convolution, a fully
 * connected or a deconvolution gets its joint SDP (bias, or a unit scale in INT8, or a NOP), an
 * INT8 ReLU gets a unit scale before it (`prependScaleOpForRescaling`), a Scale with a bias term
 * gets a bias node, a Power becomes an EMU POWER. Auxiliary edges (weights, bias, scale,
 * batch-norm data) are made as the nodes capture their parameters, so ids come in upstream order.
 *
 * Network inputs and outputs become bindable; their N is set to the batch size (with upstream's
 * warning); an image input with fewer channels than its pixel format is widened to it (with
 * upstream's warning) and one with more is refused (upstream silently drops channels).
 */
import type { CanonicalGraph, CanonicalNode } from '../canonical/graph';
import type { Dims4, NvdlaDiagnostic } from '../network/model';
import type { CompileProfile } from '../profiles';
import { surfaceFormat } from '../surface';
import type { TargetConfig } from '../targets';
import { EngineGraphEditor, EngineGraphError, emptyEngineGraph, registerLut } from './graph';
import { blobOf, defaultX1, modeOf, NodeFactory, sdpCommon, unitWeights } from './factory';
import { placeConcatInputsOnGroups, repeatedConcatInputs } from './concat-gaps';
import { disabledSubEngine, subEngine, type EngineEdge, type EngineGraph, type EngineNode } from './model';

export interface EngineGenerateResult {
  graph: EngineGraph | null;
  diagnostics: NvdlaDiagnostic[];
  /** the profile's batch size after generateGraph (0 in the profile means the input's N) */
  batchSize: number;
}

class Generator extends NodeFactory {
  readonly diagnostics: NvdlaDiagnostic[] = [];
  /** canonical edge id -> engine edge */
  readonly edgeOf = new Map<string, EngineEdge>();

  constructor(can: CanonicalGraph, profile: CompileProfile, target: TargetConfig, batchSize: number) {
    super(new EngineGraphEditor(emptyEngineGraph(batchSize)), can, profile, target);
  }

  fail(node: CanonicalNode | null, message: string, extra: Partial<NvdlaDiagnostic> = {}): never {
    throw new GenerateReject({ severity: 'error', stage: 'engine', message, ...(node ? { layer: node.name, layerIndex: node.origins[0] } : {}), ...extra });
  }

  // -------------------------------------------------------------- transformCanNode

  transform(can: CanonicalNode, src: EngineEdge[], sink: EngineEdge[]): void {
    const one = (what: string) => {
      if (src.length !== 1 || sink.length !== 1) {
        this.fail(can, `${what} '${can.name}' has ${src.length} inputs and ${sink.length} outputs; NVDLA handles exactly one of each`, {
          upstream: `Don't support ${what} operation with input edges (${src.length}) != 1 or output edges (${sink.length}) != 1`,
          upstreamBehaviour: 'rejects',
        });
      }
    };
    const ed = this.ed;
    switch (can.opType) {
      case 'CONVOLUTION':
      case 'DECONVOLUTION': {
        one(can.opType === 'CONVOLUTION' ? 'Conv' : 'Deconv');
        const conv = this.convNode(can, can.opType === 'CONVOLUTION' ? 'CONVOLUTION_CONV' : 'CONVOLUTION_DECONV');
        const sdp = this.jointSDP(conv, can);
        ed.appendNodeToEdge(src[0]!, 'second', conv);
        ed.appendNodeToEdge(sink[0]!, 'first', sdp);
        ed.populateEdgePorts(conv);
        ed.populateEdgePorts(sdp);
        return;
      }
      case 'FULLY_CONNECTED': {
        one('FC');
        const fc = this.fcNode(can);
        const sdp = this.jointSDP(fc, can);
        ed.appendNodeToEdge(src[0]!, 'second', fc);
        ed.appendNodeToEdge(sink[0]!, 'first', sdp);
        ed.populateEdgePorts(fc);
        ed.populateEdgePorts(sdp);
        return;
      }
      case 'ACTIVATION': {
        one('Activation');
        const type = can.params.activationType;
        let srcEdge = src[0]!;
        if (type === 'RELU' && this.int8) {
          // prependScaleOpForRescaling: a per-channel unit scale does the rescaling before the ReLU
          const c = this.canEdges.get(can.inputEdges[0]!)!.tensor.dims.c;
          const scaleDims: Dims4 = { n: 1, c, h: 1, w: 1 };
          const sdp = sdpCommon();
          sdp.x1 = defaultX1('SDP_SCALE', { mode: 'PER_CHANNEL' });
          const scale = ed.addNode('sdp-scale-', 'SDP_SCALE', null, can.origins, { kind: 'sdp-scale', sdp, scaleDims, rawScaleData: blobOf(unitWeights(c)), unitScale: true, dlaScaleData: null });
          ed.addDataEdge(null, scale, this.auxTensor(scaleDims, 'SCALE'));
          const sinkOfScale = ed.addDataEdge(null, null, this.outTensorClone(can, 'IO'));
          ed.appendNodeToEdge(srcEdge, 'second', scale);
          ed.appendNodeToEdge(sinkOfScale, 'first', scale);
          ed.populateEdgePorts(scale);
          srcEdge = sinkOfScale;
        }
        if ((type === 'SIGMOID' || type === 'TANH') && !this.target.isSDPLutCapable) {
          this.fail(can, `${type === 'SIGMOID' ? 'Sigmoid' : 'TanH'} '${can.name}' needs the SDP lookup table, which ${this.target.name} does not have`, {
            upstream: `Activation type not supported: ${type === 'SIGMOID' ? 1 : 2}`,
            upstreamBehaviour: 'wrong-result',
            studio: 'nvdla_compiler logs this, then drops the activation silently and compiles the network without it; NPU Studio refuses',
          });
        }
        const sdp = sdpCommon();
        if (type === 'RELU') sdp.x1 = subEngine({ mode: 'UNKNOWN', aluType: 'UNKNOWN', opType: 'NONE', actType: 'RELU' });
        else sdp.y = subEngine({ mode: 'UNKNOWN', aluType: 'UNKNOWN', opType: 'NONE', actType: type === 'SIGMOID' ? 'SIGMOID' : 'TANH' });
        if ((type === 'SIGMOID' || type === 'TANH') && this.int8) {
          this.fail(can, `${type === 'SIGMOID' ? 'Sigmoid' : 'TanH'} '${can.name}' in INT8: NVDLA has no INT8 lookup table for it`, {
            upstream: `Empty INT8 ${type === 'SIGMOID' ? 'Sigmoid' : 'Tanh'} LUT`,
            upstreamBehaviour: 'wrong-result',
            studio: 'nvdla_compiler logs this and writes an all-zero lookup table, so every output of the layer is 0; NPU Studio refuses (compile with --cprecision fp16)',
          });
        }
        const lutIndex = type === 'RELU' ? -1 : registerLut(ed.graph, { type: type === 'SIGMOID' ? 'SIGMOID' : 'TANH', precision: this.profile.computePrecision as 'INT8' | 'FP16', lrn: null });
        const act = ed.addNode('act-', 'SDP_ACTIVATION', can.id, can.origins, { kind: 'sdp-act', sdp, activation: type, lut: type === 'RELU' ? null : type.toLowerCase(), lutIndex });
        ed.appendNodeToEdge(srcEdge, 'second', act);
        ed.appendNodeToEdge(sink[0]!, 'first', act);
        ed.populateEdgePorts(act);
        return;
      }
      case 'POOLING': {
        one('Pooling');
        const p = can.params;
        const pdp = ed.addNode('pdp-', 'PDP_POOL', can.id, can.origins, {
          kind: 'pdp',
          poolingType: p.poolType,
          topLeftPadding: { ...p.topLeftPadding },
          bottomRightPadding: { ...p.bottomRightPadding },
          paddingValue: 0,
          stride: { ...p.stride },
          poolingWindow: { ...p.kernelDims },
          splitWidth: null,
        });
        ed.appendNodeToEdge(src[0]!, 'second', pdp);
        ed.appendNodeToEdge(sink[0]!, 'first', pdp);
        ed.populateEdgePorts(pdp);
        return;
      }
      case 'LRN': {
        one('LRN');
        const p = can.params;
        // captureCanonicalParams registers the LRN table (one per distinct parameter set)
        // INT8 (beyond nvdla_compiler, whose INT8 LRN table is empty): one table per input scale too
        const inputScale = this.int8 ? src[0]!.tensor?.channelScales[0] : undefined;
        const lutIndex = registerLut(ed.graph, { type: 'LRN', precision: this.profile.computePrecision as 'INT8' | 'FP16', lrn: { localSize: p.localSize, alpha: p.alpha, beta: p.beta, k: p.k, ...(inputScale !== undefined ? { inputScale } : {}) } });
        const lrn = ed.addNode('cdp-lrn-', 'CDP_LRN', can.id, can.origins, { kind: 'cdp-lrn', localSize: p.localSize, alpha: p.alpha, beta: p.beta, k: p.k, lut: 'lrn', lutIndex });
        ed.appendNodeToEdge(src[0]!, 'second', lrn);
        ed.appendNodeToEdge(sink[0]!, 'first', lrn);
        ed.populateEdgePorts(lrn);
        return;
      }
      case 'SCALE': {
        one('Scale');
        const p = can.params;
        if (p.power.count > 0 && p.power.values![0] !== 0) {
          const cpu = ed.addNode('cpu-scale-', 'CPU_SCALE', can.id, can.origins, { kind: 'cpu-scale', power: p.power, scale: p.scale, shift: p.shift });
          ed.appendNodeToEdge(src[0]!, 'second', cpu);
          ed.appendNodeToEdge(sink[0]!, 'first', cpu);
          ed.populateEdgePorts(cpu);
          return;
        }
        const sdp = sdpCommon();
        sdp.x1 = subEngine({ mode: modeOf(p.mode), aluType: 'SUM', opType: 'MUL', actType: 'NONE' });
        let scaleDims = { ...p.scaleDims };
        let raw = p.scale;
        if (this.int8 && this.profile.quantizationMode === 'PER_FILTER' && p.mode === 'UNIFORM') {
          // per-layer scale made per-channel in advance (translatePLScaleToPCScale)
          const c = this.canEdges.get(can.inputEdges[0]!)!.tensor.dims.c;
          scaleDims = { ...scaleDims, c };
          raw = { count: c * p.scale.count, values: new Float32Array(c * p.scale.count).fill(p.scale.values![0]!) };
          sdp.x1.mode = 'PER_CHANNEL';
        }
        const scale = ed.addNode('sdp-scale-', 'SDP_SCALE', can.id, can.origins, { kind: 'sdp-scale', sdp, scaleDims, rawScaleData: blobOf(raw), unitScale: false, dlaScaleData: null });
        ed.addDataEdge(null, scale, this.auxTensor(scaleDims, 'SCALE'));
        ed.appendNodeToEdge(src[0]!, 'second', scale);
        let bias: EngineNode | null = null;
        if (p.hasBiasTerm) {
          bias = this.biasNode(can, true);
          ed.addDataEdge(scale, bias, this.outTensorClone(can, 'IO'));
          ed.appendNodeToEdge(sink[0]!, 'first', bias);
        } else {
          ed.appendNodeToEdge(sink[0]!, 'first', scale);
        }
        ed.populateEdgePorts(scale);
        if (bias) ed.populateEdgePorts(bias);
        return;
      }
      case 'BATCH_NORM': {
        one('Batch Norm');
        const p = can.params;
        const sdp = sdpCommon();
        sdp.x1 = subEngine({ mode: modeOf(p.mode), aluType: 'SUM', opType: 'BOTH', actType: 'NONE' });
        const bn = ed.addNode('sdp-bn-', 'SDP_BATCH_NORM', can.id, can.origins, {
          kind: 'sdp-bn',
          sdp,
          epsilon: p.epsilon,
          meanDims: { ...p.meanDims },
          varianceDims: { ...p.varianceDims },
          batchNormDims: { ...p.meanDims },
          rawMeanData: blobOf(p.mean),
          rawVarianceData: blobOf(p.variance),
          dlaBatchNormData: null,
        });
        ed.addDataEdge(null, bn, this.auxTensor(p.meanDims, 'BATCH_NORM'));
        ed.appendNodeToEdge(src[0]!, 'second', bn);
        ed.appendNodeToEdge(sink[0]!, 'first', bn);
        ed.populateEdgePorts(bn);
        return;
      }
      case 'SOFTMAX': {
        one('Softmax');
        const sm = ed.addNode('cpu-sm-', 'CPU_SOFTMAX', can.id, can.origins, { kind: 'cpu-softmax' });
        ed.appendNodeToEdge(src[0]!, 'second', sm);
        ed.appendNodeToEdge(sink[0]!, 'first', sm);
        ed.populateEdgePorts(sm);
        return;
      }
      case 'CONCATENATION': {
        const concat = ed.addNode('concat-', 'CONCATENATION_CONCAT', can.id, can.origins, { kind: 'concat', axis: 'C', canonicalInputs: [...can.inputEdges] });
        for (const e of src) ed.appendNodeToEdge(e, 'second', concat);
        for (const e of sink) ed.appendNodeToEdge(e, 'first', concat);
        // input ports in the canonical node's input order
        concat.inputEdges = can.inputEdges.map((ce) => this.edgeOf.get(ce)!.id);
        if (sink.length !== 1) this.fail(can, `${concat.name} has > 1 output edges`);
        concat.outputEdges = [sink[0]!.id];
        return;
      }
      case 'SPLIT': {
        const split = ed.addNode('split-', 'SPLIT_SOFTWARE', can.id, can.origins, { kind: 'split', axis: 'C', canonicalOutputs: [...can.outputEdges] });
        for (const e of src) ed.appendNodeToEdge(e, 'second', split);
        for (const e of sink) ed.appendNodeToEdge(e, 'first', split);
        if (src.length !== 1) this.fail(can, `${split.name} has ${src.length} input edges`);
        split.inputEdges = [src[0]!.id];
        split.outputEdges = can.outputEdges.map((ce) => this.edgeOf.get(ce)!.id);
        return;
      }
      case 'ELEMENTWISE': {
        if (src.length !== 2 || sink.length !== 1) {
          this.fail(can, `Eltwise '${can.name}' has ${src.length} inputs; NVDLA's element-wise op takes two`, {
            upstream: `Don't support EW operation with input edges (${src.length}) != 1 or output edges (${sink.length}) != 1`,
            upstreamBehaviour: 'rejects',
          });
        }
        const sdp = sdpCommon();
        const op = can.params.type;
        sdp.x1 = subEngine({ mode: 'PER_ELEMENT', aluType: op === 'MAX' ? 'MAX' : 'SUM', opType: op === 'PROD' ? 'MUL' : 'ADD', actType: 'NONE' });
        const ew = ed.addNode('ew-', 'SDP_ELEMENTWISE', can.id, can.origins, { kind: 'sdp-ew', sdp, operation: op });
        ed.appendNodeToEdge(src[0]!, 'second', ew);
        ed.appendNodeToEdge(src[1]!, 'second', ew);
        ed.appendNodeToEdge(sink[0]!, 'first', ew);
        ew.inputEdges = [src[0]!.id, src[1]!.id];
        ew.outputEdges = [sink[0]!.id];
        return;
      }
    }
  }

  run(): EngineGraph {
    const ed = this.ed;
    const g = ed.graph;
    // mirror the canonical edges (tensors cloned, data format NCHW)
    for (const ce of this.can.edges) {
      const e = ed.addDataEdge(null, null, { ...ce.tensor, dims: { ...ce.tensor.dims }, channelScales: [...ce.tensor.channelScales], dataFormat: 'NCHW' }, ce.id);
      this.edgeOf.set(ce.id, e);
    }
    if (g.batchSize === 0) {
      for (const ie of this.can.inputEdges) g.batchSize = this.edgeOf.get(ie)!.tensor!.dims.n;
    }
    for (const cn of this.can.nodes) {
      const src = cn.inputEdges.map((id) => this.edgeOf.get(id)!);
      const sink = cn.outputEdges.map((id) => this.edgeOf.get(id)!);
      this.transform(cn, src, sink);
    }

    // network inputs
    const inFormat = surfaceFormat(this.profile.networkInputSurfaceFormat);
    const firstN = this.can.inputEdges.length ? this.edgeOf.get(this.can.inputEdges[0]!)!.tensor!.dims.n : 0;
    this.can.inputEdges.forEach((ce, i) => {
      const e = this.edgeOf.get(ce)!;
      const t = e.tensor!;
      t.dataFormat = this.profile.networkInputDataFormat;
      if (t.dims.n !== firstN) {
        this.fail(null, `network inputs have different batch sizes (${firstN} and ${t.dims.n})`, { upstream: `Input tensor multibatch dimensions mismatch: ${firstN} != ${t.dims.n}`, upstreamBehaviour: 'rejects' });
      }
      if (t.dims.n !== g.batchSize) {
        this.diagnostics.push({ severity: 'warning', stage: 'engine', message: `input '${t.name}': batch size ${t.dims.n} overridden to ${g.batchSize}`, upstream: `Overriding input multibatch size from ${t.dims.n} to ${g.batchSize}`, upstreamBehaviour: 'same' });
        t.dims.n = g.batchSize;
      }
      if (inFormat.category === 'IMG' && t.dims.c !== inFormat.channelsPerAtom) {
        const upstream = `Prototxt #chnls (C = ${t.dims.c}) != Profile #chnls for input (${inFormat.name}: C = ${inFormat.channelsPerAtom}). Preferring #chnls from Profile for compiling.`;
        if (t.dims.c > inFormat.channelsPerAtom) {
          this.fail(null, `input '${t.name}' has ${t.dims.c} channels but the ${inFormat.name.replace('NVDLA_IMG_', '')} image input format holds ${inFormat.channelsPerAtom}: the extra channels would be dropped. Use --informat nchw or ncxhwx (feature data) for this network.`, {
            upstream,
            upstreamBehaviour: 'wrong-result',
            studio: 'nvdla_compiler cuts the input to the format\'s channels and compiles a network whose first layer reads the wrong data',
          });
        }
        this.diagnostics.push({ severity: 'warning', stage: 'engine', message: `input '${t.name}' has ${t.dims.c} channel${t.dims.c === 1 ? '' : 's'}; the ${inFormat.name.replace('NVDLA_IMG_', '')} image format has ${inFormat.channelsPerAtom}, so the input is widened to ${inFormat.channelsPerAtom} (the extra channels are ignored by the first layer)`, upstream, upstreamBehaviour: 'same' });
        t.dims.c = inFormat.channelsPerAtom;
        if (t.channelScales.length) t.channelScales = new Array<number>(t.dims.c).fill(t.channelScales[0]!);
      }
      e.bind = { id: i, direction: 'input' };
      g.inputEdges.push(e.id);
    });
    this.can.outputEdges.forEach((ce, i) => {
      const e = this.edgeOf.get(ce)!;
      const t = e.tensor!;
      t.dataFormat = this.profile.networkOutputDataFormat;
      if (t.dims.n !== g.batchSize) {
        this.diagnostics.push({ severity: 'info', stage: 'engine', message: `output '${t.name}': batch size ${t.dims.n} set to ${g.batchSize}`, upstream: `Overriding output multibatch size from ${t.dims.n} to ${g.batchSize}`, upstreamBehaviour: 'same' });
        t.dims.n = g.batchSize;
      }
      e.bind = { id: i, direction: 'output' };
      g.outputEdges.push(e.id);
    });
    const canName = new Map(this.can.nodes.map((n) => [n.id, n]));
    // a concat taking one tensor twice: only one of its places would be written (concat-gaps.ts)
    for (const r of repeatedConcatInputs(this.ed, (n) => (n.canonicalNode ? canName.get(n.canonicalNode)?.name : undefined) ?? n.name)) {
      this.fail(r.node.canonicalNode ? (canName.get(r.node.canonicalNode) ?? null) : null, r.message, {
        upstream: 'none: it compiles the concat',
        upstreamBehaviour: 'wrong-result',
        studio: 'nvdla_compiler writes the repeated tensor once and leaves its other places in the concat unwritten, so the readers take what the buffer held there; NPU Studio refuses',
      });
    }
    // concat inputs starting mid channel group: gaps in the surface, readers skip them (concat-gaps.ts)
    const perGroup = this.int8 ? this.target.atomicKSize : this.target.atomicKSize / 2;
    const gaps = placeConcatInputsOnGroups(
      this.ed,
      perGroup,
      (n) => (n.canonicalNode ? canName.get(n.canonicalNode)?.name : undefined) ?? n.name,
      (n, message) =>
        this.fail(n.canonicalNode ? (canName.get(n.canonicalNode) ?? null) : null, message, {
          upstream: 'none: the concatenation is compiled with the gap, its buffer a channel group short and its readers off by the gap',
          upstreamBehaviour: 'wrong-result',
          studio: 'NPU Studio places the inputs on group boundaries and widens the readers\' weights with zeros for the gap; it refuses readers that cannot skip the gap',
        }),
      { int8: this.int8, perFilter: this.profile.quantizationMode === 'PER_FILTER' },
    );
    for (const note of gaps.notes) this.diagnostics.push({ severity: 'info', stage: 'engine', message: note });
    // N = 1 for every non-bindable, non-aux tensor
    for (const e of g.edges) if (!e.bind && !e.aux && e.tensor) e.tensor.dims.n = 1;
    return g;
  }
}

class GenerateReject extends Error {
  constructor(readonly diagnostic: NvdlaDiagnostic) {
    super(diagnostic.message);
  }
}

/** `engine_ast::generateGraph(profile, target, canonical)` */
export function generateEngineGraph(can: CanonicalGraph, profile: CompileProfile, target: TargetConfig): EngineGenerateResult {
  if (target.isBatchModeCapable && profile.multiBatchSize > target.maxBatchSize) {
    return {
      graph: null,
      batchSize: profile.multiBatchSize,
      diagnostics: [{ severity: 'error', stage: 'engine', message: `batch ${profile.multiBatchSize} is more than ${target.name} allows (${target.maxBatchSize})`, upstream: `numbatches is greater than allowed maxbatches (${target.maxBatchSize})`, upstreamBehaviour: 'rejects' }],
    };
  }
  const gen = new Generator(can, profile, target, profile.multiBatchSize);
  try {
    const graph = gen.run();
    return { graph, diagnostics: gen.diagnostics, batchSize: graph.batchSize };
  } catch (e) {
    if (e instanceof GenerateReject) return { graph: null, diagnostics: [...gen.diagnostics, e.diagnostic], batchSize: gen.ed.graph.batchSize };
    if (e instanceof EngineGraphError) return { graph: null, diagnostics: [...gen.diagnostics, { severity: 'error', stage: 'engine', message: e.message }], batchSize: gen.ed.graph.batchSize };
    throw e;
  }
}

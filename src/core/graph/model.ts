/**
 * The one graph model every view draws. Format readers turn their own model into this
 * (`toGraph`); layout, find, the renderer and the status bar only ever see `Graph`.
 * Plain data: structured-clone safe, so it crosses the worker boundary as it is.
 */

/** Netron's operator categories; they pick the node colour. */
export type NodeCategory =
  | 'Layer'
  | 'Activation'
  | 'Pool'
  | 'Normalization'
  | 'Dropout'
  | 'Shape'
  | 'Tensor'
  | 'Transform'
  | 'Data'
  | 'Quantization'
  | 'Custom'
  | 'Control'
  | 'Input'
  | 'Output'
  | 'Constant'
  | 'Other';

export type NodeKind = 'op' | 'input' | 'output' | 'const';

export interface GraphAttribute {
  name: string;
  /** display value, already formatted */
  value: string;
  /** type hint: 'enum' | 'int' | 'float' | 'bool' | 'string' | 'int[]' | 'float[]' | 'subgraph' ... */
  type?: string;
  /**
   * Worth showing inside the node box when attributes are shown (Netron's `visible`): the format
   * decides, typically a value other than the schema default (`padding = VALID`, `stride_w = 2`,
   * `fused_activation_function = RELU`). The side panel lists every attribute regardless.
   */
  inNode?: boolean;
}

/**
 * A constant input drawn inside its node's box (`filter ⟨8×1×1×8⟩`, `bias ⟨8⟩`) when weights are
 * shown, instead of as a node and an edge of its own: circle constant tensors, Caffe weight blobs,
 * NVDLA weight surfaces. No values here: those are read on demand (tensor details).
 */
export interface GraphConstant {
  /** role in the op (`filter`, `bias`, `weights`, `axes`) or the blob's name */
  name: string;
  /** dimensions, -1 where unknown; [] for a scalar */
  shape: number[];
  /** `float32`, `int8` ... (shown on hover) */
  dtype: string;
  /** a short value shown instead of the shape, for scalars (`axis = 0`) */
  value?: string;
}

/** One port of a node: a tensor going in or out. */
export interface GraphPort {
  /** role in the op, e.g. `input`, `filter`, `bias`, or `0`, `1` */
  name: string;
  /** tensor index in the subgraph (circle), -1 for an omitted optional input */
  tensor: number;
  /** tensor name */
  label: string;
  /** `float32[1,224,224,3]` */
  type: string;
  /** true when the tensor is a constant (has data) */
  constant?: boolean;
}

/**
 * A layer drawn inside a node's box, in a band below the node's own header: Caffe's in-place
 * layers (top == bottom: ReLU, BatchNorm, Scale, Dropout after a convolution) folded into their
 * producer, as Netron draws them. Its parameters stay in the node's attributes, prefixed by its name.
 */
export interface ChainedLayer {
  type: string;
  name: string;
  category: NodeCategory;
}

export interface GraphNode {
  /** unique inside its graph, stable across re-reads of the same file (e.g. `op:12`, `in:0`) */
  id: string;
  kind: NodeKind;
  /** op type shown on the node, e.g. `Conv2D`, `ADD` for circle (BuiltinOperator name), or custom code */
  type: string;
  /** node name; circle: the name of the first output tensor */
  name: string;
  category: NodeCategory;
  /** operator index in its subgraph (kind 'op') or tensor index (input/output markers) */
  index: number;
  inputs: GraphPort[];
  outputs: GraphPort[];
  attributes: GraphAttribute[];
  /** constant inputs, in input order, drawn inside the box (see GraphConstant); absent = none */
  constants?: GraphConstant[];
  /** subgraphs this node refers to (IF/WHILE bodies), as graph ids */
  subgraphs?: string[];
  /** optional group (namespace) id for grouping and per-group layout */
  group?: string;
  /** layers drawn inside this box below its header, in order (see ChainedLayer) */
  chain?: ChainedLayer[];
}

export interface GraphEdge {
  /** index into Graph.nodes */
  from: number;
  to: number;
  /** tensor index (circle) or blob id */
  tensor: number;
  /** `name` of the tensor */
  name: string;
  /** `float32[1,3]`, shown as the edge label */
  label: string;
}

export interface GraphStats {
  /** operators (the `N nodes` of the status bar) */
  nodes: number;
  /** (non-constant tensor, consumer) pairs, a consumer being an operator or a graph output */
  edges: number;
}

export interface Graph {
  /** unique in its model, e.g. `sg:0` */
  id: string;
  /** shown in the subgraph selector */
  name: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  stats: GraphStats;
}

/** A graph's entry in a model's subgraph list (the graph itself is built on demand). */
export interface GraphInfo {
  id: string;
  name: string;
  stats: GraphStats;
  /**
   * This graph is the graph `unfoldedOf` with the layers folded into their producer's box
   * (Caffe's in-place layers: top == bottom) drawn as nodes of their own. The pair is one graph
   * shown two ways: the subgraph list shows the folded one, a view toggle switches.
   */
  unfoldedOf?: string;
}

/** Everything a viewer needs about an opened model, without its weight bytes or its graphs. */
export interface ModelSummary {
  format: string;
  file: string;
  /** e.g. `circle (CIR0, schema version 0)` */
  formatLabel: string;
  description: string;
  properties: GraphAttribute[];
  /** subgraph list; `toGraph` builds a graph when it is shown */
  graphs: GraphInfo[];
  metadata: { name: string; size: number; preview: string }[];
  signatures: { key: string; subgraph: number; inputs: { name: string; tensor: number }[]; outputs: { name: string; tensor: number }[] }[];
  buffers: { count: number; bytes: number; external: number };
}

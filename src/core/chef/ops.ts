/**
 * The recipe operation types (as tflchef names them, e.g. "FullyConnected") and how each becomes
 * a circle operator: its BuiltinOperator, its BuiltinOptions table, and which `*_options` message
 * of the recipe fills that table's fields (circle_schema.fbs field names; enums as numbers).
 *
 * Written from tflchef.proto and circle_schema.fbs. Behaviour that mirrors tflchef: ops whose
 * TFLite options table exists get that table even when the recipe gives no options (empty or
 * defaults); ops without an options table (Sqrt, Relu, Tanh, ...) get none; the few ops that
 * tflchef emits as custom operators (AddV2, BatchMatMulV2, ...) are CUSTOM with their type name
 * as custom_code.
 */
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { BuiltinOptions } from '../circle/generated/circle/builtin-options';
import { ActivationFunctionType } from '../circle/generated/circle/activation-function-type';
import { Padding } from '../circle/generated/circle/padding';
import { TensorType } from '../circle/generated/circle/tensor-type';
import { MirrorPadMode } from '../circle/generated/circle/mirror-pad-mode';
import type { OptionTable } from '../circle/model';
import type { TextValue } from '../textproto';

/** Reads a field of the recipe's options message, falling back to the .proto default. */
export type OptionReader = (field: string) => TextValue | undefined;

export interface OpSpec {
  /** BuiltinOperator name */
  code: keyof typeof BuiltinOperator;
  /** BuiltinOptions table name, or null when the op has none */
  options: keyof typeof BuiltinOptions | null;
  /** the recipe's Operation field holding the options (e.g. `add_options`) */
  from?: string;
  /** builds the table's fields; absent = empty table */
  map?: (o: OptionReader) => OptionTable;
  /** only emit the options table when the recipe gives `from` (tflchef's Reshape) */
  onlyWhenGiven?: boolean;
}

function enumValue<E extends Record<string, string | number>>(en: E, what: string, v: TextValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = en[v];
    if (typeof n === 'number') return n;
  }
  throw new Error(`${what} '${String(v)}' has no circle equivalent`);
}
const act = (v: TextValue | undefined) => enumValue(ActivationFunctionType, 'activation', v);
const pad = (v: TextValue | undefined) => enumValue(Padding, 'padding', v);
const tensorType = (v: TextValue | undefined) => enumValue(TensorType, 'tensor type', v);
const num = (v: TextValue | undefined): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : 0);
const bool = (v: TextValue | undefined): boolean => v === true;
const ints = (v: TextValue | undefined): number[] => (Array.isArray(v) ? (v as unknown[]).map((x) => Number(x)) : []);

const activationOnly = (o: OptionReader): OptionTable => ({ fused_activation_function: act(o('activation')) });
const reducer = (o: OptionReader): OptionTable => ({ keep_dims: bool(o('keep_dims')) });
const pool = (o: OptionReader): OptionTable => ({
  padding: pad(o('padding')),
  stride_w: num(o('stride_w')),
  stride_h: num(o('stride_h')),
  filter_width: num(o('filter_width')),
  filter_height: num(o('filter_height')),
  fused_activation_function: act(o('activation')),
});

/** An op whose options table has no fields; `from` is the recipe's (empty) options message. */
const simple = (code: OpSpec['code'], options: OpSpec['options'] = null, from?: string): OpSpec => (from ? { code, options, from } : { code, options });

export const OPS: Record<string, OpSpec> = {
  Abs: simple('ABS', 'AbsOptions', 'abs_options'),
  Add: { code: 'ADD', options: 'AddOptions', from: 'add_options', map: activationOnly },
  AddN: simple('ADD_N', 'AddNOptions', 'add_n_options'),
  ArgMax: { code: 'ARG_MAX', options: 'ArgMaxOptions', from: 'argmax_options', map: (o) => ({ output_type: tensorType(o('output_type')) }) },
  ArgMin: { code: 'ARG_MIN', options: 'ArgMinOptions', from: 'argmin_options', map: (o) => ({ output_type: tensorType(o('output_type')) }) },
  AveragePool2D: { code: 'AVERAGE_POOL_2D', options: 'Pool2DOptions', from: 'averagepool2d_options', map: pool },
  BatchMatMul: {
    code: 'BATCH_MATMUL',
    options: 'BatchMatMulOptions',
    from: 'batch_matmul_options',
    map: (o) => ({ adjoint_lhs: bool(o('adj_x')), adjoint_rhs: bool(o('adj_y')) }),
  },
  BatchToSpaceND: simple('BATCH_TO_SPACE_ND', 'BatchToSpaceNDOptions', 'batch_to_space_options'),
  BidirectionalSequenceLSTM: {
    code: 'BIDIRECTIONAL_SEQUENCE_LSTM',
    options: 'BidirectionalSequenceLSTMOptions',
    from: 'bidirectional_sequence_lstm_options',
    map: (o) => ({
      fused_activation_function: act(o('activation')),
      cell_clip: num(o('cell_clip')),
      proj_clip: num(o('proj_clip')),
      merge_outputs: bool(o('merge_outputs')),
      time_major: bool(o('time_major')),
      asymmetric_quantize_inputs: bool(o('asymmetric_quantize_inputs')),
    }),
  },
  Cast: {
    code: 'CAST',
    options: 'CastOptions',
    from: 'cast_options',
    map: (o) => ({ in_data_type: tensorType(o('in_data_type')), out_data_type: tensorType(o('out_data_type')) }),
  },
  Ceil: simple('CEIL'),
  Concatenation: {
    code: 'CONCATENATION',
    options: 'ConcatenationOptions',
    from: 'concatenation_options',
    map: (o) => ({ axis: num(o('axis')), fused_activation_function: act(o('activation')) }),
  },
  Conv2D: {
    code: 'CONV_2D',
    options: 'Conv2DOptions',
    from: 'conv2d_options',
    map: (o) => ({
      padding: pad(o('padding')),
      stride_w: num(o('stride_w')),
      stride_h: num(o('stride_h')),
      fused_activation_function: act(o('activation')),
      dilation_w_factor: num(o('dilation_w_factor')),
      dilation_h_factor: num(o('dilation_h_factor')),
    }),
  },
  Cos: simple('COS', 'CosOptions', 'cos_options'),
  CumSum: {
    code: 'CUMSUM',
    options: 'CumsumOptions',
    from: 'cumsum_options',
    map: (o) => ({ exclusive: bool(o('exclusive')), reverse: bool(o('reverse')) }),
  },
  Densify: simple('DENSIFY', 'DensifyOptions', 'densify_options'),
  DepthToSpace: { code: 'DEPTH_TO_SPACE', options: 'DepthToSpaceOptions', from: 'depth_to_space_options', map: (o) => ({ block_size: num(o('block_size')) }) },
  DepthwiseConv2D: {
    code: 'DEPTHWISE_CONV_2D',
    options: 'DepthwiseConv2DOptions',
    from: 'depthwiseconv2d_options',
    map: (o) => ({
      padding: pad(o('padding')),
      stride_w: num(o('stride_w')),
      stride_h: num(o('stride_h')),
      depth_multiplier: num(o('depth_multiplier')),
      fused_activation_function: act(o('activation')),
      dilation_w_factor: num(o('dilation_w_factor')),
      dilation_h_factor: num(o('dilation_h_factor')),
    }),
  },
  Dequantize: simple('DEQUANTIZE', 'DequantizeOptions', 'dequantize_options'),
  Div: { code: 'DIV', options: 'DivOptions', from: 'div_options', map: activationOnly },
  ELU: simple('ELU'),
  Equal: simple('EQUAL', 'EqualOptions', 'equal_options'),
  Exp: simple('EXP', 'ExpOptions', 'exp_options'),
  ExpandDims: simple('EXPAND_DIMS', 'ExpandDimsOptions', 'expand_dims_options'),
  FakeQuant: {
    code: 'FAKE_QUANT',
    options: 'FakeQuantOptions',
    from: 'fakequant_options',
    map: (o) => ({ min: num(o('min')), max: num(o('max')), num_bits: num(o('num_bits')), narrow_range: bool(o('narrow_range')) }),
  },
  Fill: simple('FILL', 'FillOptions', 'fill_options'),
  Floor: simple('FLOOR'),
  FloorDiv: simple('FLOOR_DIV', 'FloorDivOptions', 'floordiv_options'),
  FloorMod: simple('FLOOR_MOD', 'FloorModOptions', 'floormod_options'),
  FullyConnected: {
    code: 'FULLY_CONNECTED',
    options: 'FullyConnectedOptions',
    from: 'fullyconnected_options',
    // weights_format: tflchef.proto has no field for it; DEFAULT (0) as tflchef writes
    map: (o) => ({ fused_activation_function: act(o('activation')), keep_num_dims: bool(o('keep_num_dims')), weights_format: 0 }),
  },
  Gather: { code: 'GATHER', options: 'GatherOptions', from: 'gather_options', map: (o) => ({ axis: num(o('axis')) }) },
  GatherNd: simple('GATHER_ND', 'GatherNdOptions', 'gather_nd_options'),
  Gelu: { code: 'GELU', options: 'GeluOptions', from: 'gelu_options', map: (o) => ({ approximate: bool(o('approximate')) }) },
  Greater: simple('GREATER', 'GreaterOptions', 'greater_options'),
  GreaterEqual: simple('GREATER_EQUAL', 'GreaterEqualOptions', 'greaterequal_options'),
  HardSwish: simple('HARD_SWISH'),
  If: {
    code: 'IF',
    options: 'IfOptions',
    from: 'if_options',
    map: (o) => ({ then_subgraph_index: num(o('then_subgraph_index')), else_subgraph_index: num(o('else_subgraph_index')) }),
  },
  // circle-only op (circlechef); tflchef.proto has no options message for it: schema defaults
  InstanceNorm: { code: 'INSTANCE_NORM', options: 'InstanceNormOptions', map: () => ({ epsilon: 0, fused_activation_function: 0 }) },
  L2Normalize: { code: 'L2_NORMALIZATION', options: 'L2NormOptions', from: 'l2norm_options', map: activationOnly },
  L2Pool2D: { code: 'L2_POOL_2D', options: 'Pool2DOptions', from: 'l2pool2d_options', map: pool },
  LeakyRelu: { code: 'LEAKY_RELU', options: 'LeakyReluOptions', from: 'leaky_relu_options', map: (o) => ({ alpha: num(o('alpha')) }) },
  Less: simple('LESS', 'LessOptions', 'less_options'),
  LessEqual: simple('LESS_EQUAL', 'LessEqualOptions', 'lessequal_options'),
  LocalResponseNormalization: {
    code: 'LOCAL_RESPONSE_NORMALIZATION',
    options: 'LocalResponseNormalizationOptions',
    from: 'local_response_normalization_options',
    map: (o) => ({ radius: num(o('radius')), bias: num(o('bias')), alpha: num(o('alpha')), beta: num(o('beta')) }),
  },
  Log: simple('LOG'),
  LogicalAnd: simple('LOGICAL_AND', 'LogicalAndOptions', 'logical_and_options'),
  LogicalNot: simple('LOGICAL_NOT', 'LogicalNotOptions', 'logical_not_options'),
  LogicalOr: simple('LOGICAL_OR', 'LogicalOrOptions', 'logical_or_options'),
  Logistic: simple('LOGISTIC'),
  LogSoftmax: simple('LOG_SOFTMAX', 'LogSoftmaxOptions', 'log_softmax_options'),
  MatrixDiag: simple('MATRIX_DIAG', 'MatrixDiagOptions', 'matrix_diag_options'),
  MatrixSetDiag: simple('MATRIX_SET_DIAG', 'MatrixSetDiagOptions', 'matrix_set_diag_options'),
  Maximum: simple('MAXIMUM', 'MaximumMinimumOptions', 'maximum_options'),
  MaxPool2D: { code: 'MAX_POOL_2D', options: 'Pool2DOptions', from: 'maxpool2d_options', map: pool },
  Mean: { code: 'MEAN', options: 'ReducerOptions', from: 'mean_options', map: reducer },
  Minimum: simple('MINIMUM', 'MaximumMinimumOptions', 'minimum_options'),
  MirrorPad: {
    code: 'MIRROR_PAD',
    options: 'MirrorPadOptions',
    from: 'mirrorpad_options',
    map: (o) => ({ mode: enumValue(MirrorPadMode, 'mirror pad mode', o('mode')) }),
  },
  Mul: { code: 'MUL', options: 'MulOptions', from: 'mul_options', map: activationOnly },
  Neg: simple('NEG', 'NegOptions', 'neg_options'),
  NonMaxSuppressionV4: simple('NON_MAX_SUPPRESSION_V4', 'NonMaxSuppressionV4Options', 'non_max_suppression_v4_options'),
  NonMaxSuppressionV5: simple('NON_MAX_SUPPRESSION_V5', 'NonMaxSuppressionV5Options', 'non_max_suppression_v5_options'),
  NotEqual: simple('NOT_EQUAL', 'NotEqualOptions', 'notequal_options'),
  OneHot: { code: 'ONE_HOT', options: 'OneHotOptions', from: 'onehot_options', map: (o) => ({ axis: num(o('axis')) }) },
  Pack: { code: 'PACK', options: 'PackOptions', from: 'pack_options', map: (o) => ({ values_count: num(o('values_count')), axis: num(o('axis')) }) },
  Pad: simple('PAD', 'PadOptions', 'pad_options'),
  PadV2: simple('PADV2', 'PadV2Options', 'padv2_options'),
  Pow: simple('POW', 'PowOptions', 'pow_options'),
  PRelu: simple('PRELU'),
  Quantize: simple('QUANTIZE', 'QuantizeOptions'),
  Range: simple('RANGE', 'RangeOptions', 'range_options'),
  Rank: simple('RANK', 'RankOptions', 'rank_options'),
  ReduceAny: { code: 'REDUCE_ANY', options: 'ReducerOptions', from: 'reduce_any_options', map: reducer },
  ReduceMax: { code: 'REDUCE_MAX', options: 'ReducerOptions', from: 'reduce_max_options', map: reducer },
  ReduceMin: { code: 'REDUCE_MIN', options: 'ReducerOptions', from: 'reduce_min_options', map: reducer },
  ReduceProd: { code: 'REDUCE_PROD', options: 'ReducerOptions', from: 'reduce_prod_options', map: reducer },
  ReLU: simple('RELU'),
  ReLU6: simple('RELU6'),
  ReLUN1To1: simple('RELU_N1_TO_1'),
  Reshape: {
    code: 'RESHAPE',
    options: 'ReshapeOptions',
    from: 'reshape_options',
    onlyWhenGiven: true,
    map: (o) => ({ new_shape: ints(o('new_shape')) }),
  },
  ResizeBilinear: {
    code: 'RESIZE_BILINEAR',
    options: 'ResizeBilinearOptions',
    from: 'resize_bilinear_options',
    map: (o) => ({ align_corners: bool(o('align_corners')), half_pixel_centers: bool(o('half_pixel_centers')) }),
  },
  ResizeNearestNeighbor: {
    code: 'RESIZE_NEAREST_NEIGHBOR',
    options: 'ResizeNearestNeighborOptions',
    from: 'resize_nearest_neighbor_options',
    map: (o) => ({ align_corners: bool(o('align_corners')) }),
  },
  ReverseSequence: {
    code: 'REVERSE_SEQUENCE',
    options: 'ReverseSequenceOptions',
    from: 'reverse_sequence_options',
    map: (o) => ({ seq_dim: num(o('seq_dim')), batch_dim: num(o('batch_dim')) }),
  },
  ReverseV2: simple('REVERSE_V2', 'ReverseV2Options', 'reversev2_options'),
  Round: simple('ROUND'),
  Rsqrt: simple('RSQRT'),
  ScatterNd: simple('SCATTER_ND', 'ScatterNdOptions', 'scatter_nd_options'),
  SegmentSum: simple('SEGMENT_SUM', 'SegmentSumOptions', 'segment_sum_options'),
  Select: simple('SELECT', 'SelectOptions', 'select_options'),
  SelectV2: simple('SELECT_V2', 'SelectV2Options'),
  Shape: { code: 'SHAPE', options: 'ShapeOptions', from: 'shape_options', map: (o) => ({ out_type: tensorType(o('out_type')) }) },
  Sin: simple('SIN'),
  Slice: simple('SLICE', 'SliceOptions', 'slice_options'),
  Softmax: { code: 'SOFTMAX', options: 'SoftmaxOptions', from: 'softmax_options', map: (o) => ({ beta: num(o('beta')) }) },
  SpaceToBatchND: simple('SPACE_TO_BATCH_ND', 'SpaceToBatchNDOptions', 'space_to_batch_nd_options'),
  SpaceToDepth: { code: 'SPACE_TO_DEPTH', options: 'SpaceToDepthOptions', from: 'space_to_depth_options', map: (o) => ({ block_size: num(o('block_size')) }) },
  SparseToDense: {
    code: 'SPARSE_TO_DENSE',
    options: 'SparseToDenseOptions',
    from: 'sparse_to_dense_options',
    map: (o) => ({ validate_indices: bool(o('validate_indices')) }),
  },
  Split: { code: 'SPLIT', options: 'SplitOptions', from: 'split_options', map: (o) => ({ num_splits: num(o('num_splits')) }) },
  SplitV: { code: 'SPLIT_V', options: 'SplitVOptions', from: 'split_v_options', map: (o) => ({ num_splits: num(o('num_splits')) }) },
  Sqrt: simple('SQRT'),
  Square: simple('SQUARE', 'SquareOptions'),
  SquaredDifference: simple('SQUARED_DIFFERENCE', 'SquaredDifferenceOptions', 'squared_difference_options'),
  Squeeze: { code: 'SQUEEZE', options: 'SqueezeOptions', from: 'squeeze_options', map: (o) => ({ squeeze_dims: ints(o('squeeze_dim')) }) },
  StridedSlice: {
    code: 'STRIDED_SLICE',
    options: 'StridedSliceOptions',
    from: 'strided_slice_options',
    map: (o) => ({
      begin_mask: num(o('begin_mask')),
      end_mask: num(o('end_mask')),
      ellipsis_mask: num(o('ellipsis_mask')),
      new_axis_mask: num(o('new_axis_mask')),
      shrink_axis_mask: num(o('shrink_axis_mask')),
    }),
  },
  Sub: { code: 'SUB', options: 'SubOptions', from: 'sub_options', map: activationOnly },
  Sum: { code: 'SUM', options: 'ReducerOptions', from: 'sum_options', map: reducer },
  SVDF: {
    code: 'SVDF',
    options: 'SVDFOptions',
    from: 'svdf_options',
    map: (o) => ({ rank: num(o('rank')), fused_activation_function: act(o('activation')), asymmetric_quantize_inputs: bool(o('asymmetric_quantize_inputs')) }),
  },
  Tanh: simple('TANH'),
  Tile: simple('TILE', 'TileOptions', 'tile_options'),
  TopKV2: simple('TOPK_V2', 'TopKV2Options', 'topk_v2_options'),
  Transpose: simple('TRANSPOSE', 'TransposeOptions', 'transpose_options'),
  TransposeConv: {
    code: 'TRANSPOSE_CONV',
    options: 'TransposeConvOptions',
    from: 'transpose_conv_options',
    map: (o) => ({ padding: pad(o('padding')), stride_w: num(o('stride_w')), stride_h: num(o('stride_h')), fused_activation_function: act(o('activation')) }),
  },
  UnidirectionalSequenceLSTM: {
    code: 'UNIDIRECTIONAL_SEQUENCE_LSTM',
    options: 'UnidirectionalSequenceLSTMOptions',
    from: 'unidirectional_sequence_lstm_options',
    map: (o) => ({
      fused_activation_function: act(o('activation')),
      cell_clip: num(o('cell_clip')),
      proj_clip: num(o('proj_clip')),
      time_major: bool(o('time_major')),
      asymmetric_quantize_inputs: bool(o('asymmetric_quantize_inputs')),
    }),
  },
  Unique: { code: 'UNIQUE', options: 'UniqueOptions', from: 'unique_options', map: (o) => ({ idx_out_type: tensorType(o('idx_out_type')) }) },
  Unpack: { code: 'UNPACK', options: 'UnpackOptions', from: 'unpack_options', map: (o) => ({ num: num(o('num')), axis: num(o('axis')) }) },
  Where: simple('WHERE', 'WhereOptions', 'where_options'),
  While: {
    code: 'WHILE',
    options: 'WhileOptions',
    from: 'while_options',
    map: (o) => ({ cond_subgraph_index: num(o('cond_subgraph_index')), body_subgraph_index: num(o('body_subgraph_index')) }),
  },
  ZerosLike: simple('ZEROS_LIKE', 'ZerosLikeOptions', 'zeros_like_options'),
};

/** The op type a misspelt one most likely meant ("relu" -> "ReLU"), if any. */
export function suggestOpType(type: string): string | null {
  const lower = type.toLowerCase();
  for (const name of [...Object.keys(OPS), ...CUSTOM_TYPES]) if (name.toLowerCase() === lower) return name;
  return null;
}

/**
 * Types tflchef writes as CUSTOM operators, with the type name as custom_code. tflchef also
 * encodes some of their options (all_options, matmul_options, max_pool_with_argmax_options) as
 * FlexBuffers custom_options; this chef leaves custom_options empty.
 */
export const CUSTOM_TYPES: ReadonlySet<string> = new Set([
  'AddV2',
  'All',
  'BatchMatMulV2',
  'BroadcastTo',
  'Erf',
  'MatMul',
  'MatrixBandPart',
  'MaxPoolWithArgmax',
]);

/** Netron-like category of a circle operator: it picks the node colour. */
import type { NodeCategory } from '../graph/model';

const GROUPS: [NodeCategory, string[]][] = [
  ['Layer', [
    'CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'TRANSPOSE_CONV', 'CONV_3D', 'CONV_3D_TRANSPOSE', 'LSTM', 'RNN',
    'SVDF', 'UNIDIRECTIONAL_SEQUENCE_LSTM', 'UNIDIRECTIONAL_SEQUENCE_RNN', 'BIDIRECTIONAL_SEQUENCE_LSTM',
    'BIDIRECTIONAL_SEQUENCE_RNN', 'EMBEDDING_LOOKUP', 'EMBEDDING_LOOKUP_SPARSE', 'HASHTABLE_LOOKUP', 'LSH_PROJECTION',
    'BCQ_FULLY_CONNECTED', 'BCQ_GATHER', 'GRU', 'STABLEHLO_CONVOLUTION', 'BATCH_MATMUL',
  ]],
  ['Activation', [
    'RELU', 'RELU6', 'RELU_N1_TO_1', 'RELU_0_TO_1', 'LOGISTIC', 'TANH', 'SOFTMAX', 'LOG_SOFTMAX', 'PRELU', 'LEAKY_RELU',
    'ELU', 'HARD_SWISH', 'GELU', 'STABLEHLO_LOGISTIC', 'STABLEHLO_TANH',
  ]],
  ['Pool', ['AVERAGE_POOL_2D', 'MAX_POOL_2D', 'L2_POOL_2D', 'REDUCE_WINDOW', 'STABLEHLO_REDUCE_WINDOW']],
  ['Normalization', ['L2_NORMALIZATION', 'LOCAL_RESPONSE_NORMALIZATION', 'INSTANCE_NORM', 'RMS_NORM']],
  ['Shape', [
    'RESHAPE', 'SQUEEZE', 'EXPAND_DIMS', 'SHAPE', 'RANK', 'BROADCAST_TO', 'BROADCAST_ARGS', 'STABLEHLO_RESHAPE',
    'STABLEHLO_BROADCAST_IN_DIM',
  ]],
  ['Tensor', [
    'CONCATENATION', 'SPLIT', 'SPLIT_V', 'PACK', 'UNPACK', 'GATHER', 'GATHER_ND', 'TRANSPOSE', 'SLICE', 'STRIDED_SLICE',
    'TILE', 'PAD', 'PADV2', 'MIRROR_PAD', 'DEPTH_TO_SPACE', 'SPACE_TO_DEPTH', 'BATCH_TO_SPACE_ND', 'SPACE_TO_BATCH_ND',
    'REVERSE_V2', 'REVERSE_SEQUENCE', 'SCATTER_ND', 'ONE_HOT', 'FILL', 'ZEROS_LIKE', 'CONCAT_EMBEDDINGS', 'UNIQUE',
    'RESIZE_BILINEAR', 'RESIZE_NEAREST_NEIGHBOR', 'DILATE', 'STABLEHLO_CONCATENATE', 'STABLEHLO_SLICE',
    'STABLEHLO_TRANSPOSE', 'STABLEHLO_GATHER', 'STABLEHLO_SCATTER', 'STABLEHLO_PAD', 'STABLEHLO_DYNAMIC_SLICE',
    'STABLEHLO_DYNAMIC_UPDATE_SLICE', 'DYNAMIC_UPDATE_SLICE', 'ROPE',
  ]],
  ['Quantization', ['QUANTIZE', 'DEQUANTIZE', 'FAKE_QUANT']],
  ['Control', ['IF', 'WHILE', 'CALL_ONCE', 'RUN_MODEL', 'CALL', 'STABLEHLO_WHILE']],
  ['Custom', ['CUSTOM']],
];

const BY_NAME = new Map<string, NodeCategory>();
for (const [category, names] of GROUPS) for (const n of names) BY_NAME.set(n, category);

/**
 * Category of an operator from its BuiltinOperator name; `custom` marks custom ops
 * (whose type is their custom_code). Everything else (arithmetic, comparison ...) is 'Other'.
 */
export function operatorCategory(builtinName: string, custom = false): NodeCategory {
  if (custom) return 'Custom';
  return BY_NAME.get(builtinName) ?? 'Other';
}

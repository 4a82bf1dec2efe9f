/**
 * Warming the view's code up before the first real graph arrives. A fresh worker runs its first
 * layout of a big graph far slower than the next one while V8 compiles the code (at 100,000
 * operators about a third of `prepareView` went to code not compiled yet), and the layout worker
 * sits idle while the model worker reads, parses and packs the first file (over a second at that
 * size). So it lays out a few small graphs of the shape real models have (ResNet-like blocks:
 * a convolution with its filter and bias, an activation, an add with a skip; graph inputs and
 * outputs), which compiles the same code with the same kinds of values, and stops as soon as a
 * real request comes.
 */
import { PackBuilder, type GraphPack } from '../pack';
import { copyLabelGround, prepareView, sceneLabels, type SceneMeasures } from './scene';
import { decodeStrings } from '../pack';
import { DEFAULT_DISPLAY, type DisplayOptions } from './node-box';
import type { LayoutOptions } from '../layout-types';

/**
 * A ResNet-like pack of `operators` operators: CONV_2D (filter and bias constants, two in-node
 * attributes) -> RELU -> ADD whose second input is the block's input (a skip over three ranks),
 * with a graph input first and a graph output last, named and typed as a circle model is.
 */
export function warmUpPack(operators: number): GraphPack {
  const b = new PackBuilder(operators + 2, 2 * operators, operators);
  const st = b.strings;
  const label = st.add('float32[1,16,16,8]');
  const types = [st.add('CONV_2D'), st.add('RELU'), st.add('ADD')];
  const categories = ['Layer', 'Activation', 'Tensor'] as const;
  const filter = [st.add('filter'), st.add('8\u00d71\u00d71\u00d78'), st.add('float32'), st.add('')] as const;
  const bias = [st.add('bias'), st.add('8'), st.add('float32'), st.add('')] as const;
  const padding = [st.add('padding'), st.add('VALID')] as const;
  const stride = [st.add('stride_w'), st.add('2')] as const;
  let edges = 0;
  let x = b.node(st.append('in:0'), 'input', st.add('Input'), st.append('input'), 'Input', 0);
  let skip = x;
  for (let i = 0; i < operators; i++) {
    const k = i % 3;
    const node = b.node(st.append(`op:${i}`), 'op', types[k]!, st.append(`block_${(i / 3) | 0}/op_${i}`), categories[k]!, i);
    if (k === 0) {
      b.constant(filter[0], filter[1], filter[2], filter[3]);
      b.constant(bias[0], bias[1], bias[2], bias[3]);
      b.attribute(padding[0], padding[1]);
      b.attribute(stride[0], stride[1]);
    }
    b.edge(x, node, i, b.nameOf(x), label);
    edges++;
    if (k === 2) {
      b.edge(skip, node, i, b.nameOf(skip), label);
      edges++;
      skip = node;
    }
    x = node;
  }
  const out = b.node(st.append('out:0'), 'output', st.add('Output'), b.nameOf(x), 'Output', operators);
  b.edge(x, out, operators, b.nameOf(x), label);
  return b.finish('warm-up', 'warm-up', { nodes: operators, edges: edges + 1 });
}

/** Sizes of the warm-up graphs, laid out in this order. */
export const WARM_UP_OPERATORS = [300, 1500, 1500];

/**
 * Lays out and prepares the warm-up graphs (scene and edge labels, as a real request would),
 * calling `pause` before each and stopping when `proceed` says no. Returns how many were done.
 */
export async function warmUpView(
  measures: SceneMeasures,
  proceed: () => boolean,
  pause: () => Promise<void>,
  display: DisplayOptions = DEFAULT_DISPLAY,
  options: LayoutOptions = { direction: 'TB', nodesep: 20, ranksep: 30 },
): Promise<number> {
  let done = 0;
  for (const operators of WARM_UP_OPERATORS) {
    await pause();
    if (!proceed()) break;
    const pack = warmUpPack(operators);
    const strings = decodeStrings(pack.strings);
    const { layout, scene } = prepareView(pack, display, options, measures, () => {}, strings, false);
    const kept = copyLabelGround(scene, layout);
    sceneLabels(pack, strings, kept.layout, kept.ground, measures);
    done++;
  }
  return done;
}

/**
 * Scenes prepared off the UI thread, keyed by the layout they were computed for, with the pack's
 * decoded strings they refer to. Whoever asks the layout worker for a prepared view
 * (ui/actions.ts `prepareGraphView`) registers the scene here; GraphView picks it up for that
 * layout instead of building the scene itself. The scene records the node display choice it was
 * made for (graph/display.ts re-prepares views when the choice changes).
 *
 * A big graph's edge labels arrive after its scene: the layout worker places them when asked,
 * which is once a view has drawn the scene and the UI thread is idle (`sceneDrawn`), so the placement (a few hundred ms at
 * 100,000 operators) does not take the second core from the first frame. `applySceneLabels` puts
 * them into the registered scene and into every scene a view made from it, and tells those views
 * to draw again.
 */
import type { GraphLayout } from '../../core/graph/layout-types';
import type { SceneData, SceneLabels } from '../../core/graph/view/scene';

export interface PreparedScene {
  scene: SceneData;
  strings: readonly string[];
}

const scenes = new WeakMap<GraphLayout, PreparedScene>();
/** views drawing a layout: called with the labels when they arrive */
const waiting = new WeakMap<GraphLayout, Set<(labels: SceneLabels) => void>>();

/** who asks for a layout's labels, until a view has drawn it */
const labelRequests = new WeakMap<GraphLayout, () => void>();

/** `requestLabels`, for a scene without its edge labels: asks for them (called once, at first draw). */
export function registerPreparedScene(layout: GraphLayout, scene: SceneData, strings: readonly string[], requestLabels?: () => void) {
  scenes.set(layout, { scene, strings });
  if (requestLabels) labelRequests.set(layout, requestLabels);
}

/**
 * How long after a big graph's first frame its edge labels are asked for at the latest: they are
 * asked for at the UI thread's first idle moment (the frame painted and the view's follow-up
 * tasks done), so the placement and the compiling of its code in the layout worker (on a two-core
 * machine about half a second of CPU at 100,000 operators) do not take a core from those tasks.
 */
const LABELS_IDLE_TIMEOUT_MS = 250;

/** A view has drawn `layout`: its edge labels, if they are still to come, are asked for once the UI thread is idle. */
export function sceneDrawn(layout: GraphLayout) {
  const request = labelRequests.get(layout);
  if (!request) return;
  labelRequests.delete(layout);
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => request(), { timeout: LABELS_IDLE_TIMEOUT_MS });
  else setTimeout(request, 0);
}

export function preparedSceneFor(layout: GraphLayout): PreparedScene | undefined {
  return scenes.get(layout);
}

/** The edge labels of a registered scene, placed after it was sent. */
export function applySceneLabels(layout: GraphLayout, labels: SceneLabels) {
  const p = scenes.get(layout);
  if (p) Object.assign(p.scene, labels);
  for (const l of waiting.get(layout) ?? []) l(labels);
  performance.mark('npu:view:labels');
}

/** Calls `onLabels` when labels for `layout` arrive; returns the unsubscribe function. */
export function onSceneLabels(layout: GraphLayout, onLabels: (labels: SceneLabels) => void): () => void {
  let set = waiting.get(layout);
  if (!set) waiting.set(layout, (set = new Set()));
  set.add(onLabels);
  return () => set.delete(onLabels);
}

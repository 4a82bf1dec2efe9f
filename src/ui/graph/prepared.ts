/**
 * Scenes prepared off the UI thread, keyed by the layout they were computed for. Whoever asks
 * the layout worker for a prepared view (ui/actions.ts `prepareGraphView`) registers the scene
 * here; GraphView picks it up for that layout instead of building the scene itself.
 */
import type { GraphLayout } from '../../core/graph/layout-types';
import type { SceneData } from '../../core/graph/view/scene';

const scenes = new WeakMap<GraphLayout, SceneData>();

export function registerPreparedScene(layout: GraphLayout, scene: SceneData) {
  scenes.set(layout, scene);
}

export function preparedSceneFor(layout: GraphLayout): SceneData | undefined {
  return scenes.get(layout);
}

/**
 * Scenes prepared off the UI thread, keyed by the layout they were computed for, with the pack's
 * decoded strings they refer to. Whoever asks the layout worker for a prepared view
 * (ui/actions.ts `prepareGraphView`) registers the scene here; GraphView picks it up for that
 * layout instead of building the scene itself. The scene records the node display choice it was
 * made for (graph/display.ts re-prepares views when the choice changes).
 */
import type { GraphLayout } from '../../core/graph/layout-types';
import type { SceneData } from '../../core/graph/view/scene';

export interface PreparedScene {
  scene: SceneData;
  strings: readonly string[];
}

const scenes = new WeakMap<GraphLayout, PreparedScene>();

export function registerPreparedScene(layout: GraphLayout, scene: SceneData, strings: readonly string[]) {
  scenes.set(layout, { scene, strings });
}

export function preparedSceneFor(layout: GraphLayout): PreparedScene | undefined {
  return scenes.get(layout);
}

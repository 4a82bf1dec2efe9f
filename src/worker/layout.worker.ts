/// <reference lib="webworker" />
/**
 * The layout worker: stateless, so a cancel terminates it (see ui/workers.ts). From a packed
 * graph and the node display choice it sizes the node boxes (text measured on an OffscreenCanvas),
 * lays the graph out and prepares the renderer's scene (fitted labels, edge curves, spatial
 * grids, edge-label placement, keyboard navigation), so the UI thread only draws.
 */
import * as Comlink from 'comlink';
import { layout } from '../core/graph/layout';
import { copyLabelGround, labelBuffers, prepareView, sceneBuffers, sceneLabels, sceneMeasuresFrom, type TextMeasurer } from '../core/graph/view/scene';
import { decodeStrings } from '../core/graph/pack';
import type { LayoutWorkerApi, SceneLabels } from './api';
import { guarded } from './failures';
import type { GraphLayout, LayoutProgress } from '../core/graph/layout-types';

function layoutBuffers(result: GraphLayout): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [result.x, result.y, result.w, result.h, result.rank, result.edgeOffsets, result.edgePoints];
  if (result.reversed) arrays.push(result.reversed);
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

function throttled(onProgress?: (phase: string, fraction: number) => void): LayoutProgress {
  let last = 0;
  // the work done up to each report, as a User Timing measure named by it (`npu:phase:rank` ...),
  // for the browser bench's trace (phases report when they end)
  let phaseAt = performance.now();
  let phaseName = '';
  return (phase, fraction) => {
    const now = performance.now();
    if (phase !== phaseName) {
      performance.measure(`npu:phase:${phase}`, { start: phaseAt, end: now });
      phaseAt = now;
      phaseName = phase;
    }
    if (onProgress && now - last > 100) {
      last = now;
      void onProgress(phase, fraction);
    }
  };
}

/**
 * From this many edges, a view's edge labels are placed after its scene is sent, when the UI asks
 * (`placeEdgeLabels`, once the graph is drawn: a few hundred milliseconds at 100,000 operators
 * that would otherwise take the second core from the first frame); smaller graphs get their
 * labels in the one answer.
 */
const LABELS_LATER_EDGES = 20_000;
/** label placements waiting for the UI's call, by job number; only the newest few are kept */
const labelJobs = new Map<number, () => SceneLabels>();
const LABEL_JOBS_KEPT = 4;
let lastLabelJob = 0;

let measurer: TextMeasurer | null | undefined;
function workerMeasurer(): TextMeasurer | null {
  if (measurer === undefined) {
    measurer = typeof OffscreenCanvas !== 'undefined' ? (new OffscreenCanvas(1, 1).getContext('2d') as TextMeasurer | null) : null;
  }
  return measurer;
}

const api: LayoutWorkerApi = {
  async layout(input, options, onProgress) {
    const result = layout(input, options, throttled(onProgress));
    return Comlink.transfer(result, layoutBuffers(result));
  },
  async prepareView(pack, options, display, onProgress, labelsLaterAllowed) {
    const t0 = performance.now();
    const measures = sceneMeasuresFrom(workerMeasurer());
    const later = labelsLaterAllowed === true && pack.edgeFrom.length >= LABELS_LATER_EDGES;
    const strings = decodeStrings(pack.strings);
    const { layout: result, scene } = prepareView(pack, display, options, measures, throttled(onProgress), strings, !later);
    performance.measure('npu:prepare-view', { start: t0, end: performance.now() });
    let labelsJob: number | undefined;
    if (later) {
      // the scene leaves now (transferred); the labels are placed on copies of what they read
      const kept = copyLabelGround(scene, result);
      labelsJob = ++lastLabelJob;
      labelJobs.set(labelsJob, () => sceneLabels(pack, strings, kept.layout, kept.ground, measures));
      for (const old of labelJobs.keys()) if (labelJobs.size > LABEL_JOBS_KEPT) labelJobs.delete(old);
    }
    return Comlink.transfer({ layout: result, scene, labelsJob }, [...new Set([...layoutBuffers(result), ...sceneBuffers(scene)])]);
  },
  async placeEdgeLabels(job) {
    const place = labelJobs.get(job);
    if (!place) return null;
    labelJobs.delete(job);
    const t1 = performance.now();
    const labels = place();
    performance.measure('npu:edge-labels', { start: t1, end: performance.now() });
    return Comlink.transfer(labels, labelBuffers(labels));
  },
};

// a failure is a bug of the layout, never the file's: it leaves as `kind: 'internal'`
Comlink.expose(guarded(api, () => 'graph layout'));

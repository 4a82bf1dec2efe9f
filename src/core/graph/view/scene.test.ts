import { describe, expect, it } from 'vitest';
import { decodeStrings, packGraph } from '../pack';
import { resnetGraph, transformerGraph } from '../synthetic';
import { copyLabelGround, noLabels, prepareView, sceneLabels, sceneMeasuresFrom } from './scene';
import { DEFAULT_DISPLAY } from './node-box';

const measures = sceneMeasuresFrom(null);
const options = { direction: 'TB' as const, nodesep: 20, ranksep: 30 };

describe('prepared scenes', () => {
  it.each([
    ['ResNet-like', resnetGraph(600)],
    ['transformer', transformerGraph(600)],
  ])('%s: labels placed afterwards, on copies, are the labels placed at once', (_, g) => {
    const p = packGraph(g);
    const strings = decodeStrings(p.strings);
    const whole = prepareView(p, DEFAULT_DISPLAY, options, measures, undefined, strings, true);
    const first = prepareView(p, DEFAULT_DISPLAY, options, measures, undefined, strings, false);
    // the first answer draws no label
    expect(first.scene.edgeLabelRef).toEqual(noLabels(first.scene.edgeCount).edgeLabelRef);
    const kept = copyLabelGround(first.scene, first.layout);
    // the originals may be transferred away: wipe them to prove the copies are used
    first.scene.flat.points.fill(0);
    first.scene.segmentGrid.items.fill(0);
    const later = sceneLabels(p, strings, kept.layout, kept.ground, measures);
    expect(later.edgeLabelRef).toEqual(whole.scene.edgeLabelRef);
    expect(later.edgeLabelFit).toEqual(whole.scene.edgeLabelFit);
    expect(later.edgeLabelX).toEqual(whole.scene.edgeLabelX);
    expect(later.edgeLabelY).toEqual(whole.scene.edgeLabelY);
    expect([...whole.scene.edgeLabelRef].filter((r) => r >= 0).length).toBeGreaterThan(g.edges.length / 2);
  });
});

/// <reference lib="webworker" />
import * as Comlink from 'comlink';
import { layout } from '../core/graph/layout';
import type { LayoutWorkerApi } from './api';
import type { GraphLayout } from '../core/graph/layout-types';

const api: LayoutWorkerApi = {
  async layout(input, options, onProgress) {
    let last = 0;
    const result: GraphLayout = layout(input, options, (phase, fraction) => {
      const now = performance.now();
      if (onProgress && now - last > 100) {
        last = now;
        void onProgress(phase, fraction);
      }
    });
    const buffers = new Set<ArrayBuffer>([result.x, result.y, result.w, result.h, result.rank, result.edgeOffsets, result.edgePoints].map((a) => a.buffer as ArrayBuffer));
    return Comlink.transfer(result, [...buffers]);
  },
};

Comlink.expose(api);

/// <reference lib="webworker" />
/**
 * The model worker: parses files, builds graphs, answers detail and find queries. Exposed to the
 * UI through Comlink (see ./api.ts). Nothing here touches the DOM.
 */
import * as Comlink from 'comlink';
import type { ModelWorkerApi } from './api';
import { createModelService } from './service';

Comlink.expose(createModelService() satisfies ModelWorkerApi);

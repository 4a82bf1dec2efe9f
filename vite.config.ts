import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Cross-origin isolation, so that SharedArrayBuffer exists and the kernels' compute workers share
// one WebAssembly memory (src/worker/kernels.ts). Everything the app loads is same-origin (its
// bundles, Monaco and its workers, the samples), so require-corp blocks nothing. A static host
// serving the build must send the same two headers, or the kernels run on one thread.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
  // `npm start` names the sample to open when the page has no ?sample= (see scripts/start.mjs)
  define: { __DEFAULT_SAMPLE__: JSON.stringify(process.env.NPU_STUDIO_SAMPLE ?? '') },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false, headers: crossOriginIsolation },
  preview: { port: 4173, headers: crossOriginIsolation },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
});

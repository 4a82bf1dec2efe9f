import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // `npm start` names the sample to open when the page has no ?sample= (see scripts/start.mjs)
  define: { __DEFAULT_SAMPLE__: JSON.stringify(process.env.NPU_STUDIO_SAMPLE ?? '') },
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
  preview: { port: 4173 },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
});

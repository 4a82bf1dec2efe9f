import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  worker: { format: 'es' },
  server: { port: 5173, strictPort: false },
  preview: { port: 4173 },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
});

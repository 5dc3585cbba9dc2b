import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API serves the build (apps/api/src/dashboard/serve.ts); `pnpm --filter @herald/dashboard dev`
// proxies the API's paths to a local API on port 3000 instead.
const apiPaths = ['/auth', '/projects', '/push', '/push-templates', '/push-config', '/health', '/ready', '/openapi.json'];

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      '@herald/client': fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url)),
      '@herald/schemas': fileURLToPath(new URL('../../packages/schemas/src/index.ts', import.meta.url)),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1000 },
  server: { port: 5173, proxy: Object.fromEntries(apiPaths.map((p) => [p, 'http://localhost:3000'])) },
});

// The operator console, built into dist/console and served by the gateway at /console/
// (src/areas/console). `npm run build` (and so `npm install` and `npm test`) runs this build.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.join(here, '../dist/console'),
    emptyOutDir: true,
    // Hashed file names: the gateway serves assets/ as immutable.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 1500,
  },
});

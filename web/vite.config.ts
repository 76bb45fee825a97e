import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/** Builds the dashboard into web/dist, which Mailroom serves at / (src/dashboard/dashboard.routes.ts). */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', assetsDir: 'assets', reportCompressedSize: false },
});

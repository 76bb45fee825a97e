import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on real servers and clients rather than compute: two at a time keep both cores
    // busy. Files share their fork's module cache (each still starts its own app), which saves about
    // three seconds of imports per file (docs/decisions.md, D29).
    maxWorkers: 2,
    isolate: false,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});

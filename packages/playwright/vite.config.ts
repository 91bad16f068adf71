import { defineConfig } from 'vite';
import { sourceResolve } from '../../scripts/source-condition.js';
import { libraryBuild } from '../../vite.config.js';

export default defineConfig({
  ...sourceResolve,
  build: libraryBuild(import.meta.url, { index: 'src/index.ts' }),
});

import { defineConfig } from 'vite';
import { libraryBuild } from '../../vite.config.js';

export default defineConfig({
  build: libraryBuild(import.meta.url, { index: 'src/index.ts' }),
});

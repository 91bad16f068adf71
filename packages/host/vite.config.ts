import { defineConfig } from 'vite';
import { libraryBuild } from '../../vite.config.js';

// dist/cli.js is the `toolwire` bin, run by plain Node: the workspace packages (which export
// TypeScript sources) are bundled in; npm dependencies and node: builtins stay imports.
const build = libraryBuild(import.meta.url, { index: 'src/index.ts', cli: 'src/cli/bin.ts' });

export default defineConfig({
  build: {
    ...build,
    ssr: false,
    rollupOptions: {
      ...build.rollupOptions,
      external: (id: string) =>
        !id.startsWith('.') &&
        !id.startsWith('/') &&
        !id.startsWith('\0') &&
        !id.startsWith('@toolwire/'),
    },
  },
});

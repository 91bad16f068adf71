import { defineConfig } from 'vite';
import { sourceResolve } from '../../scripts/source-condition.js';
import { libraryBuild } from '../../vite.config.js';

// dist/cli.js is the `toolwire` bin, run by plain Node. The workspace packages are bundled in
// (from their sources): the bin then runs whatever NODE_OPTIONS conditions its caller set, and
// a build of the host never waits for, or reads a stale, dist/ of its siblings. npm
// dependencies and node: builtins stay imports.
const build = libraryBuild(import.meta.url, { index: 'src/index.ts', cli: 'src/cli/bin.ts' });

export default defineConfig({
  ...sourceResolve,
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

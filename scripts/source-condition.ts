import { defaultClientConditions, defaultServerConditions } from 'vite';

/**
 * Packaging (docs/architecture.md): every package's `exports` lists this condition first,
 * pointing at its TypeScript source; `types` / `import` point at `dist/`. Inside the repository
 * tsconfig (`customConditions`), Vite, vitest and tsx-run scripts turn it on, so tests and
 * type checks read sources without a build. `publishConfig.exports` leaves it out of the tarball.
 */
export const SOURCE_CONDITION = '@toolwire/source';

/** The Vite `resolve` options that read workspace packages from source (browser and SSR). */
export const sourceResolve = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
};

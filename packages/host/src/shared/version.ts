/**
 * The version of @toolwire/host, from its package.json: read at build time into dist/ (Vite
 * inlines the JSON) and at run time from source (tsx, vitest), so no copy of it is typed.
 */
import manifest from '../../package.json' with { type: 'json' };

export const VERSION: string = manifest.version;

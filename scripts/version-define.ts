import { readFileSync } from 'node:fs';

/**
 * The `define` that stamps @toolwire/endpoint's package.json version into its source
 * (`SDK_VERSION`, sent in `session.open`): used by its build and by every config that compiles
 * its source (unit tests, e2e pages, the demo), so no copy of the version is typed anywhere.
 */
const manifest = JSON.parse(
  readFileSync(new URL('../packages/endpoint/package.json', import.meta.url), 'utf8'),
) as { version: string };

export const endpointVersionDefine = {
  __TOOLWIRE_ENDPOINT_VERSION__: JSON.stringify(manifest.version),
};

/**
 * The defines of a page script (the polyfill's and the endpoint's IIFEs):
 * - `__TOOLWIRE_IIFE__`: `'split'` fetches every lazy part from beside the script;
 *   `'standalone'` (the one-file script) inlines what a typical page needs (the cfworker
 *   validator, the lowering, pairing) and fetches only the rarer parts (ajv, frames, form tools,
 *   the native layer, the `ui.*` built-ins, fflate) from beside itself;
 * - `__TOOLWIRE_PACKAGE__` and `__TOOLWIRE_VERSION__`: the package's name and version, where the
 *   script finds its chunks when a CDN serves it under the bare package URL
 *   (packages/polyfill/src/lib/chunks.ts); the name also tells the polyfill's own script, which
 *   has no pairing prompt, from the endpoint's (packages/polyfill/src/declarative/gate.ts).
 */
export function pageScriptDefine(
  packageUrl: URL,
  build: 'split' | 'standalone',
): Record<string, string> {
  const { name, version } = JSON.parse(readFileSync(packageUrl, 'utf8')) as {
    name: string;
    version: string;
  };
  return {
    __TOOLWIRE_IIFE__: JSON.stringify(build),
    __TOOLWIRE_PACKAGE__: JSON.stringify(name),
    __TOOLWIRE_VERSION__: JSON.stringify(version),
  };
}

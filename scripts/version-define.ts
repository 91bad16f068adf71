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

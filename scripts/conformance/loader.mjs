// An ESM resolve hook: an import of `fs` or `node:fs` from inside the conformance package's
// dist resolves to fs-shim.mjs; every other import resolves as usual. Registered by
// register.mjs, on Node versions whose fs has no `globSync` only.
const SHIM = new URL('./fs-shim.mjs', import.meta.url).href;
const PACKAGE_DIST = '/@modelcontextprotocol/conformance/dist/';

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: object) => Promise<unknown>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL ?? '';
  if ((specifier === 'fs' || specifier === 'node:fs') && parent.includes(PACKAGE_DIST)) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

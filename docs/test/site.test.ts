/**
 * `pnpm docs:build` from the repository builds the API reference and the site, and the site has
 * every page: the written ones, the ones that include a file from elsewhere in the repository
 * (their text must really be there), and one API page per public entry point. VitePress fails
 * the build on a dead link, so a passing build is also a link check of the site.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiEntries, apiPagePath } from '../scripts/api-entries.mjs';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(docsDir, '..');
const distDir = join(docsDir, '.vitepress', 'dist');

/**
 * The pnpm that started this process (`pnpm test:docs`: a script, run by Node, or a native
 * binary), else the one on PATH.
 */
function runPnpm(args: string[]) {
  const execPath = process.env.npm_execpath;
  const [command, argv] = !execPath?.includes('pnpm')
    ? ['pnpm', args]
    : /\.[cm]?js$/.test(execPath)
      ? [process.execPath, [execPath, ...args]]
      : [execPath, args];
  return spawnSync(command, argv, { cwd: repoDir, encoding: 'utf8', stdio: 'pipe' });
}

const page = (path: string) => readFileSync(join(distDir, path), 'utf8');

describe('pnpm docs:build', () => {
  beforeAll(() => {
    const build = runPnpm(['docs:build']);
    if (build.status !== 0) {
      throw new Error(
        `pnpm docs:build failed (${build.status}):\n${build.stdout}\n${build.stderr}`,
      );
    }
  });

  it.each([
    ['index.html', 'Where to read next'],
    ['browser-api.html', 'Errors from'],
    ['wire.html', 'The order of answers'],
    ['permissions.html', 'Pairing and credentials'],
    ['architecture.html', 'One call, end to end'],
    ['contributing.html', 'Commands'],
    ['style.html', 'Validators behind a provider'],
    ['getting-started.html', 'Without a bundler'],
    ['security.html', 'Threats and rules'],
    ['limits.html', 'Limits, and what is not done yet'],
    ['performance.html', 'The latest full run'],
    ['conformance.html', 'Scenarios that do not apply'],
    ['mcp-clients.html', 'Which to choose'],
  ])('writes %s', (file, heading) => {
    expect(page(file)).toContain(heading);
  });

  it.each([
    ['lowering.html', 'packages/lowering/LOWERING.md', '[W1]'],
    ['cli.html', 'packages/host/README.md', 'The control API'],
    ['polyfill-rules.html', 'packages/polyfill/README.md', 'Declarative tools'],
    ['react.html', 'packages/react/README.md', 'One component, start to finish'],
    ['playwright.html', 'packages/playwright/README.md', 'What the two paths return'],
    ['performance.html', 'bench/README.md', 'Headline rows'],
  ])('%s includes %s', (file, source, text) => {
    expect(readFileSync(join(repoDir, source), 'utf8')).toContain(text);
    expect(page(file)).toContain(text);
    expect(page(file)).not.toContain('@include');
  });

  it('has an API page for every public entry point, named as users import it', () => {
    const entries: { module: string }[] = apiEntries();
    expect(entries.map((entry) => entry.module)).toEqual(
      expect.arrayContaining(['@toolwire/protocol', '@toolwire/polyfill', '@toolwire/host']),
    );
    expect(page('api/index.html')).toContain('@toolwire/protocol/ajv');
    for (const { module } of entries) {
      const file = join('api', apiPagePath(module).replace(/\.md$/, '.html'));
      expect(existsSync(join(distDir, file)), file).toBe(true);
      expect(page(file)).toContain(module);
    }
    // Generated from the types: a function's signature, not only its name.
    expect(page('api/protocol.html')).toContain('computeRevision');
    expect(page('api/protocol.html')).toContain('TOOL_ERROR_CODES');
  });
});

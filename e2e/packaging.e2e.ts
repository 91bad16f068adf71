import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { packPackages, publishablePackages, REPO_ROOT } from '../scripts/pack.js';
import { HostProcess, toolwire } from './support/cli.js';
import { clickConnect } from './support/pairing.js';
import { type StaticServer, serveFolder } from './support/static-server.js';

// Issue 15, the packaging e2e: toolwire as a user gets it. Every package is packed with
// `pnpm pack` (so it needs `pnpm build` first, as test:e2e does), installed from the tarball
// files into a project outside the workspace (vite and typescript from the registry, through
// pnpm's store), and used there with no workspace resolution at all:
// a Vite app type-checked under create-vite's strict settings, built and run in Chromium;
// plain Node ESM; the `toolwire` bin; the one-file IIFE from a folder holding only it.
// Fixtures: e2e/packaging/ (app/, node/, iife/, typed/).

const FIXTURES = fileURLToPath(new URL('./packaging/', import.meta.url));
const PNPM = ['-y', 'pnpm@12.4.2'];
/** The versions the workspace pins (the store has them after `pnpm install`). */
const VITE = '8.3.8';
const TYPESCRIPT = '7.0.2';

interface Ran {
  code: number;
  out: string;
  err: string;
  ms: number;
}

/** One command in `cwd`, without the workspace's source condition (NODE_OPTIONS). */
function run(command: string, args: string[], cwd: string, timeout = 120_000): Promise<Ran> {
  const { NODE_OPTIONS: _conditions, ...env } = process.env;
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout, encoding: 'utf8' }, (error, out, err) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, out, err, ms: Math.round(performance.now() - started) });
    });
  });
}

function expectOk(ran: Ran, what: string): void {
  expect(ran.code, `${what} failed:\n${ran.out}\n${ran.err}`).toBe(0);
}

test.describe.configure({ timeout: 240_000 });

let root: string;
let project: string;
const servers: StaticServer[] = [];

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-packaging-'));
  const tarballs = join(root, 'tarballs');
  project = join(root, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  const started = performance.now();
  const { packages } = publishablePackages();
  const packed = packPackages(packages, tarballs);
  const packMs = Math.round(performance.now() - started);
  // The tarballs as files; the overrides make their sibling dependencies (`^0.1.0`, not on the
  // registry) resolve to the same files.
  const files = Object.fromEntries(packed.map((pkg) => [pkg.name, `file:${pkg.tarball}`]));
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify(
      {
        name: 'toolwire-user',
        private: true,
        type: 'module',
        dependencies: { ...files, vite: VITE, typescript: TYPESCRIPT },
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(project, 'pnpm-workspace.yaml'),
    `overrides:\n${Object.entries(files)
      .map(([name, file]) => `  "${name}": "${file}"\n`)
      .join('')}`,
  );
  const installed = await run('npx', [...PNPM, 'install', '--prefer-offline'], project, 180_000);
  expectOk(installed, 'pnpm install of the tarballs');
  console.log(
    `packaging: packed ${packed.length} packages in ${packMs} ms, installed in ${installed.ms} ms (${root})`,
  );
});

test.afterAll(async () => {
  for (const server of servers.splice(0)) await server.close();
  if (root && !process.env.TOOLWIRE_KEEP_PACKAGING) rmSync(root, { recursive: true, force: true });
});

test.describe('the packed packages, installed from files outside the workspace', () => {
  test('a Vite app type-checks under create-vite strict settings, builds, and its tool runs in Chromium', async ({
    page,
  }) => {
    cpSync(join(FIXTURES, 'app'), project, { recursive: true });
    const tsc = join(project, 'node_modules', '.bin', 'tsc');
    expectOk(await run(tsc, ['-p', 'tsconfig.json'], project), 'tsc (create-vite settings)');
    // The same, with the declarations themselves checked (create-vite skips them).
    expectOk(
      await run(tsc, ['-p', 'tsconfig.json', '--skipLibCheck', 'false'], project),
      'tsc --skipLibCheck false',
    );
    const vite = join(project, 'node_modules', '.bin', 'vite');
    expectOk(await run(vite, ['build', '--logLevel', 'warn'], project), 'vite build');
    const server = await serveFolder(join(project, 'dist'));
    servers.push(server);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${server.origin}/`);
    await expect(page.locator('#result')).not.toHaveText('pending');
    expect(JSON.parse((await page.locator('#result').textContent()) ?? '')).toEqual({
      called: { isDate: true, weekday: 2 },
      lowered: '2026-12-01T00:00:00.000Z',
      connect: 'function',
      checked: ['function', 'read-only'],
    });
    expect(problems).toEqual([]);
  });

  // tsc fails on an unused `@ts-expect-error`, so the file's two wrong tools prove the types are
  // inferred, not `any`.
  test('type-check: the typed globals and defineTool()', async () => {
    mkdirSync(join(project, 'src'), { recursive: true });
    cpSync(join(FIXTURES, 'app'), project, { recursive: true });
    cpSync(join(FIXTURES, 'typed', 'typed-api.ts'), join(project, 'src', 'typed-api.ts'));
    const tsc = join(project, 'node_modules', '.bin', 'tsc');
    expectOk(await run(tsc, ['-p', 'tsconfig.json'], project), 'tsc with typed-api.ts');
  });

  test('plain Node ESM imports createHost, lower and webmcp, and the host runs', async () => {
    cpSync(join(FIXTURES, 'node'), join(project, 'node'), { recursive: true });
    const ran = await run(process.execPath, ['node/imports.mjs'], project);
    expectOk(ran, 'node node/imports.mjs');
    expect(JSON.parse(ran.out)).toEqual({
      createHost: 'function',
      createToolClient: 'function',
      url: true,
      lowered: '1970-01-01T00:00:00.000Z',
      webmcp: ['function', 'tool_not_found'],
    });
  });

  test('npx toolwire --help runs the bin from the installed tarball', async () => {
    const ran = await run('npx', ['--no-install', 'toolwire', '--help'], project);
    expectOk(ran, 'npx toolwire --help');
    expect(ran.out).toMatch(/^Usage: toolwire <command>/);
    expect(ran.err).toBe('');
  });

  test('the one-file IIFE, alone in a static folder: a tool taking a Date runs', async ({
    page,
  }) => {
    const folder = join(root, 'static');
    mkdirSync(folder);
    cpSync(join(FIXTURES, 'iife', 'index.html'), join(folder, 'index.html'));
    // Found through the package's own `./iife/standalone` export.
    const file = createRequire(join(project, 'package.json')).resolve(
      '@toolwire/endpoint/iife/standalone',
    );
    cpSync(file, join(folder, 'endpoint.standalone.iife.js'));
    const server = await serveFolder(folder);
    servers.push(server);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${server.origin}/`);
    const outcome = await page.evaluate(async () => {
      const w = window as any;
      await w.toolManager.register({
        name: 'notes.due',
        naturalLanguageProperties: { description: 'When a note is due.' },
        inputSchema: { type: 'object', properties: { by: { webType: 'Date' } }, required: ['by'] },
        execute: ({ by }: { by: Date }) => ({
          isDate: by instanceof Date,
          year: by.getUTCFullYear(),
        }),
      });
      return {
        result: await w.tools.callTool(
          'notes.due',
          { by: '2027-01-02T03:04:05Z' },
          { encoding: 'json' },
        ),
        connect: typeof w.toolwire?.connect,
      };
    });
    expect(outcome).toEqual({ result: { isDate: true, year: 2027 }, connect: 'function' });
    expect(server.requested).toEqual(['/', '/endpoint.standalone.iife.js']);
    expect(problems).toEqual([]);
  });

  test('install() in plain Node does nothing: no throw, no global', async () => {
    cpSync(join(FIXTURES, 'node'), join(project, 'node'), { recursive: true });
    const ran = await run(process.execPath, ['node/install.mjs'], project);
    expectOk(ran, 'node node/install.mjs');
    expect(JSON.parse(ran.out)).toEqual({ threw: false, globals: [] });
  });
});

/**
 * The README's quick start, read from README.md at test time: its script tag, its TypeScript
 * and its two commands.
 */
function readmeSteps() {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const scriptTag = /```html\n(<script src="endpoint\.standalone\.iife\.js"[^\n]*)\n```/.exec(
    section,
  )?.[1];
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const host = /npx toolwire host (.*?) --page/.exec(section)?.[1];
  const call = /npx toolwire call cart\.add --args '([^']+)'/.exec(section)?.[1];
  return { scriptTag, code, host, call };
}

test.describe("the README's page-author steps, with the installed packages", () => {
  let host: HostProcess | undefined;
  test.afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  test('one script tag and a defineTool() tool: typed, built, paired, called from the CLI', async ({
    page,
  }) => {
    const steps = readmeSteps();
    expect(steps.scriptTag).toContain('data-toolwire-guard="read-write"');
    expect(steps.code).toContain('defineTool(');
    expect(steps.host).toBe('--max-tool-policy write');
    const app = join(project, 'readme-app');
    mkdirSync(join(app, 'src'), { recursive: true });
    mkdirSync(join(app, 'public'), { recursive: true });
    // Step 1: the one file, copied from the installed package, and the tag as written.
    const file = createRequire(join(project, 'package.json')).resolve(
      '@toolwire/endpoint/iife/standalone',
    );
    cpSync(file, join(app, 'public', 'endpoint.standalone.iife.js'));
    writeFileSync(
      join(app, 'index.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shop</title>\n${steps.scriptTag}\n<script type="module" src="/src/main.ts"></script></head><body></body></html>\n`,
    );
    // Step 2: the TypeScript as written, under create-vite's strict settings, then built.
    writeFileSync(join(app, 'src', 'main.ts'), steps.code ?? '');
    cpSync(join(FIXTURES, 'app', 'tsconfig.json'), join(app, 'tsconfig.json'));
    const bin = (name: string) => join(project, 'node_modules', '.bin', name);
    expectOk(await run(bin('tsc'), ['-p', 'tsconfig.json'], app), 'tsc of the README code');
    expectOk(await run(bin('vite'), ['build', '--logLevel', 'warn'], app), 'vite build');
    const server = await serveFolder(join(app, 'dist'));
    servers.push(server);
    // Step 3: the installed bin's host, the pairing link, Connect, and `toolwire call`.
    const cli = join(project, 'node_modules', '@toolwire', 'host', 'dist', 'cli.js');
    host = new HostProcess([...(steps.host ?? '').split(' '), '--page', `${server.origin}/`], cli);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(await host.pairingLink());
    await clickConnect(page);
    const { env } = host;
    await expect
      .poll(
        async () => JSON.parse((await toolwire(['tools', '--json'], env, cli)).out || '{}').tools,
      )
      .toContainEqual(expect.objectContaining({ id: 'cart.add', policy: 'write', granted: true }));
    const answer = await toolwire(['call', 'cart.add', '--args', steps.call ?? ''], env, cli);
    expect(answer.code, answer.err).toBe(0);
    // `by` arrived as a Date and went back lowered, in UTC; qty took its default.
    expect(JSON.parse(answer.out)).toEqual({
      sku: 'A-1',
      qty: 1,
      deliverBy: '2026-12-24T08:00:00.000Z',
    });
    // The one script is all of toolwire the page fetched: no lazy chunk beside it.
    const scripts = server.requested.filter((path) => path.endsWith('.js'));
    expect(scripts.filter((path) => !path.startsWith('/assets/'))).toEqual([
      '/endpoint.standalone.iife.js',
    ]);
    expect(problems).toEqual([]);
  });
});

// The workspace itself is never what the project above resolves: it lives outside it.
test('the packaging project is outside the workspace', () => {
  expect(root.startsWith(REPO_ROOT)).toBe(false);
});

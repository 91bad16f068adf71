import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { createHost } from '../packages/host/src/index.js';
import { type StaticServer, serveFolder } from './support/static-server.js';

// Issue 15, "one script tag that works": the built IIFEs served by a plain static server, as a
// page author copies them. Alone, a split IIFE cannot find its lazy chunks: that must be loud
// (a console error naming the file, its URL and the fix) and the call must reject with the same
// reason, never hang. The standalone builds need nothing beside them for what a typical page
// does (their rarer parts are fetched as the split scripts fetch theirs). Chunks resolve against
// the script's own URL only: an inline script loads none (e2e/script-gadgets.e2e.ts).

const dist = (pkg: string) => fileURLToPath(new URL(`../packages/${pkg}/dist/`, import.meta.url));
const page = (script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>iife</title>` +
  `<script src="${script}"></script></head><body></body></html>`;

/** The same page under a CSP that allows scripts from its own origin only: no eval. */
const noEval = (html: string) =>
  html.replace(
    '<meta charset="utf-8">',
    `<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="script-src 'self'">`,
  );

let root: string;
let server: StaticServer;

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-iife-'));
  const folder = (name: string, files: Record<string, string>, copies: [string, string][]) => {
    mkdirSync(join(root, name));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, name, file), text);
    for (const [from, file] of copies) copyFileSync(from, join(root, name, file));
  };
  for (const [pkg, script] of [
    ['polyfill', 'polyfill.iife.js'],
    ['endpoint', 'endpoint.iife.js'],
    ['polyfill', 'polyfill.standalone.iife.js'],
    ['endpoint', 'endpoint.standalone.iife.js'],
  ] as const) {
    folder(script, { 'index.html': page(script) }, [[join(dist(pkg), script), script]]);
  }
  // The split polyfill with its chunks, and a page that runs it in an about:blank frame.
  const chunks = readdirSync(dist('polyfill')).filter((file) => /^polyfill-.*\.js$/.test(file));
  folder(
    'blank',
    { 'index.html': page('polyfill.iife.js') },
    [...chunks, 'polyfill.iife.js'].map((file) => [join(dist('polyfill'), file), file]),
  );
  // The same again, where an about:blank frame runs it inline (its requests apart).
  folder(
    'blank-inline',
    { 'index.html': page('polyfill.iife.js') },
    [...chunks, 'polyfill.iife.js'].map((file) => [join(dist('polyfill'), file), file]),
  );
  // The same page allowing no eval (`script-src 'self'`): ajv cannot take over from cfworker
  // there, however long cfworker's checks take on a loaded machine, so which validator a schema
  // fetches depends on the schema alone.
  folder(
    'blank-noeval',
    { 'index.html': noEval(page('polyfill.iife.js')) },
    [...chunks, 'polyfill.iife.js'].map((file) => [join(dist('polyfill'), file), file]),
  );
  // The split endpoint with its chunks.
  const endpointChunks = readdirSync(dist('endpoint')).filter((file) =>
    /^polyfill-.*\.js$/.test(file),
  );
  folder(
    'endpoint-split',
    { 'index.html': page('endpoint.iife.js') },
    [...endpointChunks, 'endpoint.iife.js'].map((file) => [join(dist('endpoint'), file), file]),
  );
  // The same allowing no eval, as 'blank-noeval' above.
  folder(
    'endpoint-noeval',
    { 'index.html': noEval(page('endpoint.iife.js')) },
    [...endpointChunks, 'endpoint.iife.js'].map((file) => [join(dist('endpoint'), file), file]),
  );
  // The same without the built-in ui.* tools' chunk.
  folder(
    'endpoint-no-builtins',
    { 'index.html': page('endpoint.iife.js') },
    [...endpointChunks, 'endpoint.iife.js']
      .filter((file) => file !== 'polyfill-ui-builtins.js')
      .map((file) => [join(dist('endpoint'), file), file]),
  );
  // The same without the chunk a schema failure's details and wording come in.
  folder(
    'endpoint-no-schema-failure',
    { 'index.html': page('endpoint.iife.js') },
    [...endpointChunks, 'endpoint.iife.js']
      .filter((file) => file !== 'polyfill-schema-failure.js')
      .map((file) => [join(dist('endpoint'), file), file]),
  );
  server = await serveFolder(root);
});

test.afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** How one call ended: a value, an error (name, code, message), or no answer in 8 s. */
type Settled = {
  value?: unknown;
  error?: { name: string; code?: string; message: string };
  hung?: true;
};

/** Registers two tools (a schema'd one, one taking a Date) and calls both. */
async function callTools(page: Page): Promise<{ strict: Settled; when: Settled }> {
  return page.evaluate(async () => {
    const w = window as any;
    await w.toolManager.register({
      name: 'strict',
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
      execute: ({ n }: { n: number }) => n + 1,
    });
    await w.toolManager.register({
      name: 'when',
      inputSchema: { type: 'object', properties: { at: { webType: 'Date' } }, required: ['at'] },
      execute: ({ at }: { at: Date }) => ({
        isDate: at instanceof Date,
        year: at.getUTCFullYear(),
      }),
    });
    const settle = (promise: Promise<unknown>): Promise<Settled> =>
      Promise.race([
        promise.then(
          (value) => ({ value }),
          (error) => ({ error: { name: error.name, code: error.code, message: error.message } }),
        ),
        // A bound, not a measure: a call still unsettled after 8 s reads as hung (the test fails).
        new Promise<Settled>((resolve) => setTimeout(() => resolve({ hung: true }), 8_000)),
      ]);
    return {
      strict: await settle(w.tools.callTool('strict', { n: 2 })),
      when: await settle(
        w.tools.callTool('when', { at: '2026-12-01T00:00:00Z' }, { encoding: 'json' }),
      ),
    };
  });
}

function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

for (const [script, standalone] of [
  ['polyfill.iife.js', 'polyfill.standalone.iife.js'],
  ['endpoint.iife.js', 'endpoint.standalone.iife.js'],
] as const) {
  test(`${script} served without its chunks: a console error with the file, URL and fix; calls reject`, async ({
    page,
  }) => {
    const errors = consoleErrors(page);
    await page.goto(`${server.origin}/${script}/`);
    const outcome = await callTools(page);
    const literal = (text: string) => text.replaceAll('.', '\\.');
    const chunkUrl = new RegExp(
      `${literal(`${server.origin}/${script}/polyfill-`)}(validator-cfworker|lowering)\\.js`,
    );
    for (const call of [outcome.strict, outcome.when]) {
      expect(call.hung).toBeUndefined();
      expect(call.error).toMatchObject({
        name: 'ChunkLoadError',
        code: 'toolwire_chunk_load_failed',
      });
      expect(call.error?.message).toMatch(chunkUrl);
      expect(call.error?.message).toContain(`beside ${script}`);
      expect(call.error?.message).toContain(`load ${standalone} instead`);
    }
    expect(outcome.strict.error?.message).toContain(
      'cannot load polyfill-validator-cfworker.js from',
    );
    const logged = errors.filter((text) => text.startsWith('toolwire: cannot load polyfill-'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).toContain(outcome.strict.error?.message);
  });

  test(`${standalone} alone: the tools run, a Date arrives as a Date, nothing else is fetched`, async ({
    page,
  }) => {
    const errors = consoleErrors(page);
    const before = server.requested.length;
    await page.goto(`${server.origin}/${standalone}/`);
    const outcome = await callTools(page);
    expect(outcome).toEqual({
      strict: { value: 3 },
      when: { value: { isDate: true, year: 2026 } },
    });
    const fetched = server.requested.slice(before).filter((path) => path !== '/favicon.ico');
    expect(fetched).toEqual([`/${standalone}/`, `/${standalone}/${standalone}`]);
    expect(errors).toEqual([]);
  });
}

test('in an about:blank frame, an IIFE by src loads its chunks beside it; run inline, none (never from the base URL)', async ({
  page,
}) => {
  const errors = consoleErrors(page);
  await page.goto(`${server.origin}/blank/`);
  const before = server.requested.length;
  const inFrame = (inline: boolean) =>
    page.evaluate(async (inline) => {
      const source = await (await fetch('./polyfill.iife.js')).text();
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const inner = frame.contentWindow as any;
      const doc = frame.contentDocument as Document;
      const script = doc.createElement('script');
      const ran = new Promise((resolve) => {
        if (inline) resolve(undefined);
        else script.onload = resolve;
      });
      if (inline)
        script.textContent = source; // inline: no src of its own
      else script.src = new URL('./polyfill.iife.js', location.href).href;
      doc.head.append(script);
      await ran;
      await inner.toolManager.register({
        name: 'strict',
        // Built in the frame's realm: the registry wants its own realm's plain objects.
        inputSchema: inner.JSON.parse('{"type":"object","properties":{"n":{"minimum":1}}}'),
        execute: ({ n }: { n: number }) => n + 1,
      });
      const failure = (error: any) => ({
        name: error.name,
        code: error.code,
        message: error.message,
      });
      return {
        href: inner.location.href,
        baseURI: doc.baseURI,
        good: await inner.tools.callTool('strict', { n: 2 }).catch(failure),
        bad: await inner.tools.callTool('strict', { n: 0 }).catch((error: Error) => error.name),
      };
    }, inline);
  // The honest path: by src, the chunk comes from beside the script.
  expect(await inFrame(false)).toEqual({
    href: 'about:blank',
    baseURI: `${server.origin}/blank/`,
    good: 3,
    bad: 'DataError',
  });
  expect(server.requested.slice(before)).toContain('/blank/polyfill-validator-cfworker.js');
  expect(errors.filter((text) => text.startsWith('toolwire:'))).toEqual([]);
  // Inline, the script has no URL of its own: the base URL (which markup can move) is not one.
  await page.goto(`${server.origin}/blank-inline/`);
  const inline = await inFrame(true);
  expect(inline.good).toMatchObject({
    name: 'ChunkLoadError',
    code: 'toolwire_chunk_load_failed',
    message: expect.stringContaining('An inline script (no src) loads no chunks'),
  });
  // (The top page's own script, by src, may fetch its frames chunk; no validator is fetched.)
  expect(
    server.requested.filter((path) => path.startsWith('/blank-inline/polyfill-validator')),
  ).toEqual([]);
});

// Issue 16, item 2: a schema that needs no validator (absent, `{}`, `{type: "object"}` with
// unconstrained properties) fetches no validator chunk; a real schema still loads one and still
// refuses bad input (packages/polyfill/src/validation/trivial.ts).
test('trivial schemas fetch no validator chunk; a real schema still validates', async ({
  page,
}) => {
  await page.goto(`${server.origin}/blank-noeval/`);
  const before = server.requested.length;
  const validators = () =>
    server.requested.slice(before).filter((path) => path.includes('polyfill-validator-'));
  const trivial = await page.evaluate(async () => {
    const w = window as any;
    const echo = (input: unknown) => input;
    await w.toolManager.register({ name: 'none', execute: echo });
    await w.toolManager.register({
      name: 'empty',
      inputSchema: {},
      outputSchema: {},
      execute: echo,
    });
    await w.toolManager.register({
      name: 'object',
      inputSchema: { type: 'object', properties: { a: { description: 'anything' } } },
      outputSchema: { type: 'object' },
      execute: echo,
    });
    const answers: unknown[] = [];
    for (const name of ['none', 'empty', 'object']) {
      answers.push(await w.tools.callTool(name, { a: 1 }, { encoding: 'json' }));
      answers.push(await w.tools.callTool(name, { a: 2 }));
    }
    return answers;
  });
  expect(trivial).toEqual([{ a: 1 }, { a: 2 }, { a: 1 }, { a: 2 }, { a: 1 }, { a: 2 }]);
  // Only the lowering (JSON results are lowered): no validator, none of its shared chunks.
  const fetched = server.requested.slice(before).filter((path) => path !== '/favicon.ico');
  expect(fetched).toEqual(['/blank-noeval/polyfill-lowering.js']);
  const strict = await page.evaluate(async () => {
    const w = window as any;
    await w.toolManager.register({
      name: 'strict',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      execute: (input: unknown) => input,
    });
    return {
      good: await w.tools.callTool('strict', { a: 'x' }, { encoding: 'json' }),
      bad: await w.tools
        .callTool('strict', { a: 1 }, { encoding: 'json' })
        .catch((error: Error) => error.name),
    };
  });
  expect(strict).toEqual({ good: { a: 'x' }, bad: 'DataError' });
  expect(validators()).toEqual(['/blank-noeval/polyfill-validator-cfworker.js']);
});

test('an endpoint page serves a host a tool with a trivial schema, with no validator chunk', async ({
  page,
}) => {
  const host = await createHost({ origins: [server.origin], maxToolPolicy: 'write' });
  try {
    await page.goto(`${server.origin}/endpoint-noeval/`);
    const before = server.requested.length;
    const validators = () =>
      server.requested.slice(before).filter((path) => path.includes('polyfill-validator-'));
    const connected = host.waitForSession({ timeoutMs: 10_000 });
    await page.evaluate(async (url) => {
      const w = window as any;
      const echo = (input: unknown) => input;
      await w.toolManager.register({
        name: 'free',
        naturalLanguageProperties: { description: 'Takes anything.' },
        execute: echo,
      });
      await w.toolManager.register({
        name: 'object',
        naturalLanguageProperties: {
          description: 'Takes an object.',
          inputSchema: { type: 'object' },
        },
        execute: echo,
      });
      await w.toolManager.register({
        name: 'strict',
        naturalLanguageProperties: {
          description: 'Takes a string.',
          inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
        },
        execute: echo,
      });
      w.toolwire.connect({ url, guard: 'full-access' });
    }, host.url);
    const session = await connected;
    expect((await session.call('free', { a: 1 })).result).toEqual({ a: 1 });
    expect((await session.call('object', { a: 2 })).result).toEqual({ a: 2 });
    expect(validators()).toEqual([]);
    const refused = await session.call('strict', { a: 1 }).catch((error) => error.code);
    expect(refused).toBe('tool_arguments_schema_invalid');
    expect(validators()).toEqual(['/endpoint-noeval/polyfill-validator-cfworker.js']);
  } finally {
    await host.close();
  }
});

test('endpoint.iife.js without the built-ins chunk: the ui.* tools are listed, and a call answers toolwire_chunk_load_failed', async ({
  page,
}) => {
  const host = await createHost({ origins: [server.origin], maxToolPolicy: 'write' });
  try {
    // The honest path first: with its chunks beside it, the first ui.* call loads and runs.
    const split = await browserSession(page, host, 'endpoint-split');
    const tree = (await split.call('ui.get_visual_tree', {})).result as { root: unknown };
    expect(tree.root).toBeDefined();
    await page.goto('about:blank');

    const errors = consoleErrors(page);
    const alone = await browserSession(page, host, 'endpoint-no-builtins');
    expect(alone.tools().map((tool) => tool.id)).toEqual(
      expect.arrayContaining(['ui.get_visual_tree', 'ui.query_nodes', 'ui.perform_action']),
    );
    const refused = await alone.call('ui.query_nodes', { role: 'button' }).then(
      () => undefined,
      (error) => ({ code: error.code, retryable: error.retryable, message: error.message }),
    );
    expect(refused).toMatchObject({ code: 'toolwire_chunk_load_failed', retryable: true });
    expect(refused?.message).toContain('cannot load polyfill-ui-builtins.js from');
    expect(refused?.message).toContain(
      `${server.origin}/endpoint-no-builtins/polyfill-ui-builtins.js`,
    );
    await expect
      .poll(() => errors.some((text) => text.includes('cannot load polyfill-ui-builtins.js')))
      .toBe(true);
  } finally {
    await host.close();
  }
});

test("endpoint.iife.js fetches a schema failure's wording on the first failure; without it, the same code, plainly", async ({
  page,
}) => {
  const host = await createHost({ origins: [server.origin], maxToolPolicy: 'write' });
  /** Registers a tool whose `n` must be an integer >= 1, and calls it with 0. */
  const refuse = async (session: Awaited<ReturnType<typeof browserSession>>) => {
    await page.evaluate(() =>
      (window as any).toolManager.register({
        name: 'strict',
        naturalLanguageProperties: { description: 'Wants n >= 1.' },
        inputSchema: {
          type: 'object',
          properties: { n: { type: 'integer', minimum: 1 } },
          required: ['n'],
        },
        execute: ({ n }: { n: number }) => n + 1,
      }),
    );
    await expect.poll(async () => session.tools().map((tool) => tool.id)).toContain('strict');
    expect((await session.call('strict', { n: 2 })).result).toBe(3);
    return session.call('strict', { n: 0 }).then(
      () => undefined,
      (error) => ({ code: error.code, message: error.message, details: error.details }),
    );
  };
  try {
    // The honest path first: the chunk beside the script is fetched on the first failure only.
    const before = server.requested.length;
    const fetched = () =>
      server.requested.slice(before).filter((path) => path.endsWith('/polyfill-schema-failure.js'));
    const split = await browserSession(page, host, 'endpoint-split');
    const worded = await refuse(split);
    expect(worded).toMatchObject({
      code: 'tool_arguments_schema_invalid',
      message: '`n` must be an integer >= 1',
      details: [expect.objectContaining({ path: '$.n', keyword: 'minimum' })],
    });
    expect(fetched()).toEqual(['/endpoint-split/polyfill-schema-failure.js']);
    await page.goto('about:blank');

    const alone = await browserSession(page, host, 'endpoint-no-schema-failure');
    const plain = await refuse(alone);
    expect(plain).toMatchObject({
      code: 'tool_arguments_schema_invalid',
      message: 'The arguments of "strict" do not match its argumentsSchema.',
    });
    expect(plain?.details ?? null).toBeNull();
  } finally {
    await host.close();
  }
});

test('endpoint.standalone.iife.js alone: a ui.* call, a rarer part, fails coded, naming the files to serve', async ({
  page,
}) => {
  const host = await createHost({ origins: [server.origin], maxToolPolicy: 'write' });
  try {
    const errors = consoleErrors(page);
    // The honest path first (in browserSession): the page's own tool answers, nothing fetched.
    const before = server.requested.length;
    const alone = await browserSession(page, host, 'endpoint.standalone.iife.js');
    const refused = await alone.call('ui.query_nodes', { role: 'button' }).then(
      () => undefined,
      (error) => ({ code: error.code, retryable: error.retryable, message: error.message }),
    );
    expect(refused).toMatchObject({ code: 'toolwire_chunk_load_failed', retryable: true });
    expect(refused?.message).toContain(
      `cannot load polyfill-ui-builtins.js from ${server.origin}/endpoint.standalone.iife.js/polyfill-ui-builtins.js`,
    );
    expect(refused?.message).toContain(
      'Serve the polyfill-*.js files that come with the script beside endpoint.standalone.iife.js.',
    );
    expect(refused?.message).not.toContain('instead');
    const fetched = server.requested.slice(before).filter((path) => path !== '/favicon.ico');
    expect(fetched).toEqual([
      '/endpoint.standalone.iife.js/',
      '/endpoint.standalone.iife.js/endpoint.standalone.iife.js',
      '/endpoint.standalone.iife.js/polyfill-ui-builtins.js',
    ]);
    await expect
      .poll(() => errors.some((text) => text.includes('cannot load polyfill-ui-builtins.js')))
      .toBe(true);
  } finally {
    await host.close();
  }
});

/** The page at /<folder>/ connected to `host` (one registered tool), its first call made. */
async function browserSession(
  page: Page,
  host: Awaited<ReturnType<typeof createHost>>,
  folder: string,
) {
  await page.goto(`${server.origin}/${folder}/`);
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await page.evaluate(async (url) => {
    const w = window as any;
    await w.toolManager.register({
      name: 'free',
      naturalLanguageProperties: { description: 'Takes anything.' },
      execute: (input: unknown) => input,
    });
    w.toolwire.connect({ url, guard: 'full-access' });
  }, host.url);
  const session = await connected;
  expect((await session.call('free', { a: 1 })).result).toEqual({ a: 1 });
  return session;
}

test('endpoint.iife.js fetches fflate only to gzip without CompressionStream', async ({ page }) => {
  // As a browser without CompressionStream: the page's in-line gzip is fflate, fetched then.
  await page.addInitScript(() => {
    delete (window as any).CompressionStream;
  });
  const host = await createHost({
    origins: [server.origin],
    maxToolPolicy: 'write',
    compress: 'on',
  });
  try {
    const before = server.requested.length;
    const deflate = () =>
      server.requested.slice(before).filter((path) => path.endsWith('/polyfill-deflate.js'));
    await page.goto(`${server.origin}/endpoint-split/`);
    const connected = host.waitForSession({ timeoutMs: 10_000 });
    await page.evaluate(async (url) => {
      const w = window as any;
      await w.toolManager.register({
        name: 'big',
        naturalLanguageProperties: { description: 'A large, compressible answer.' },
        execute: () => ({ text: 'toolwire '.repeat(20_000) }),
      });
      await w.toolManager.register({
        name: 'small',
        naturalLanguageProperties: { description: 'A small answer.' },
        execute: () => ({ ok: true }),
      });
      w.toolwire.connect({ url, guard: 'full-access' });
    }, host.url);
    const session = await connected;
    expect((await session.call('small', {})).result).toEqual({ ok: true });
    expect(deflate()).toEqual([]);
    const big = (await session.call('big', {})).result as { text: string };
    expect(big.text).toHaveLength(180_000);
    expect(session.stats.encodedResponses).toBe(1);
    expect(deflate()).toEqual(['/endpoint-split/polyfill-deflate.js']);
  } finally {
    await host.close();
  }
});

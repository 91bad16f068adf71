import type { Page } from '@playwright/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebMCPError, webmcp } from '../src/index.js';

// webmcp() against a stand-in for Playwright's Page: which path it picks, and how each path's
// failures become coded WebMCPErrors (through @toolwire/polyfill/wire's one mapping). The real
// browser, on both paths, is e2e/playwright-*.e2e.ts.

const NOT_ENABLED = new Error(
  'webMCP.tools: WebMCP is not enabled. Launch the browser with the "--enable-features=WebMCP" argument.',
);

/** Playwright's own timeout error: told apart by its name, as the helper does. */
function playwrightTimeout(message: string): Error {
  return Object.assign(new Error(message), { name: 'TimeoutError' });
}

type Call = ['native' | 'polyfill', string, unknown];

interface Fake {
  nativeTools?: (options?: unknown) => Promise<unknown[]>;
  /** The polyfill path's listing (`evaluate` without an argument). */
  listing?: () => Promise<unknown>;
  /** A call in the page (`evaluate` with `[via, name, input]`). */
  call?: (call: Call) => Promise<unknown>;
}

function fakePage(fake: Fake): { page: Page; probes: () => number; calls: Call[] } {
  let probes = 0;
  const calls: Call[] = [];
  const page = {
    webmcp: {
      tools: (options?: unknown) => {
        probes += 1;
        return fake.nativeTools ? fake.nativeTools(options) : Promise.reject(NOT_ENABLED);
      },
    },
    evaluate: (_fn: unknown, arg?: unknown) => {
      if (arg === undefined)
        return fake.listing ? fake.listing() : Promise.reject(new Error('no listing'));
      calls.push(arg as Call);
      return fake.call ? fake.call(arg as Call) : Promise.reject(new Error('no call'));
    },
  };
  return { page: page as unknown as Page, probes: () => probes, calls };
}

/** A polyfill page listing these tools (`[name, annotations?, policy?]`). */
const polyfillListing =
  (...tools: [string, Record<string, unknown>?, string?][]) =>
  async () => ({
    ok: true,
    value: tools.map(([name, annotations, policy]) => ({
      name,
      description: name,
      ...(annotations ? { annotations } : {}),
      ...(policy ? { policy } : {}),
    })),
  });

describe('webmcp(page): the path', () => {
  it('takes the native path when page.webmcp answers, and probes once', async () => {
    const { page, probes } = fakePage({
      nativeTools: async () => [
        { name: 'b', description: 'B' },
        { name: 'a', description: 'A', annotations: {} },
      ],
    });
    const helper = webmcp(page);
    expect(await helper.via()).toBe('native');
    expect(await helper.tools()).toEqual([
      { name: 'a', description: 'A' },
      { name: 'b', description: 'B' },
    ]);
    expect(probes()).toBe(2); // the probe, then the listing itself
    await helper.via();
    expect(probes()).toBe(2);
  });

  it('takes the polyfill path when Playwright says WebMCP is not enabled', async () => {
    const { page } = fakePage({
      listing: polyfillListing(['x', { readOnlyHint: true, idempotentHint: true }, 'read']),
    });
    const helper = webmcp(page);
    expect(await helper.via()).toBe('polyfill');
    // The policy the polyfill holds is the helper's business, not the listing's.
    expect(await helper.tools()).toEqual([
      { name: 'x', description: 'x', annotations: { readOnly: true } },
    ]);
  });

  it('rejects with webmcp_unavailable on any other probe failure, and probes again next time', async () => {
    let fail = true;
    const { page, probes } = fakePage({
      nativeTools: async () => {
        if (fail) throw new Error('webMCP.tools: Target page, context or browser has been closed');
        return [];
      },
    });
    const helper = webmcp(page);
    await expect(helper.via()).rejects.toMatchObject({
      name: 'WebMCPError',
      code: 'webmcp_unavailable',
      message: 'Target page, context or browser has been closed',
    });
    fail = false;
    expect(await helper.via()).toBe('native');
    expect(probes()).toBe(2);
  });

  it('forces a path with { via }, and refuses an unknown one', async () => {
    const { page, probes } = fakePage({ nativeTools: async () => [] });
    expect(await webmcp(page, { via: 'polyfill' }).via()).toBe('polyfill');
    expect(probes()).toBe(0);
    expect(() => webmcp(page, { via: 'other' as 'native' })).toThrow(TypeError);
  });
});

describe('webmcp(page).callTool: native', () => {
  const native = (call: Fake['call']) =>
    fakePage({
      nativeTools: async () => [
        { name: 'ok', description: 'ok', annotations: { readOnly: true } },
        { name: 't', description: 't' },
      ],
      call,
    });

  it("resolves the result; the browser's rejections are coded by their DOMException name", async () => {
    const { page, calls } = native(async ([, name, input]) => {
      if (name === 'ok') return { ok: true, value: { echoed: input } };
      return { ok: false, error: { name: 'UnknownError', message: 'the invocation failed' } };
    });
    const helper = webmcp(page);
    expect(await helper.callTool('ok', { a: 1 })).toEqual({ echoed: { a: 1 } });
    expect(calls).toEqual([['native', 'ok', { a: 1 }]]);
    const thrown = await helper.callTool('t').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(WebMCPError);
    expect(thrown).toMatchObject({
      code: 'tool_execution_exception',
      retryable: false,
      details: null,
      toolName: 't',
      via: 'native',
      message: 'the invocation failed',
    });
  });

  it('checks the arguments against inputSchema before the browser runs the tool, as the wire does', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    };
    const { page, calls } = fakePage({
      nativeTools: async () => [{ name: 'count', description: 'Counts.', inputSchema: schema }],
      call: async ([, , input]) => ({ ok: true, value: input }),
    });
    const helper = webmcp(page);
    // Honest path first: arguments that fit reach the browser.
    expect(await helper.callTool('count', { n: 2 })).toEqual({ n: 2 });
    const refused = await helper.callTool('count', { n: 'x' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'tool_arguments_schema_invalid',
      retryable: false,
      via: 'native',
      toolName: 'count',
      details: [expect.objectContaining({ path: '$.n', keyword: 'type' })],
    });
    // The refused call never reached the page.
    expect(calls).toEqual([['native', 'count', { n: 2 }]]);
  });

  it.each([
    ['UnknownError', 'tool_execution_exception'],
    ['NotAllowedError', 'tool_execution_denied'],
    ['NotFoundError', 'tool_not_found'],
    ['DataError', 'tool_arguments_schema_invalid'],
    ['TypeError', 'tool_arguments_invalid'],
    ['InvalidStateError', 'tool_execution_failed'],
  ])('%s: %s', async (name, code) => {
    const { page } = native(async () => ({ ok: false, error: { name, message: 'said so' } }));
    await expect(webmcp(page).callTool('t', {})).rejects.toMatchObject({
      code,
      toolName: 't',
      via: 'native',
    });
  });

  it('checks itself what it can: a tool not listed, arguments that are not an object', async () => {
    const { page, calls } = native(async () => ({ ok: true, value: null }));
    const helper = webmcp(page);
    expect(await helper.callTool('t')).toBeNull(); // honest path first
    await expect(helper.callTool('nope')).rejects.toMatchObject({
      code: 'tool_not_found',
      toolName: 'nope',
      via: 'native',
    });
    for (const args of [[1], null, 'text'])
      await expect(helper.callTool('t', args as never)).rejects.toMatchObject({
        code: 'tool_arguments_invalid',
        via: 'native',
      });
    expect(calls).toEqual([['native', 't', {}]]);
  });

  it('a page that went away during the call is tool_call_failed', async () => {
    const { page } = native(async () => {
      throw new Error('page.evaluate: Target page, context or browser has been closed');
    });
    await expect(webmcp(page).callTool('t')).rejects.toMatchObject({
      code: 'tool_call_failed',
      via: 'native',
      message: 'Target page, context or browser has been closed',
    });
  });
});

describe('webmcp(page).callTool: polyfill', () => {
  const polyfill = (call: Fake['call']) =>
    fakePage({ listing: polyfillListing(['t'], ['r', { readOnlyHint: true }]), call });

  it("codes the polyfill's errors by the wire's code they carry, details included", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        {
          name: 'DataError',
          message: '{"path":"/q"}',
          toolCode: 'tool_arguments_schema_invalid',
          issues: [{ path: '/q', reason: 'must be string', schemaPath: '#/properties/q/type' }],
        },
        {
          code: 'tool_arguments_schema_invalid',
          message: '`q` must be a string',
          details: [
            {
              path: '$.q',
              message: 'must be string',
              keyword: 'type',
              schemaPath: '#/properties/q/type',
            },
          ],
        },
      ],
      [
        {
          name: 'DataError',
          message: '{"path":"/f"}',
          toolCode: 'tool_arguments_invalid',
          issues: [{ path: '/f', reason: 'a function is not JSON', schemaPath: '' }],
        },
        { code: 'tool_arguments_invalid' },
      ],
      [
        {
          name: 'ToolExecutionError',
          message: 'Tool "t" failed: RangeError: boom',
          toolCode: 'tool_execution_exception',
          cause: { name: 'RangeError', message: 'boom' },
        },
        {
          code: 'tool_execution_exception',
          message: 'Tool "t" threw: boom',
          details: { name: 'RangeError', message: 'boom' },
        },
      ],
      [
        { name: 'OperationError', message: 'x', toolCode: 'tool_protocol_bridge_failed' },
        { code: 'tool_protocol_bridge_failed', details: null },
      ],
      [
        { name: 'OperationError', message: 'x', toolCode: 'tool_definition_invalid' },
        { code: 'tool_definition_invalid' },
      ],
      [
        { name: 'NotAllowedError', message: 'x', toolCode: 'tool_execution_denied' },
        { code: 'tool_execution_denied' },
      ],
      [
        { name: 'ChunkLoadError', message: 'x', toolCode: 'toolwire_chunk_load_failed' },
        { code: 'toolwire_chunk_load_failed', retryable: true },
      ],
    ];
    for (const [error, expected] of cases) {
      const { page } = polyfill(async () => ({ ok: false, error }));
      await expect(webmcp(page).callTool('t', {}), String(error.toolCode)).rejects.toMatchObject({
        name: 'WebMCPError',
        retryable: false,
        ...expected,
        toolName: 't',
        via: 'polyfill',
      });
    }
  });

  it('an agent reaches only what it is listed; arguments must be an object', async () => {
    const { page, calls } = polyfill(async () => ({ ok: true, value: 1 }));
    const helper = webmcp(page);
    expect(await helper.callTool('t', { n: 1 })).toBe(1);
    await expect(helper.callTool('cart.debug')).rejects.toMatchObject({
      code: 'tool_not_found',
      via: 'polyfill',
    });
    await expect(helper.callTool('t', [] as never)).rejects.toMatchObject({
      code: 'tool_arguments_invalid',
    });
    expect(calls).toEqual([['polyfill', 't', { n: 1 }]]);
  });

  it('a page without window.tools is webmcp_unavailable, naming the fix', async () => {
    const { page } = fakePage({
      listing: async () => ({ ok: false, missing: true, name: '', message: '' }),
    });
    await expect(webmcp(page).callTool('t')).rejects.toMatchObject({
      code: 'webmcp_unavailable',
      message: expect.stringContaining('--enable-features=WebMCP'),
    });
    await expect(webmcp(page).tools()).rejects.toMatchObject({ code: 'webmcp_unavailable' });
  });

  it('passes the arguments to the page as they are, defaulting to {}', async () => {
    const { page, calls } = polyfill(async () => ({ ok: true, value: null }));
    expect(await webmcp(page).callTool('t')).toBeNull();
    await webmcp(page).callTool('t', { n: 1 });
    expect(calls).toEqual([
      ['polyfill', 't', {}],
      ['polyfill', 't', { n: 1 }],
    ]);
  });
});

describe('webmcp(page): the timeout option', () => {
  // The helper's bound is a timer of its own: these tests drive it with fake timers.
  afterEach(() => {
    vi.useRealTimers();
  });

  it("native: a listing passes timeout to Playwright and codes Playwright's timeout", async () => {
    const seen: unknown[] = [];
    let slow = false;
    const { page } = fakePage({
      nativeTools: async (options) => {
        seen.push(options);
        if (slow) throw playwrightTimeout('webMCP.tools: Timeout 50ms exceeded.\nCall log:');
        return [];
      },
    });
    const helper = webmcp(page, { via: 'native' });
    expect(await helper.tools()).toEqual([]);
    expect(await helper.tools({ timeout: 50 })).toEqual([]);
    expect(seen).toEqual([undefined, { timeout: 50 }]);
    slow = true;
    await expect(helper.tools({ timeout: 50 })).rejects.toMatchObject({
      name: 'WebMCPError',
      code: 'tool_execution_timeout',
      retryable: true,
      via: 'native',
      message: 'Timeout 50ms exceeded.',
    });
  });

  for (const via of ['native', 'polyfill'] as const) {
    it(`${via}: an answer in time resolves; past the timeout, tool_execution_timeout, retryable for a read tool`, async () => {
      vi.useFakeTimers();
      const answers: ((value: unknown) => void)[] = [];
      const call = (([, name]: Call) =>
        name === 'fast'
          ? Promise.resolve({ ok: true, value: 1 })
          : new Promise((resolve) => {
              answers.push(resolve);
            })) as Fake['call'];
      const { page } = fakePage({
        nativeTools: async () => [
          { name: 'fast', description: '' },
          { name: 'slow.read', description: '', annotations: { readOnly: true } },
          { name: 'slow.write', description: '' },
        ],
        listing: polyfillListing(['fast'], ['slow.read', { readOnlyHint: true }], ['slow.write']),
        call,
      });
      const helper = webmcp(page, { via });
      expect(await helper.callTool('fast', {}, { timeout: 1000 })).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      for (const [name, retryable] of [
        ['slow.read', true],
        ['slow.write', false],
      ] as const) {
        let settled = false;
        const outcome = helper
          .callTool(name, {}, { timeout: 20 })
          .catch((caught: unknown) => caught)
          .finally(() => {
            settled = true;
          });
        await vi.advanceTimersByTimeAsync(19);
        expect(settled).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        const error = await outcome;
        expect(error).toBeInstanceOf(WebMCPError);
        expect(error).toMatchObject({
          code: 'tool_execution_timeout',
          retryable,
          toolName: name,
          via,
          message: `Timeout 20ms exceeded: tool "${name}" did not settle`,
        });
      }
      for (const answer of answers) answer({ ok: true, value: 'late' }); // dropped, nothing unhandled
    });
  }

  it('polyfill: bounds the listing too, and timeout 0 means no bound', async () => {
    vi.useFakeTimers();
    const { page } = fakePage({ listing: () => new Promise(() => {}) });
    const helper = webmcp(page, { via: 'polyfill' });
    const bounded = expect(helper.tools({ timeout: 20 })).rejects.toMatchObject({
      code: 'tool_execution_timeout',
      retryable: true,
      message: 'Timeout 20ms exceeded: the tool listing did not settle',
    });
    await vi.advanceTimersByTimeAsync(20);
    await bounded;
    let settled = false;
    void helper.tools({ timeout: 0 }).finally(() => {
      settled = true;
    });
    // No bound: no timer at all, and a minute later it still waits.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBe(false);
  });

  it('refuses a timeout that is not a finite number of ms, 0 or more', async () => {
    const { page } = fakePage({
      listing: polyfillListing(['t']),
      call: async () => ({ ok: true, value: null }),
    });
    const helper = webmcp(page, { via: 'polyfill' });
    expect(await helper.callTool('t', {}, { timeout: 10 })).toBeNull();
    for (const timeout of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number])
      await expect(helper.callTool('t', {}, { timeout })).rejects.toThrow(TypeError);
    await expect(helper.tools({ timeout: -1 })).rejects.toThrow(TypeError);
  });
});

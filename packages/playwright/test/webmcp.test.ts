import type { Page } from '@playwright/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebMCPError, webmcp } from '../src/index.js';

// webmcp() against a stand-in for Playwright's Page: which path it picks, and how each path's
// failures become coded WebMCPErrors. The real browser, on both paths, is e2e/playwright-*.e2e.ts.

const NOT_ENABLED = new Error(
  'webMCP.tools: WebMCP is not enabled. Launch the browser with the "--enable-features=WebMCP" argument.',
);

interface Fake {
  nativeTools?: (options?: unknown) => Promise<unknown[]>;
  nativeCall?: (name: string, input: unknown, options?: unknown) => Promise<unknown>;
  evaluate?: (fn: unknown, arg?: unknown) => Promise<unknown>;
}

function fakePage(fake: Fake): { page: Page; probes: () => number } {
  let probes = 0;
  const page = {
    webmcp: {
      tools: (options?: unknown) => {
        probes += 1;
        return fake.nativeTools ? fake.nativeTools(options) : Promise.reject(NOT_ENABLED);
      },
      callTool: (name: string, input: unknown, options?: unknown) =>
        fake.nativeCall ? fake.nativeCall(name, input, options) : Promise.reject(NOT_ENABLED),
    },
    evaluate: (fn: unknown, arg?: unknown) =>
      fake.evaluate ? fake.evaluate(fn, arg) : Promise.reject(new Error('no evaluate')),
  };
  return { page: page as unknown as Page, probes: () => probes };
}

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
      evaluate: async () => ({
        ok: true,
        value: [
          {
            name: 'x',
            description: 'X',
            annotations: { readOnlyHint: true, idempotentHint: true },
          },
        ],
      }),
    });
    const helper = webmcp(page);
    expect(await helper.via()).toBe('polyfill');
    expect(await helper.tools()).toEqual([
      { name: 'x', description: 'X', annotations: { readOnly: true } },
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

describe('webmcp(page).callTool: errors', () => {
  it('native: resolves the result, and codes Playwright failures by their message', async () => {
    const { page } = fakePage({
      nativeTools: async () => [],
      nativeCall: async (name, input) => {
        if (name === 'ok') return { echoed: input };
        if (name === 'throws')
          throw new Error(
            'webMCP.callTool: UnknownError: Tool was executed but the invocation failed.\nCall log: ...',
          );
        if (name === 'odd') throw new Error('webMCP.callTool: something else');
        throw new Error(`webMCP.callTool: No WebMCP tool named "${name}". Available tools: ok.`);
      },
    });
    const helper = webmcp(page);
    expect(await helper.callTool('ok', { a: 1 })).toEqual({ echoed: { a: 1 } });
    const thrown = await helper.callTool('throws').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(WebMCPError);
    expect(thrown).toMatchObject({
      code: 'tool_execution_exception',
      toolName: 'throws',
      via: 'native',
      message: 'UnknownError: Tool was executed but the invocation failed.',
    });
    await expect(helper.callTool('nope')).rejects.toMatchObject({ code: 'tool_not_found' });
    await expect(helper.callTool('odd')).rejects.toMatchObject({
      code: 'tool_call_failed',
      message: 'something else',
    });
  });

  it.each([
    ['NotFoundError', 'tool_not_found'],
    ['DataError', 'tool_arguments_invalid'],
    ['NotAllowedError', 'tool_execution_denied'],
    ['ToolExecutionError', 'tool_execution_exception'],
    ['OperationError', 'tool_result_schema_invalid'],
    ['AbortError', 'tool_call_failed'],
  ])('polyfill: %s becomes %s', async (name, code) => {
    const { page } = fakePage({
      evaluate: async () => ({ ok: false, name, message: 'the page said so' }),
    });
    await expect(webmcp(page).callTool('t', {})).rejects.toMatchObject({
      code,
      toolName: 't',
      via: 'polyfill',
      message: `${name}: the page said so`,
    });
  });

  it('polyfill: a page without window.tools is webmcp_unavailable, naming the fix', async () => {
    const { page } = fakePage({
      evaluate: async () => ({ ok: false, missing: true, name: '', message: '' }),
    });
    await expect(webmcp(page).callTool('t')).rejects.toMatchObject({
      code: 'webmcp_unavailable',
      message: expect.stringContaining('--enable-features=WebMCP'),
    });
    await expect(webmcp(page).tools()).rejects.toMatchObject({ code: 'webmcp_unavailable' });
  });

  it('passes the arguments to the page as they are, defaulting to {}', async () => {
    const seen: unknown[] = [];
    const { page } = fakePage({
      evaluate: async (_fn, arg) => {
        seen.push(arg);
        return { ok: true, value: null };
      },
    });
    expect(await webmcp(page).callTool('t')).toBeNull();
    await webmcp(page).callTool('t', { n: 1 });
    expect(seen).toEqual([
      ['t', {}],
      ['t', { n: 1 }],
    ]);
  });
});

describe('webmcp(page): the timeout option', () => {
  // The polyfill path's bound is a timer of its own: these tests drive it with fake timers.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('native: passes timeout to Playwright only when given, and codes its timeout', async () => {
    const seen: unknown[] = [];
    const { page } = fakePage({
      nativeTools: async (options) => {
        seen.push(options);
        return [];
      },
      nativeCall: async (name, _input, options) => {
        seen.push(options);
        if (name === 'slow') throw new Error('webMCP.callTool: Timeout 50ms exceeded.\nCall log:');
        return 'done';
      },
    });
    const helper = webmcp(page, { via: 'native' });
    expect(await helper.callTool('fast')).toBe('done');
    expect(await helper.callTool('fast', {}, { timeout: 50 })).toBe('done');
    expect(await helper.tools({ timeout: 0 })).toEqual([]);
    expect(seen).toEqual([undefined, { timeout: 50 }, { timeout: 0 }]);
    await expect(helper.callTool('slow', {}, { timeout: 50 })).rejects.toMatchObject({
      name: 'WebMCPError',
      code: 'tool_execution_timeout',
      toolName: 'slow',
      via: 'native',
      message: 'Timeout 50ms exceeded.',
    });
  });

  it('polyfill: an answer in time resolves; past the timeout, tool_execution_timeout', async () => {
    vi.useFakeTimers();
    let answer: ((value: unknown) => void) | undefined;
    const { page } = fakePage({
      evaluate: (_fn, arg) =>
        (arg as [string])[0] === 'fast'
          ? Promise.resolve({ ok: true, value: 1 })
          : new Promise((resolve) => {
              answer = resolve;
            }),
    });
    const helper = webmcp(page, { via: 'polyfill' });
    expect(await helper.callTool('fast', {}, { timeout: 1000 })).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    let settled = false;
    const outcome = helper
      .callTool('slow', {}, { timeout: 20 })
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
      toolName: 'slow',
      via: 'polyfill',
      message: 'Timeout 20ms exceeded: tool "slow" did not settle',
    });
    answer?.({ ok: true, value: 'late' }); // dropped, and nothing rejects unhandled
  });

  it('polyfill: bounds the listing too, and timeout 0 means no bound', async () => {
    vi.useFakeTimers();
    const { page } = fakePage({ evaluate: () => new Promise(() => {}) });
    const helper = webmcp(page, { via: 'polyfill' });
    const bounded = expect(helper.tools({ timeout: 20 })).rejects.toMatchObject({
      code: 'tool_execution_timeout',
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
    const { page } = fakePage({ evaluate: async () => ({ ok: true, value: null }) });
    const helper = webmcp(page, { via: 'polyfill' });
    expect(await helper.callTool('t', {}, { timeout: 10 })).toBeNull();
    for (const timeout of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number])
      await expect(helper.callTool('t', {}, { timeout })).rejects.toThrow(TypeError);
    await expect(helper.tools({ timeout: -1 })).rejects.toThrow(TypeError);
  });
});

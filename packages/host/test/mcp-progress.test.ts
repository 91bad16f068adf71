import type { ResultPayload } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import type { HostTool, McpCallOptions, McpSourceTool, McpToolSource } from '../src/index.js';
import { mcpOverMemory } from './helpers.js';

// The MCP bridge's own part of progress and cancel, over a tool source the test drives: what
// a source reports is passed on as MCP says (rising, while the call runs, for a client that
// gave a progressToken), and the client's cancel reaches the source as an aborted signal.
// The real roads (a page behind a host, attached or not) are in mcp-cancel.test.ts.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const TOOL = {
  id: 'demo.work',
  name: 'Work',
  description: 'Works a while.',
  category: 'demo',
  policy: 'read',
  argumentsSchema: { type: 'object' },
  resultSchema: {},
  definitionRevision: 'sha256:0',
} as unknown as HostTool;

interface Seen {
  signal: AbortSignal;
  options: McpCallOptions | undefined;
  finish(result: ResultPayload): void;
}

/** A source with one tool; each call waits until the test finishes it. */
function drivenSource() {
  const calls: Seen[] = [];
  const entry: McpSourceTool = { sessionId: 's-1', connectedAt: 1, pageUrl: null, tool: TOOL };
  const source: McpToolSource = {
    async tools() {
      return [entry];
    },
    call(_entry, _args, signal, options) {
      const done = latch<ResultPayload>();
      calls.push({ signal, options, finish: (result) => done.open(result) });
      return done.wait;
    },
    onChange: () => () => {},
  };
  return { source, calls };
}

async function client(source: McpToolSource) {
  const mcp = await mcpOverMemory(source);
  cleanup.push(() => mcp.bridge.close());
  await mcp.rpc('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '0' },
  });
  mcp.notify('notifications/initialized');
  return mcp;
}

const result = (value: unknown): ResultPayload =>
  ({ toolId: 'demo.work', success: true, result: value }) as ResultPayload;

describe('the MCP bridge: progress', () => {
  it('passes on rising reports for a progressToken, while the call runs', async () => {
    const { source, calls } = drivenSource();
    const mcp = await client(source);
    mcp.input.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 'work',
        method: 'tools/call',
        params: { name: 'demo_work', arguments: {}, _meta: { progressToken: 'tok-1' } },
      })}\n`,
    );
    const call = await until(() => calls[0]);
    const report = call.options?.onProgress;
    expect(report).toBeTypeOf('function');
    report?.({ progress: 1, total: 4, message: 'one' });
    report?.({ progress: 1 }); // not rising: dropped
    report?.({ progress: Number.NaN }); // not a number: dropped
    report?.({ progress: 2, message: 'x'.repeat(5000) });
    call.finish(result('done'));
    await until(() => mcp.messages.some((m) => m.id === 'work'));
    report?.({ progress: 3 }); // after the answer: nothing
    await expect(mcp.rpc('ping')).resolves.toMatchObject({ result: {} });
    const progress = mcp.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params)).toEqual([
      { progressToken: 'tok-1', progress: 1, total: 4, message: 'one' },
      { progressToken: 'tok-1', progress: 2, message: 'x'.repeat(1024) },
    ]);
    // Every report went out before the answer.
    const answerAt = mcp.messages.findIndex((m) => m.id === 'work');
    expect(mcp.messages.findLastIndex((m) => m.method === 'notifications/progress')).toBeLessThan(
      answerAt,
    );
  });

  it('without a progressToken, asks for none', async () => {
    const { source, calls } = drivenSource();
    const mcp = await client(source);
    const answered = mcp.rpc('tools/call', { name: 'demo_work', arguments: {} });
    const call = await until(() => calls[0]);
    expect(call.options?.onProgress).toBeUndefined();
    call.finish(result('done'));
    expect((await answered).result.content[0].text).toBe('done');
  });
});

describe('the MCP bridge: cancel', () => {
  it('notifications/cancelled aborts the call; nothing answers it, no progress follows', async () => {
    const { source, calls } = drivenSource();
    const mcp = await client(source);
    // The honest path first: a call that is not cancelled is answered.
    const first = mcp.rpc('tools/call', { name: 'demo_work', arguments: {} });
    (await until(() => calls[0])).finish(result('first'));
    expect((await first).result.content[0].text).toBe('first');
    mcp.input.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 'stop-me',
        method: 'tools/call',
        params: { name: 'demo_work', arguments: {}, _meta: { progressToken: 7 } },
      })}\n`,
    );
    const call = await until(() => calls[1]);
    expect(call.signal.aborted).toBe(false);
    call.options?.onProgress?.({ progress: 1 });
    await until(() => mcp.messages.some((m) => m.method === 'notifications/progress'));
    mcp.notify('notifications/cancelled', { requestId: 'stop-me', reason: 'user' });
    await until(() => call.signal.aborted);
    call.options?.onProgress?.({ progress: 2 });
    call.finish(result('too late'));
    await expect(mcp.rpc('ping')).resolves.toMatchObject({ result: {} });
    expect(mcp.messages.some((m) => m.id === 'stop-me')).toBe(false);
    expect(mcp.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(1);
  });
});

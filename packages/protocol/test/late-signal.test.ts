import { afterEach, describe, expect, it, vi } from 'vitest';
import { latch } from '../../../test-support/wait.js';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool, ToolContext } from '../src/index.js';
import { createToolBridge, lateSignal, ToolProtocolError } from '../src/index.js';
import { exchange, request, tool } from './helpers.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

function bridgeOf(tools: BridgeTool[]) {
  return createToolBridge({
    validator: createAjvProvider(),
    tools: () => tools,
    guard: 'read-write',
    onToolError: () => {},
  });
}

/** Counts the AbortControllers made from here on. */
function countControllers(): { readonly made: number } {
  const counter = { made: 0 };
  const Native = globalThis.AbortController;
  vi.stubGlobal(
    'AbortController',
    class extends Native {
      constructor() {
        super();
        counter.made++;
      }
    },
  );
  return counter;
}

describe("a tool's signal, made when read", () => {
  it('a tool that never reads it gets no AbortController; one that reads it gets a live one', async () => {
    const counter = countControllers();
    let read: AbortSignal | undefined;
    const bridge = bridgeOf([
      tool('t.plain', (args) => args),
      tool('t.reads', (_args, context) => {
        read = context.signal;
        return { aborted: context.signal.aborted };
      }),
    ]);
    const plain = await exchange(bridge, request('tool.call', { toolId: 't.plain' }));
    expect(plain.payload).toMatchObject({ success: true, result: {} });
    expect(counter.made).toBe(0);
    const reads = await exchange(bridge, request('tool.call', { toolId: 't.reads' }));
    expect(reads.payload).toMatchObject({ success: true, result: { aborted: false } });
    expect(counter.made).toBe(1);
    expect(read).toBeInstanceOf(AbortSignal);
  });

  it('read only after a cancel, the signal is already aborted with tool_call_cancelled', async () => {
    const started = latch();
    const readLate = latch<ToolContext>();
    const bridge = bridgeOf([
      tool('t.hangs', (_args, context) => {
        started.open();
        readLate.open(context);
        return new Promise(() => {});
      }),
    ]);
    const message = request('tool.call', { toolId: 't.hangs' });
    const answer = exchange(bridge, message);
    await started.wait;
    const context = await readLate.wait;
    expect(bridge.cancel(message.id, undefined, 'stop')).toBe(true);
    expect((await answer).payload).toMatchObject({ code: 'tool_call_cancelled' });
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toBeInstanceOf(ToolProtocolError);
    expect((context.signal.reason as ToolProtocolError).code).toBe('tool_call_cancelled');
  });

  it("lateSignal: checks without a controller, an abort listener hears the bridge's cancel", async () => {
    const counter = countControllers();
    const started = latch();
    const heard: unknown[] = [];
    let late: AbortSignal | undefined;
    const bridge = bridgeOf([
      tool('t.quick', (_args, context) => {
        // Checked, not listened to: as the polyfill's registry does for a tool that answers at once.
        return { aborted: lateSignal(context).aborted };
      }),
      tool('t.hangs', (_args, context) => {
        late = lateSignal(context);
        late.addEventListener('abort', () => heard.push(late?.reason), { once: true });
        started.open();
        return new Promise(() => {});
      }),
    ]);
    const quick = await exchange(bridge, request('tool.call', { toolId: 't.quick' }));
    expect(quick.payload).toMatchObject({ success: true, result: { aborted: false } });
    expect(counter.made).toBe(0);
    const message = request('tool.call', { toolId: 't.hangs' });
    const answer = exchange(bridge, message);
    await started.wait;
    expect(late?.aborted).toBe(false);
    expect(heard).toEqual([]);
    expect(bridge.cancel(message.id)).toBe(true);
    expect((await answer).payload).toMatchObject({ code: 'tool_call_cancelled' });
    expect(late?.aborted).toBe(true);
    expect(heard).toHaveLength(1);
    expect((heard[0] as ToolProtocolError).code).toBe('tool_call_cancelled');
    // The listener made the one controller; a context not made by the bridge has its own signal.
    expect(counter.made).toBe(1);
    const own = new AbortController();
    const context = {
      requestId: 'r',
      sessionId: null,
      callId: null,
      toolId: 't',
      signal: own.signal,
      reportProgress: () => {},
    } satisfies ToolContext;
    expect(lateSignal(context)).toBe(own.signal);
  });
});

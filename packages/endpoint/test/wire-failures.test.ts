import type { JsonSchema } from '@toolwire/polyfill';
import { install } from '@toolwire/polyfill';
import { wireInfo } from '@toolwire/polyfill/wire';
import type { BridgeTool, ValidatorProvider } from '@toolwire/protocol';
import { createToolBridge, decodePayload, noProgress, ToolProtocolError } from '@toolwire/protocol';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { readPageTools } from '../src/page-tools.js';
import { pageValidator } from '../src/validator.js';

// The page's tools through the real polyfill (happy-dom), the endpoint's entries
// (`@toolwire/polyfill/wire`'s toBridgeTool and wireFailure) and a real bridge: what reaches the
// wire when a result cannot be serialized, against one that fails its outputSchema
// (docs/wire.md "tool.call": two different codes), a throw, a deadline, a cancel. The mapping's
// own cases are packages/polyfill/test/wire-failure.test.ts.

const APP = 'https://app.example';

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { child: value };
  return value;
}

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { n: 1 };
  value.self = value;
  return value;
}

const TYPED: JsonSchema = {
  type: 'object',
  properties: { n: { type: 'number' } },
  required: ['n'],
};

let sequence = 0;

/**
 * `markSelfValidating: false`: the wire info says the polyfill does not validate these tools
 * (as for the browser's own tools), so the bridge must; by default the polyfill's wire info
 * marks its registry's tools as validating themselves. `validator` lets a test count what the
 * bridge compiles.
 */
async function pageBridge(
  options: {
    markSelfValidating?: boolean;
    validator?: ValidatorProvider;
    callTimeoutMs?: number;
  } = {},
) {
  const win = new Window({ url: `${APP}/` });
  const { tools, toolManager } = install({ window: win as unknown as never });
  if (options.markSelfValidating === false) {
    // As the browser's own tools are: the bridge, not the polyfill, checks their calls.
    const sourceOf = tools.sourceOf.bind(tools);
    tools.sourceOf = (handle) =>
      sourceOf(handle) ? { kind: 'native', declarative: () => false } : undefined;
  }
  const register = (name: string, execute: () => unknown, outputSchema?: JsonSchema) =>
    toolManager.register({
      name,
      // Agent-exposed (the wire lists only those).
      naturalLanguageProperties: {
        description: name,
        annotations: { readOnlyHint: true },
        ...(outputSchema ? { outputSchema } : {}),
      },
      execute,
    });
  await register('plain', () => ({ n: 1, list: [1, 'two', null] }));
  await register('deep', () => nested(200));
  await register('cyclic', cyclic);
  await register('fn', () => ({ n: 1, run: () => 1 }));
  await register('typed', () => ({ n: 2 }), TYPED);
  await register('typed.wrong', () => ({ n: 'two' }), TYPED);
  await register('typed.missing', () => ({}), TYPED);
  await register('typed.deep', () => ({ n: 1, deep: nested(200) }), TYPED);
  await register('typed.cyclic', cyclic, TYPED);
  await register('typed.fn', () => ({ n: 1, run: () => 1 }), TYPED);
  await register('throws', () => {
    throw new RangeError('boom');
  });
  await register('hangs.read', () => new Promise(() => {}));
  await toolManager.register({
    name: 'hangs.write',
    naturalLanguageProperties: { description: 'hangs.write' },
    execute: () => new Promise(() => {}),
  });
  const ARGS: JsonSchema = {
    type: 'object',
    properties: { at: { type: 'string', format: 'date-time' } },
    required: ['at'],
  };
  await toolManager.register({
    name: 'args',
    naturalLanguageProperties: {
      description: 'args',
      annotations: { readOnlyHint: true },
      inputSchema: ARGS,
    },
    execute: (input: unknown) => ({ got: input }),
  });
  const listed: BridgeTool[] = await readPageTools({
    tools,
    origin: APP,
    expandSchema: (schema) => schema,
    reserved: new Set(),
  });
  const bridge = createToolBridge({
    tools: () => listed,
    guard: 'full-access',
    validator: options.validator ?? pageValidator(),
    onToolError: () => {},
    ...(options.callTimeoutMs ? { limits: { callTimeoutMs: options.callTimeoutMs } } : {}),
  });
  return async (toolId: string, args?: Record<string, unknown>) => {
    const response = await bridge.handle({
      type: 'tool.call',
      id: `call-${++sequence}`,
      capability: 'tool.exec',
      payload: { toolId, ...(args ? { arguments: args } : {}) },
    });
    if (!response) throw new Error('no response');
    return { type: response.type, payload: decodePayload(response.envelope.payload) as any };
  };
}

describe('a result that cannot be serialized, through the polyfill and the endpoint', () => {
  it('succeeds when the result is JSON, with or without an outputSchema', async () => {
    const call = await pageBridge();
    expect(await call('plain')).toMatchObject({
      type: 'tool.result',
      payload: { success: true, result: { n: 1, list: [1, 'two', null] } },
    });
    expect((await call('typed')).payload.result).toEqual({ n: 2 });
  });

  it('too deep, cyclic, or holding a function: tool_protocol_bridge_failed, schema or not', async () => {
    const call = await pageBridge();
    for (const toolId of ['deep', 'cyclic', 'fn', 'typed.deep', 'typed.cyclic', 'typed.fn']) {
      const { type, payload } = await call(toolId);
      expect(type, toolId).toBe('tool.error');
      expect(payload.code, `${toolId}: ${payload.message}`).toBe('tool_protocol_bridge_failed');
    }
  });

  it('a result that fails its outputSchema: tool_result_schema_invalid', async () => {
    const call = await pageBridge();
    for (const toolId of ['typed.wrong', 'typed.missing']) {
      const { type, payload } = await call(toolId);
      expect(type, toolId).toBe('tool.error');
      expect(payload.code, `${toolId}: ${payload.message}`).toBe('tool_result_schema_invalid');
    }
  });
});

describe('one validation per call on the page', () => {
  function counting(): { validator: ValidatorProvider; compiled: object[] } {
    const inner = pageValidator();
    const compiled: object[] = [];
    return {
      compiled,
      validator: {
        compile(schema) {
          compiled.push(schema);
          return inner.compile(schema);
        },
      },
    };
  }

  it('the bridge checks nothing the polyfill checks; failures keep the wire shape', async () => {
    // Honest path first: unmarked, the bridge validates (as for a native tool).
    const unmarked = counting();
    const before = await pageBridge({ markSelfValidating: false, validator: unmarked.validator });
    const refusedByBridge = await before('args', { at: 'soon' });
    expect(unmarked.compiled.length).toBeGreaterThan(0);

    const marked = counting();
    const call = await pageBridge({ validator: marked.validator });
    expect((await call('args', { at: '2026-11-30T10:00:00Z' })).payload.result).toEqual({
      got: { at: '2026-11-30T10:00:00Z' },
    });
    const refused = await call('args', { at: 'soon' });
    expect((await call('typed.wrong')).payload.code).toBe('tool_result_schema_invalid');
    expect((await call('deep')).payload.code).toBe('tool_protocol_bridge_failed');
    expect(marked.compiled).toEqual([]);

    // The polyfill's refusal reads as the bridge's own did: code, wording, `$`-rooted details.
    expect(refused).toEqual(refusedByBridge);
    expect(refused.payload).toMatchObject({
      code: 'tool_arguments_schema_invalid',
      message: '`at` must match format "date-time"',
    });
    expect(refused.payload.details).toEqual([
      expect.objectContaining({ path: '$.at', keyword: 'format' }),
    ]);
  });

  it('marks exactly the tools whose wire info says the polyfill validates them', async () => {
    const win = new Window({ url: `${APP}/` });
    const { tools, toolManager } = install({ window: win as unknown as never });
    await toolManager.register({
      name: 'one',
      naturalLanguageProperties: { description: 'one', annotations: { readOnlyHint: true } },
      execute: () => ({}),
    });
    const read = () =>
      readPageTools({ tools, origin: APP, expandSchema: (schema) => schema, reserved: new Set() });
    // The polyfill's own registry: it validates, so the bridge is told not to.
    expect(wireInfo(tools, (await tools.getTools())[0] as never)?.validates).toBe(true);
    expect((await read())[0]?.validates).toEqual({ arguments: true, result: true });
    // As the browser's own tools are: the bridge, not the polyfill, checks their calls.
    const sourceOf = tools.sourceOf.bind(tools);
    tools.sourceOf = (handle) =>
      sourceOf(handle) ? { kind: 'native', declarative: () => false } : undefined;
    expect((await read())[0]?.validates).toBeUndefined();
  });
});

describe("one meaning for a failure, the page's tools and the bridge's own", () => {
  it("a throw reads as the bridge reads a native tool's: code, words, details", async () => {
    const call = await pageBridge();
    const thrown = await call('throws');
    // The same throw from a tool the bridge runs itself (as a browser's native tool is run).
    const bridge = createToolBridge({
      tools: () => [
        {
          definition: {
            id: 'throws',
            name: 'throws',
            description: 'throws',
            category: 'page',
            policy: 'read',
            argumentsSchema: { type: 'object' },
            resultSchema: {},
          },
          execute: () => {
            throw new RangeError('boom');
          },
        },
      ],
      guard: 'full-access',
      validator: pageValidator(),
      onToolError: () => {},
    });
    const native = await bridge.handle({
      type: 'tool.call',
      id: 'native-1',
      capability: 'tool.exec',
      payload: { toolId: 'throws' },
    });
    expect(thrown).toEqual({
      type: native?.type,
      payload: decodePayload(native?.envelope.payload),
    });
    expect(thrown.payload).toEqual({
      code: 'tool_execution_exception',
      message: 'Tool "throws" threw: boom',
      retryable: false,
      details: { name: 'RangeError', message: 'boom' },
    });
  });

  it("the call's deadline: tool_execution_timeout, retryable only for a read tool", async () => {
    const call = await pageBridge({ callTimeoutMs: 20 });
    const read = await call('hangs.read');
    expect(read.payload).toMatchObject({ code: 'tool_execution_timeout', retryable: true });
    const write = await call('hangs.write');
    expect(write.payload).toMatchObject({ code: 'tool_execution_timeout', retryable: false });
  });

  it("the caller's cancel, by the reason the tool's signal aborted with: tool_call_cancelled", async () => {
    const win = new Window({ url: `${APP}/` });
    const { tools, toolManager } = install({ window: win as unknown as never });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    await toolManager.register({
      name: 'waits',
      naturalLanguageProperties: { description: 'waits', annotations: { readOnlyHint: true } },
      execute: () => {
        started();
        return new Promise(() => {});
      },
    });
    const [tool] = await readPageTools({
      tools,
      origin: APP,
      expandSchema: (schema) => schema,
      reserved: new Set(),
    });
    const controller = new AbortController();
    const outcome = tool?.execute(
      {},
      {
        requestId: 'r',
        sessionId: null,
        callId: null,
        toolId: 'waits',
        signal: controller.signal,
        reportProgress: noProgress,
      },
    ) as Promise<unknown>;
    await running;
    controller.abort(new ToolProtocolError('tool_call_cancelled', 'The host cancelled the call.'));
    expect(await outcome).toMatchObject({
      code: 'tool_call_cancelled',
      message: 'The host cancelled the call.',
      retryable: false,
    });
  });
});

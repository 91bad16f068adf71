import fc from 'fast-check';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeResponse } from '../src/index.js';
import {
  createToolBridge,
  decodePayload,
  RESPONSE_TYPES,
  TOOL_CAPABILITY,
  ToolProtocolError,
  toolFailure,
} from '../src/index.js';
import { CPU_BOUND, tool } from './helpers.js';

/**
 * Property tests (issue 2): whatever arrives, the codec throws only coded errors and the
 * bridge answers with a well-formed response or passes the message through; nothing hangs.
 */

const bridge = createToolBridge({
  validator: createAjvProvider(),
  guard: 'read-write',
  limits: { callTimeoutMs: 200 },
  onToolError: () => {},
  tools: () => [
    tool('demo.echo', (args) => args, {
      argumentsSchema: { type: 'object', properties: { n: { type: 'number' } } },
    }),
    tool('demo.fail', () => toolFailure({ message: 'no' })),
    tool('demo.throw', () => {
      throw new Error('boom');
    }),
    tool('demo.write', () => ({}), { policy: 'write' }),
    tool('ui.get_visual_tree', () => ({ tree: [] })),
  ],
});

function assertWellFormed(written: BridgeResponse): void {
  // The frame is JSON, and the response's own fields are the frame's.
  const response = JSON.parse(written.frame);
  expect(written.envelope).toEqual(response);
  expect([written.type, written.id]).toEqual([response.type, response.id]);
  expect(RESPONSE_TYPES).toContain(response.type);
  expect(typeof response.id).toBe('string');
  expect(response.capability).toBe(TOOL_CAPABILITY);
  expect(Date.parse(response.sentAt as string)).not.toBeNaN();
  expect(typeof response.payload).toBe('object');
  const payload = decodePayload(response.payload) as Record<string, unknown>;
  if (response.type === 'tool.error') {
    expect(typeof payload.code).toBe('string');
    expect(typeof payload.message).toBe('string');
    expect(typeof payload.retryable).toBe('boolean');
    expect(payload).toHaveProperty('details');
  }
  if (response.id.startsWith('tool.error.')) expect(response).not.toHaveProperty('replyTo');
  else expect(response.id).toBe(`${response.replyTo}.response`);
}

/**
 * Runs handle with a watchdog: a hang (a promise that never settles) fails the property with its
 * counterexample instead of stalling the suite. The bound is never what is tested: one handle
 * takes well under a millisecond, and the bound is thousands of times that, yet below the
 * test's own limit so fast-check still reports the input.
 */
async function handleWithin(message: unknown, ms = 5000): Promise<BridgeResponse | undefined> {
  // A bound, not a wait (see above).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    // A bound, not a wait (see above).
    timer = setTimeout(() => reject(new Error(`handle did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([bridge.handle(message), watchdog]);
  } finally {
    clearTimeout(timer);
  }
}

const anyJson = fc.jsonValue({ maxDepth: 6 });
const requestType = fc.constantFrom(
  'tool.query',
  'tool.call',
  'tool.batch',
  'tool.cancel',
  'tool.result',
  'other',
);
const toolId = fc.oneof(
  fc.constantFrom('demo.echo', 'demo.fail', 'demo.throw', 'demo.write', 'nope', '', ' '),
  fc.string(),
);
const callPayload = fc.oneof(
  fc.record(
    {
      toolId,
      arguments: fc.oneof(anyJson, fc.record({ n: fc.oneof(fc.double(), fc.string()) })),
      callId: fc.oneof(fc.string(), fc.integer()),
      after: fc.oneof(
        anyJson,
        fc.record({ include: fc.array(fc.constantFrom('visualTree', 'screenshot', 'x')) }),
      ),
    },
    { requiredKeys: [] },
  ),
  anyJson,
);
const envelope = fc.record(
  {
    type: requestType,
    id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    sessionId: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
    capability: fc.oneof(fc.constant('tool.exec'), fc.constant(''), fc.string()),
    payload: fc.oneof(
      callPayload,
      fc.record({
        calls: fc.oneof(fc.array(callPayload, { maxLength: 40 }), anyJson),
        continueOnError: fc.boolean(),
      }),
      fc.record(
        {
          detail: fc.oneof(fc.constantFrom('index', 'definitions', 'full', 'INDEX'), fc.string()),
          query: fc.string(),
          ids: fc.oneof(fc.array(toolId), anyJson),
          limit: fc.oneof(fc.integer(), fc.double()),
          ifRevision: fc.string(),
        },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
  },
  { requiredKeys: ['type'] },
);

describe('property: decodePayload', CPU_BOUND, () => {
  it('arbitrary JSON: returned untouched or refused with a coded error', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        try {
          decodePayload(value);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolProtocolError);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary bytes and strings in a wrapper: only coded errors', () => {
    const data = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes).toString('base64')),
      fc
        .uint8Array({ maxLength: 2048 })
        .map((bytes) => Buffer.from(gzipSync(bytes)).toString('base64')),
      fc.string(),
      anyJson,
    );
    fc.assert(
      fc.property(data, fc.constantFrom('gzip-base64-json', 'gzip', 'x'), (value, encoding) => {
        try {
          decodePayload({ $ansightEncoding: encoding, data: value }, { maxInflatedBytes: 4096 });
        } catch (error) {
          expect(error).toBeInstanceOf(ToolProtocolError);
          expect(typeof (error as ToolProtocolError).code).toBe('string');
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('property: bridge.handle', CPU_BOUND, () => {
  it('arbitrary JSON values and strings: a well-formed response or pass-through', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyJson,
          fc.string(),
          fc.string().map((s) => `{"type":"tool.call",${s}`),
        ),
        async (message) => {
          const response = await handleWithin(message);
          if (response) assertWellFormed(response);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('tool-shaped envelopes, as objects and as text: exactly one well-formed answer', async () => {
    await fc.assert(
      fc.asyncProperty(envelope, fc.boolean(), async (message, asText) => {
        const response = await handleWithin(asText ? JSON.stringify(message) : message);
        const isToolRequest =
          ['tool.query', 'tool.call', 'tool.batch'].includes(message.type) &&
          (message.capability === undefined ||
            message.capability === '' ||
            message.capability === 'tool.exec');
        if (isToolRequest) expect(response).toBeDefined();
        if (response) assertWellFormed(response);
      }),
      { numRuns: 1000 },
    );
  });
});

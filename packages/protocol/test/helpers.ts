import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { expect } from 'vitest';
import type {
  BridgeTool,
  BridgeToolDefinition,
  ResponseEnvelope,
  ToolBridge,
} from '../src/index.js';
import { decodePayload, ToolProtocolError } from '../src/index.js';

export function definition(
  id: string,
  overrides: Partial<BridgeToolDefinition> = {},
): BridgeToolDefinition {
  return {
    id,
    name: id,
    description: `The ${id} tool.`,
    category: id.split('.')[0] ?? 'general',
    policy: 'read',
    argumentsSchema: { type: 'object' },
    resultSchema: { type: 'object' },
    ...overrides,
  };
}

export function tool(
  id: string,
  execute: BridgeTool['execute'] = () => ({}),
  overrides: Partial<BridgeToolDefinition> = {},
  availability?: BridgeTool['availability'],
): BridgeTool {
  return {
    definition: definition(id, overrides),
    execute,
    ...(availability ? { availability } : {}),
  };
}

/**
 * For CPU-bound tests (a gzip bomb, every compression level, a thousand property runs): on a busy
 * two-core machine they take several times their usual seconds, past the 20 s default. The
 * bound only turns a hang into a failure; no speed is measured.
 */
export const CPU_BOUND = { timeout: 120_000 };

let counter = 0;

/** A request envelope as a host would send it. */
export function request(type: string, payload?: unknown, extra: Record<string, unknown> = {}) {
  counter++;
  return {
    type,
    id: `req-${counter}`,
    sessionId: 'session-1',
    sentAt: '2026-11-30T00:00:00Z',
    capability: 'tool.exec',
    ...(payload === undefined ? {} : { payload }),
    ...extra,
  };
}

/** Sends one request through the bridge and returns the response with its payload decoded. */
export async function exchange(bridge: ToolBridge, message: unknown) {
  const response = await bridge.handle(message);
  if (!response) throw new Error('expected a response, got pass-through');
  const { envelope } = response;
  // The response's own fields are the frame's.
  expect([response.type, response.id]).toEqual([envelope.type, envelope.id]);
  return {
    ...envelope,
    payload: decodePayload(envelope.payload) as Record<string, unknown>,
  } as Omit<ResponseEnvelope, 'payload'> & { payload: Record<string, any> };
}

/** Nests `{child: ...}` `depth` levels deep (the outermost object is level 1). */
export function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { child: value };
  return value;
}

/** The code of the ToolProtocolError `run` throws (the test fails if it throws none). */
export function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolProtocolError);
    return (error as ToolProtocolError).code;
  }
  throw new Error('expected a ToolProtocolError');
}

/** A gzip stream of `mebibytes` MiB of zeros, made without holding them in memory. */
export async function zeroBomb(mebibytes: number): Promise<Uint8Array> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < mebibytes; i++) if (!gzip.write(zeros)) await once(gzip, 'drain');
  gzip.end();
  await once(gzip, 'end');
  return new Uint8Array(Buffer.concat(chunks));
}

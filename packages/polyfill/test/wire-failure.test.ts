/**
 * `@toolwire/polyfill/wire`'s one mapping, wireFailure (and toBridgeTool, which applies it): what the real polyfill rejects with
 * (happy-dom) becomes the wire's `{code, message, retryable, details}` by its properties
 * (`toolCode`, `issues`, the signal reason), for every kind of failure, in this document and
 * after crossing a frame (the frames bridge's serialize / structured clone / rebuild).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { noProgress, TOOL_ERROR_CODES, ToolProtocolError, toolFailure } from '@toolwire/protocol';
import { describe, expect, it } from 'vitest';
import { deserializeError, serializeError } from '../src/frames/errors.js';
import type { JsonSchema, ToolPolicy } from '../src/index.js';
import { dataError, ToolExecutionError, Tools } from '../src/index.js';
import type { WireFailure } from '../src/wire/index.js';
import { toBridgeTool, wireFailure } from '../src/wire/index.js';
import { freshInstall, rejection } from './helpers.js';

const NUMBER_INPUT: JsonSchema = {
  type: 'object',
  properties: { n: { type: 'number' } },
  required: ['n'],
};
const NUMBER_OUTPUT: JsonSchema = {
  type: 'object',
  properties: { n: { type: 'number' } },
  required: ['n'],
};

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { n: 1 };
  value.self = value;
  return value;
}

/** A page with one tool of each kind of failure, called as the wire calls (JSON). */
async function page() {
  const installation = freshInstall();
  const { toolManager, tools } = installation;
  const register = (
    name: string,
    execute: (input: unknown, context: { signal: AbortSignal }) => unknown,
    schemas: { inputSchema?: JsonSchema; outputSchema?: JsonSchema } = {},
  ) => toolManager.register({ name, execute, ...schemas });
  await register('ok', (input) => ({ got: input }), { inputSchema: NUMBER_INPUT });
  await register(
    'throws',
    () => {
      throw new RangeError('boom');
    },
    {},
  );
  await register('throws.string', () => {
    throw 'plain words';
  });
  // The tool's own AbortError, while nobody aborted the call: the tool's failure.
  await register('throws.abort', () => {
    throw new DOMException('the tool gave up', 'AbortError');
  });
  await register('wrong.result', () => ({ n: 'two' }), { outputSchema: NUMBER_OUTPUT });
  await register('cyclic', cyclic);
  await register('nan', () => ({ n: Number.NaN }));
  await register('fn', () => ({ run: () => 1 }), { outputSchema: NUMBER_OUTPUT });
  await register('not.a.date', () => ({ when: 5 }), {
    outputSchema: { type: 'object', properties: { when: { webType: 'Date' } } },
  });
  await register('hangs', (_input, context) => {
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener('abort', () => reject(context.signal.reason));
    });
  });
  const call = (name: string, input: unknown = {}, signal?: AbortSignal) =>
    rejection(tools.callTool(name, input, { encoding: 'json', ...(signal ? { signal } : {}) }));
  return { ...installation, call };
}

const wire = (error: unknown, toolId: string, policy: ToolPolicy = 'write', cause?: unknown) =>
  wireFailure(error, { toolId, policy, ...(cause !== undefined ? { cause } : {}) });

describe('wireFailure: what the polyfill raises, by kind', () => {
  it('an honest call succeeds (the page works before it fails)', async () => {
    const { tools } = await page();
    expect(await tools.callTool('ok', { n: 1 }, { encoding: 'json' })).toEqual({ got: { n: 1 } });
  });

  it('unknown tool: tool_not_found', async () => {
    const { call } = await page();
    const { error } = await call('nope');
    expect(error.toolCode).toBe('tool_not_found');
    expect(wire(error, 'nope')).toMatchObject({
      code: 'tool_not_found',
      retryable: false,
      details: null,
    });
  });

  it('the permission refuses: tool_execution_denied', async () => {
    const { toolManager, registry } = freshInstall();
    await toolManager.register({ name: 't', execute: () => 1 });
    // The same registry, read by a document the permissions policy refuses.
    const refused = new Tools(registry, { allowed: () => false });
    const { error, name } = await rejection(refused.callTool('t', {}, { encoding: 'json' }));
    expect(name).toBe('NotAllowedError');
    expect(wire(error, 't')).toMatchObject({ code: 'tool_execution_denied', retryable: false });
  });

  it('arguments that fail the input schema: the $-rooted issues the bridge gives', async () => {
    const { call } = await page();
    const { error, name } = await call('ok', { n: 'one', extra: true });
    expect(name).toBe('DataError');
    expect(error.toolCode).toBe('tool_arguments_schema_invalid');
    expect(error.issues).toBe(error.errors);
    expect(wire(error, 'ok')).toEqual({
      code: 'tool_arguments_schema_invalid',
      // Read without the schema here: the validator's words, in a person's order.
      message: '`n` must be a number',
      retryable: false,
      details: [
        expect.objectContaining({
          path: '$.n',
          keyword: 'type',
          schemaPath: '#/properties/n/type',
        }),
      ],
    });
  });

  it('arguments that are not JSON: tool_arguments_invalid, naming where', async () => {
    const { call } = await page();
    const { error } = await call('throws', { list: [1, () => 2] });
    expect(error.toolCode).toBe('tool_arguments_invalid');
    const failure = wire(error, 'throws');
    expect(failure).toMatchObject({
      code: 'tool_arguments_invalid',
      message: 'The call arguments cannot be read: $.list[1] a function is not JSON',
      retryable: false,
      details: [expect.objectContaining({ path: '$.list[1]' })],
    });
  });

  it('the tool threw: tool_execution_exception with {name, message} of what it threw', async () => {
    const { call } = await page();
    const { error } = await call('throws');
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect(error).toMatchObject({
      code: 'tool_execution_exception',
      toolCode: 'tool_execution_exception',
    });
    expect(wire(error, 'throws')).toEqual({
      code: 'tool_execution_exception',
      message: 'Tool "throws" threw: boom',
      retryable: false,
      details: { name: 'RangeError', message: 'boom' },
    });
    expect(wire((await call('throws.string')).error, 'throws.string')).toEqual({
      code: 'tool_execution_exception',
      message: 'Tool "throws.string" threw: plain words',
      retryable: false,
      details: { value: 'plain words' },
    });
  });

  it('an AbortError the tool threw itself is the tool failing, not a cancel', async () => {
    const { call } = await page();
    const { error } = await call('throws.abort');
    expect(wire(error, 'throws.abort')).toEqual({
      code: 'tool_execution_exception',
      message: 'Tool "throws.abort" threw: the tool gave up',
      retryable: false,
      details: { name: 'AbortError', message: 'the tool gave up' },
    });
  });

  it('a result that fails outputSchema: tool_result_schema_invalid with its issues', async () => {
    const { call } = await page();
    const { error, name } = await call('wrong.result');
    expect(name).toBe('OperationError');
    expect(error.toolCode).toBe('tool_result_schema_invalid');
    expect(wire(error, 'wrong.result')).toEqual({
      code: 'tool_result_schema_invalid',
      // A Standard Schema's own words follow the name after a colon.
      message:
        'The result of "wrong.result" does not match its resultSchema: `n`: Expected number, got string.',
      retryable: false,
      details: [expect.objectContaining({ path: '$.n', keyword: 'type' })],
    });
    // A web type the result does not hold: the lowering's verdict, the same code.
    const date = await call('not.a.date');
    expect(wire(date.error, 'not.a.date')).toMatchObject({
      code: 'tool_result_schema_invalid',
      details: [expect.objectContaining({ path: '$.when' })],
    });
  });

  it('a result that cannot be made JSON: tool_protocol_bridge_failed, schema or not', async () => {
    const { call } = await page();
    for (const name of ['cyclic', 'fn', 'nan']) {
      const { error } = await call(name);
      expect(error.toolCode, name).toBe('tool_protocol_bridge_failed');
      expect(wire(error, name), name).toMatchObject({
        code: 'tool_protocol_bridge_failed',
        retryable: false,
        details: null,
      });
    }
  });

  it("a schema the page's validator cannot compile: tool_definition_invalid", async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'bad.schema',
      outputSchema: { $ref: '#/$defs/missing' } as JsonSchema,
      execute: () => ({}),
    });
    const { error, name } = await rejection(tools.callTool('bad.schema', {}, { encoding: 'json' }));
    expect(name).toBe('OperationError');
    expect(wire(error, 'bad.schema')).toMatchObject({
      code: 'tool_definition_invalid',
      retryable: false,
    });
  });
});

describe("wireFailure: the call's signal decides, by its reason", () => {
  it("the call's deadline: tool_execution_timeout, retryable only for a read tool", async () => {
    const { call } = await page();
    const controller = new AbortController();
    const pending = call('hangs', {}, controller.signal);
    const deadline = new ToolProtocolError('tool_execution_timeout', 'Past its deadline.');
    controller.abort(deadline);
    const { error } = await pending;
    expect(error).toBe(deadline);
    expect(wire(error, 'hangs', 'read', controller.signal.reason)).toEqual({
      code: 'tool_execution_timeout',
      message: 'Past its deadline.',
      retryable: true,
      details: null,
    });
    expect(wire(error, 'hangs', 'write', controller.signal.reason)).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: false,
    });
    // Without the cause, the reason the polyfill rejected with still says so.
    expect(wire(error, 'hangs', 'read')).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: true,
    });
  });

  it("the caller's cancel: tool_call_cancelled, whatever the reason's words", async () => {
    const { call } = await page();
    for (const reason of [
      new ToolProtocolError('tool_call_cancelled', 'The host cancelled it.'),
      undefined, // a bare abort(): the platform's AbortError
      new Error('Tool deadline passed'), // words that say "deadline" decide nothing
    ]) {
      const controller = new AbortController();
      const pending = call('hangs', {}, controller.signal);
      controller.abort(reason);
      const { error } = await pending;
      expect(wire(error, 'hangs', 'read', controller.signal.reason)).toMatchObject({
        code: 'tool_call_cancelled',
        retryable: false,
        details: null,
      });
    }
  });

  it('a TimeoutError reason (AbortSignal.timeout) is a deadline', () => {
    const reason = new DOMException('signal timed out', 'TimeoutError');
    expect(wire(reason, 't', 'read', reason)).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: true,
    });
  });

  it('a failure that is not the abort keeps its own code while the signal is aborted', async () => {
    const { call } = await page();
    const { error } = await call('throws');
    const reason = new ToolProtocolError('tool_call_cancelled', 'late');
    expect(wire(error, 'throws', 'read', reason).code).toBe('tool_execution_exception');
  });
});

/** What a frame's error becomes in its parent: serialized, cloned over the port, rebuilt. */
function crossFrame(error: unknown): Error {
  return deserializeError(structuredClone(serializeError(error)), {
    toolExecutionError: (toolName, cause) => new ToolExecutionError(toolName, cause),
    dataError,
  });
}

describe('wireFailure: errors that crossed a frame', () => {
  it('map exactly as they did in the frame that raised them', async () => {
    const { call } = await page();
    const raised: [string, unknown][] = [
      ['nope', (await call('nope')).error],
      ['ok', (await call('ok', { n: 'one' })).error],
      ['throws', (await call('throws', { f: () => 1 })).error],
      ['throws', (await call('throws')).error],
      ['throws.string', (await call('throws.string')).error],
      ['wrong.result', (await call('wrong.result')).error],
      ['cyclic', (await call('cyclic')).error],
    ];
    const codes: string[] = [];
    for (const [toolId, error] of raised) {
      const here = wire(error, toolId);
      const there = crossFrame(error);
      expect(wire(there, toolId), toolId).toEqual(here);
      codes.push(here.code);
    }
    expect(codes).toEqual([
      'tool_not_found',
      'tool_arguments_schema_invalid',
      'tool_arguments_invalid',
      'tool_execution_exception',
      'tool_execution_exception',
      'tool_result_schema_invalid',
      'tool_protocol_bridge_failed',
    ]);
  });

  it("keeps only what a frame may claim: a code's shape, well-formed issues", () => {
    const make = {
      toolExecutionError: (toolName: string, cause: unknown) =>
        new ToolExecutionError(toolName, cause),
      dataError,
    };
    const honest = deserializeError(
      { name: 'OperationError', message: 'x', toolCode: 'tool_result_schema_invalid' },
      make,
    );
    expect(wire(honest, 't').code).toBe('tool_result_schema_invalid');
    const lying = deserializeError(
      {
        name: 'OperationError',
        message: 'x',
        toolCode: 'Tool Not Found <script>',
        issues: [{ path: 1 }, 'junk'],
      },
      make,
    );
    expect(lying).not.toHaveProperty('toolCode');
    // By its name only: an OperationError without a code.
    expect(wire(lying, 't')).toMatchObject({ code: 'tool_result_schema_invalid', details: null });
  });
});

describe('wireFailure: errors no toolwire raised (a browser, another polyfill), by name', () => {
  it.each([
    ['UnknownError', 'tool_execution_exception'],
    ['NotFoundError', 'tool_not_found'],
    ['NotAllowedError', 'tool_execution_denied'],
    ['DataError', 'tool_arguments_schema_invalid'],
    ['TypeError', 'tool_arguments_invalid'],
    ['OperationError', 'tool_result_schema_invalid'],
    ['AbortError', 'tool_call_cancelled'],
    ['QuotaExceededError', 'tool_execution_failed'],
    ['constructor', 'tool_execution_failed'],
  ])('%s: %s', (name, code) => {
    const failure = wire(new DOMException('the browser said so', name), 't');
    expect(failure).toEqual({
      code,
      message: 'the browser said so',
      retryable: false,
      details: null,
    });
  });

  it('an older toolwire DataError (no toolCode) keeps its issues from `errors`', () => {
    const error = Object.assign(new DOMException('{}', 'DataError'), {
      errors: [{ path: '/a~1b/0', reason: 'must be string', schemaPath: '#/type' }],
    });
    expect(wire(error, 't').details).toEqual([
      { path: '$["a/b"][0]', message: 'must be string', keyword: 'type', schemaPath: '#/type' },
    ]);
  });

  it('a coded record keeps its code, its details and the table’s retryable', () => {
    expect(
      wire({ toolCode: 'toolwire_chunk_load_failed', message: 'no chunk', details: { f: 1 } }, 't'),
    ).toEqual({
      code: 'toolwire_chunk_load_failed',
      message: 'no chunk',
      retryable: true,
      details: { f: 1 },
    });
  });

  it('never throws, whatever it is handed', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    for (const value of [hostile, null, undefined, 42, 'words', Symbol('s')]) {
      const failure: WireFailure = wire(value, 't');
      expect(failure.code).toBe('tool_execution_failed');
      expect(failure.retryable).toBe(false);
    }
  });
});

describe('the codes the polyfill raises', () => {
  it('are all rows of the one table (TOOL_ERROR_CODES)', () => {
    const src = fileURLToPath(new URL('../src/', import.meta.url));
    const files = [
      'errors.ts',
      'run.ts',
      'tools.ts',
      'json-input.ts',
      'native.ts',
      'define-tool.ts',
      'lib/chunks.ts',
      'frames/calls.ts',
      'frames/link.ts',
      'frames/remote-tools.ts',
    ];
    const named = new Set<string>();
    for (const file of files) {
      for (const match of readFileSync(`${src}${file}`, 'utf8').matchAll(
        /'((?:tool|toolwire)_[a-z_]+)'/g,
      ))
        named.add(match[1] as string);
    }
    // The scan finds the codes (it can fail): at least these.
    expect([...named]).toEqual(
      expect.arrayContaining([
        'tool_not_found',
        'tool_execution_denied',
        'tool_arguments_schema_invalid',
        'tool_arguments_invalid',
        'tool_execution_exception',
        'tool_result_schema_invalid',
        'tool_protocol_bridge_failed',
        'tool_definition_invalid',
        'toolwire_chunk_load_failed',
      ]),
    );
    for (const code of named) expect(Object.hasOwn(TOOL_ERROR_CODES, code), code).toBe(true);
  });
});

describe('toBridgeTool: a page tool as its wire entry', () => {
  const context = (signal = new AbortController().signal) => ({
    requestId: 'r',
    sessionId: null,
    callId: null,
    toolId: 'notes.add',
    signal,
    reportProgress: noProgress,
  });
  const entry = {
    id: 'notes.add@widget.example',
    name: 'notes.add',
    title: 'Add a note',
    description: 'Adds a note.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: { readOnlyHint: true, idempotentHint: true },
    origin: 'https://widget.example',
    policy: 'read' as const,
    keywords: ['memo'],
    validates: true,
  };

  it('lists it as docs/wire.md says, and passes results and coded failures through', async () => {
    const expanded: object[] = [];
    const tool = toBridgeTool(
      entry,
      async (args) => (args.text === 'coded' ? toolFailure({ code: 'mine', message: 'm' }) : args),
      (schema) => {
        expanded.push(schema);
        return { ...schema, expanded: true };
      },
    );
    expect(tool.definition).toEqual({
      id: 'notes.add@widget.example',
      name: 'Add a note',
      description: 'Adds a note.',
      category: 'notes',
      policy: 'read',
      argumentsSchema: { ...entry.inputSchema, expanded: true },
      resultSchema: {},
      keywords: ['memo'],
      origin: 'https://widget.example',
      annotations: { idempotentHint: true },
    });
    expect(expanded).toEqual([entry.inputSchema]);
    expect(tool.validates).toEqual({ arguments: true, result: true });
    expect(await tool.execute({ text: 'hi' }, context())).toEqual({ text: 'hi' });
    expect(await tool.execute({ text: 'coded' }, context())).toMatchObject({ code: 'mine' });
    const plain = toBridgeTool(
      { ...entry, name: 'plain', title: '', inputSchema: undefined, validates: false },
      async () => null,
      (schema) => schema,
    );
    expect(plain.definition).toMatchObject({
      name: 'plain',
      category: 'page',
      argumentsSchema: { type: 'object' },
    });
    expect(plain.validates).toBeUndefined();
  });

  it("maps what run rejects with (or throws) by wireFailure, with the signal's reason", async () => {
    const tool = toBridgeTool(
      entry,
      (args) => {
        if (args.sync) throw new DOMException('gone', 'NotFoundError');
        return Promise.reject(
          args.reason ?? new ToolExecutionError('notes.add', { name: 'Error', message: 'x' }),
        );
      },
      (schema) => schema,
    );
    expect(await tool.execute({ sync: true }, context())).toMatchObject({ code: 'tool_not_found' });
    expect(await tool.execute({}, context())).toMatchObject({
      code: 'tool_execution_exception',
      message: 'Tool "notes.add@widget.example" threw: x',
    });
    const controller = new AbortController();
    const deadline = new ToolProtocolError('tool_execution_timeout', 'late');
    controller.abort(deadline);
    expect(await tool.execute({ reason: deadline }, context(controller.signal))).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: true,
    });
  });
});

/**
 * The contract suite (issue 4, docs/style.md 12): behaviour written once and run against
 * - the polyfill under happy-dom (test/contract.test.ts),
 * - the polyfill in real Chromium with native WebMCP off (e2e/polyfill-contract.e2e.ts),
 * - native `document.modelContext` in Chromium with --enable-experimental-web-platform-features,
 *   with toolManager/tools layered on top (same e2e file, project chromium-native).
 * `spec` cases follow the WebMCP spec and its WPT tests; they run natively too. Where native
 * Chromium differs, the case is listed in NATIVE_DIFFERENCES with a reason, and the native run
 * asserts that it still fails, so the list cannot go stale silently.
 */
import { deepEqual, equal, nextEvent, ok, rejects, rejectsWith } from './assert.js';
import { DECLARATIVE_CASES, DECLARATIVE_NATIVE_DIFFERENCES } from './declarative-cases.js';

export interface ContractEnv {
  win: Window & typeof globalThis;
  /** document.modelContext: ours, or the browser's own. */
  mc: any;
  toolManager: any;
  tools: any;
  native: boolean;
  /** A signal aborted after the case, for registrations that must not outlive it. */
  signal: AbortSignal;
}

export interface ContractCase {
  name: string;
  /**
   * spec: the WebMCP spec surface (runs natively); generic: toolManager/tools; layering: native
   * + generic; declarative: `<form toolname>` tools (declarative-cases.ts; native where the
   * browser supports them).
   */
  kind: 'spec' | 'generic' | 'layering' | 'declarative';
  run(env: ContractEnv): Promise<void>;
}

/** Where native Chromium 156 is known to differ from the spec (and so from the polyfill). */
export const NATIVE_DIFFERENCES: Readonly<Record<string, string>> = {
  'executeTool: input that fails inputSchema is a DataError naming the keyword, and execute does not run':
    'Chromium 156 does not check the input against inputSchema: it runs the tool; the tentative WPT executeTool-input-validation expects a DataError.',
  'executeTool: a result of undefined is an UnknownError':
    'Chromium 156 resolves with the string "undefined"; the spec JSON-serializes the result, which throws for undefined.',
  ...DECLARATIVE_NATIVE_DIFFERENCES,
};

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool.`,
  execute: async (input: unknown) => input,
  ...extra,
});

/** Drains this many microtask turns: a promise settled in one of them is not task-timed. */
async function microtasks(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

/**
 * Has `promise` settled within the caller's microtasks? The spec settles these promises in a
 * queued task, which cannot run while microtasks are still being drained.
 */
async function settlesInMicrotasks(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await microtasks();
  const early = settled;
  await promise.catch(() => {});
  return early;
}

async function registerAndGet(env: ContractEnv, definition: object, options: object = {}) {
  await env.mc.registerTool(definition, { signal: env.signal, ...options });
  const tools = await env.mc.getTools();
  const found = tools.find(
    (entry: { name: string }) => entry.name === (definition as { name: string }).name,
  );
  ok(found, `getTools() lists ${(definition as { name: string }).name}`);
  return found;
}

export const CASES: ContractCase[] = [
  // ---- registerTool -------------------------------------------------------------------------
  {
    name: 'registerTool: resolves undefined and getTools returns the registered tool',
    kind: 'spec',
    async run(env) {
      const result = await env.mc.registerTool(
        tool('echo', {
          title: 'Echo',
          inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
          annotations: { readOnlyHint: true },
        }),
        { signal: env.signal },
      );
      equal(result, undefined, 'registerTool() result');
      const [registered] = await env.mc.getTools();
      deepEqual(
        { ...registered, window: registered.window === env.win },
        {
          annotations: {
            consequentialHint: false,
            debugging: false,
            readOnlyHint: true,
            untrustedContentHint: false,
          },
          description: 'The echo tool.',
          inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
          name: 'echo',
          origin: env.win.location.origin,
          title: 'Echo',
          window: true,
        },
        'RegisteredTool',
      );
    },
  },
  {
    name: 'registerTool: no title, schema or annotations gives title "" and no other members',
    kind: 'spec',
    async run(env) {
      const registered = await registerAndGet(env, tool('bare'));
      deepEqual(
        Object.keys(registered).sort(),
        ['description', 'name', 'origin', 'title', 'window'],
        'members',
      );
      equal(registered.title, '', 'title');
    },
  },
  {
    name: 'registerTool: invalid names are InvalidStateError; 128 characters is fine',
    kind: 'spec',
    async run(env) {
      for (const name of ['', 'a b', 'x'.repeat(129), 'naïve', 'a/b']) {
        await rejectsWith(
          env.mc.registerTool(tool(name), { signal: env.signal }),
          'InvalidStateError',
          `name ${JSON.stringify(name)}`,
        );
      }
      await env.mc.registerTool(tool('x'.repeat(128)), { signal: env.signal });
      await env.mc.registerTool(tool('Az09_.-'), { signal: env.signal });
    },
  },
  {
    name: 'registerTool: a duplicate name is InvalidStateError',
    kind: 'spec',
    async run(env) {
      await env.mc.registerTool(tool('dup'), { signal: env.signal });
      await rejectsWith(
        env.mc.registerTool(tool('dup'), { signal: env.signal }),
        'InvalidStateError',
        'duplicate',
      );
    },
  },
  {
    name: 'registerTool: an empty description is InvalidStateError',
    kind: 'spec',
    async run(env) {
      await rejectsWith(
        env.mc.registerTool(tool('nodesc', { description: '' }), { signal: env.signal }),
        'InvalidStateError',
        'empty description',
      );
    },
  },
  {
    name: 'registerTool: an inputSchema that cannot be serialized rejects with the serializer error',
    kind: 'spec',
    async run(env) {
      const undefinedJson = { toJSON: () => undefined };
      await rejectsWith(
        env.mc.registerTool(tool('s1', { inputSchema: undefinedJson }), { signal: env.signal }),
        'TypeError',
        'toJSON undefined',
      );
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await rejectsWith(
        env.mc.registerTool(tool('s2', { inputSchema: cyclic }), { signal: env.signal }),
        'TypeError',
        'cycle',
      );
    },
  },
  {
    name: 'registerTool: a pre-aborted signal rejects with its reason',
    kind: 'spec',
    async run(env) {
      const reason = new Error('custom reason');
      const error = await rejects(
        env.mc.registerTool(tool('aborted'), { signal: AbortSignal.abort(reason) }),
        'pre-aborted',
      );
      equal(error, reason, 'rejection reason');
      equal((await env.mc.getTools()).length, 0, 'nothing registered');
    },
  },
  {
    name: 'registerTool: exposedTo must list potentially trustworthy origins (SecurityError)',
    kind: 'spec',
    async run(env) {
      for (const origin of ['http://example.com', 'not a url', '*']) {
        await rejectsWith(
          env.mc.registerTool(tool('exp'), { exposedTo: [origin], signal: env.signal }),
          'SecurityError',
          origin,
        );
      }
      await env.mc.registerTool(tool('exp'), {
        exposedTo: ['https://example.com'],
        signal: env.signal,
      });
    },
  },
  {
    name: 'registerTool: aborting the signal unregisters and fires toolchange',
    kind: 'spec',
    async run(env) {
      const controller = new AbortController();
      await env.mc.registerTool(tool('temp'), { signal: controller.signal });
      let changes = 0;
      env.mc.addEventListener('toolchange', () => changes++);
      const changed = nextEvent(env.mc, 'toolchange');
      controller.abort();
      await changed;
      equal((await env.mc.getTools()).length, 0, 'tools after abort');
      ok(changes >= 1, 'toolchange after unregistering');
    },
  },
  {
    name: 'toolchange: a plain, non-bubbling, non-cancelable Event before registerTool resolves',
    kind: 'spec',
    async run(env) {
      const seen: string[] = [];
      let event: Event | undefined;
      env.mc.addEventListener('toolchange', (e: Event) => {
        event = e;
        seen.push('toolchange');
      });
      await env.mc.registerTool(tool('changer'), { signal: env.signal });
      seen.push('resolved');
      // Nothing to wait for: a toolchange that came later would make seen[0] 'resolved'.
      equal(seen[0], 'toolchange', 'toolchange comes first');
      ok(event && !event.bubbles && !event.cancelable, 'not bubbling, not cancelable');
    },
  },
  {
    name: 'ontoolchange: the event handler attribute works',
    kind: 'spec',
    async run(env) {
      let called = 0;
      env.mc.ontoolchange = () => called++;
      ok(typeof env.mc.ontoolchange === 'function', 'getter returns the handler');
      // toolchange comes before registerTool resolves (the case above): no wait.
      await env.mc.registerTool(tool('handler'), { signal: env.signal });
      env.mc.ontoolchange = null;
      ok(called >= 1, 'handler called');
    },
  },
  {
    name: 'timing: registerTool settles in a task; each registration and unregistration fires its own toolchange first',
    kind: 'spec',
    async run(env) {
      const log: string[] = [];
      env.mc.addEventListener('toolchange', () => log.push('toolchange'));
      const first = env.mc.registerTool(tool('t.one'), { signal: env.signal });
      const second = env.mc.registerTool(tool('t.two'), { signal: env.signal });
      first.then(() => log.push('resolved:one'));
      second.then(() => log.push('resolved:two'));
      await microtasks();
      deepEqual(log, [], 'nothing within the caller microtasks');
      // Both resolution callbacks were attached before this await's: they have run.
      await Promise.all([first, second]);
      deepEqual(
        log,
        ['toolchange', 'resolved:one', 'toolchange', 'resolved:two'],
        'one toolchange per registration, each before its promise',
      );
      const controller = new AbortController();
      await env.mc.registerTool(tool('t.a'), { signal: controller.signal });
      await env.mc.registerTool(tool('t.b'), { signal: controller.signal });
      // Their own toolchanges came before they resolved, and none came late for one or two.
      deepEqual(
        log.splice(0),
        ['toolchange', 'resolved:one', 'toolchange', 'resolved:two', 'toolchange', 'toolchange'],
        'two more registrations, nothing late',
      );
      let count = 0;
      const twoChanges = new Promise<void>((resolve) => {
        env.mc.addEventListener('toolchange', () => {
          if (++count === 2) resolve();
        });
      });
      controller.abort();
      await microtasks();
      deepEqual(log, [], 'unregistering: no toolchange within the microtasks');
      await twoChanges;
      // A getTools() round (it settles in a task) after them: no third one came meanwhile.
      await env.mc.getTools();
      deepEqual(log, ['toolchange', 'toolchange'], 'one toolchange per unregistration');
    },
  },
  {
    name: 'registerTool: aborting the signal before the promise settles rejects it with the reason',
    kind: 'spec',
    async run(env) {
      const controller = new AbortController();
      const pending = env.mc.registerTool(tool('quick'), { signal: controller.signal });
      controller.abort('changed my mind');
      equal(await rejects(pending, 'aborted registration'), 'changed my mind', 'reason');
      equal((await env.mc.getTools()).length, 0, 'not registered');
    },
  },
  // ---- getTools ------------------------------------------------------------------------------
  {
    name: 'timing: getTools and executeTool settle in a task, not in the caller microtasks',
    kind: 'spec',
    async run(env) {
      const registered = await registerAndGet(env, tool('timed', { execute: () => 'now' }));
      const failing = await registerAndGet(
        env,
        tool('timed.fails', {
          execute: () => {
            throw new Error('no');
          },
        }),
      );
      ok(!(await settlesInMicrotasks(env.mc.getTools())), 'getTools');
      ok(!(await settlesInMicrotasks(env.mc.executeTool(registered, {}))), 'executeTool result');
      ok(!(await settlesInMicrotasks(env.mc.executeTool(failing, {}))), 'executeTool failure');
      const unknown = { ...registered, name: 'timed.missing' };
      ok(!(await settlesInMicrotasks(env.mc.executeTool(unknown, {}))), 'executeTool unknown tool');
    },
  },
  {
    name: 'getTools: sorted by name in code-unit order',
    kind: 'spec',
    async run(env) {
      for (const name of ['b', 'B', 'a', '_', 'a.b'])
        await env.mc.registerTool(tool(name), { signal: env.signal });
      deepEqual(
        (await env.mc.getTools()).map((t: { name: string }) => t.name),
        ['B', '_', 'a', 'a.b', 'b'],
        'order',
      );
    },
  },
  {
    name: 'getTools: fromOrigins entries must be potentially trustworthy (SecurityError)',
    kind: 'spec',
    async run(env) {
      await rejectsWith(
        env.mc.getTools({ fromOrigins: ['http://insecure.example'] }),
        'SecurityError',
        'insecure fromOrigins',
      );
      await env.mc.getTools({ fromOrigins: ['https://secure.example'] });
    },
  },
  // ---- executeTool ---------------------------------------------------------------------------
  {
    name: 'executeTool: resolves the JSON serialization of the result; a string result as it is',
    kind: 'spec',
    async run(env) {
      await env.mc.registerTool(tool('obj', { execute: async () => ({ a: [1, 'b'] }) }), {
        signal: env.signal,
      });
      await env.mc.registerTool(tool('str', { execute: async () => 'hello' }), {
        signal: env.signal,
      });
      await env.mc.registerTool(tool('num', { execute: () => 42 }), { signal: env.signal });
      const tools = await env.mc.getTools();
      const byName = (name: string) => tools.find((t: { name: string }) => t.name === name);
      equal(await env.mc.executeTool(byName('obj'), {}), '{"a":[1,"b"]}', 'object result');
      // The spec text would JSON-quote it; WPT (executeTool-abort, exposedTo-*) expects it unchanged.
      equal(await env.mc.executeTool(byName('str'), {}), 'hello', 'string result');
      equal(await env.mc.executeTool(byName('num'), {}), '42', 'number result');
    },
  },
  {
    name: 'executeTool: omitted input is {}; arrays are accepted',
    kind: 'spec',
    async run(env) {
      const seen: unknown[] = [];
      const registered = await registerAndGet(
        env,
        tool('inputs', {
          execute: async (input: unknown) => {
            seen.push(input);
            return 'ok';
          },
        }),
      );
      await env.mc.executeTool(registered);
      await env.mc.executeTool(registered, undefined);
      await env.mc.executeTool(registered, [1, 2]);
      deepEqual(seen, [{}, {}, [1, 2]], 'inputs seen by execute');
    },
  },
  {
    name: 'executeTool: primitives and null are TypeError; toJSON returning undefined is TypeError',
    kind: 'spec',
    async run(env) {
      const registered = await registerAndGet(env, tool('typed'));
      for (const input of [null, 5, 'text', true]) {
        await rejectsWith(
          env.mc.executeTool(registered, input),
          'TypeError',
          `input ${JSON.stringify(input)}`,
        );
      }
      await rejectsWith(
        env.mc.executeTool(registered, { toJSON: () => undefined }),
        'TypeError',
        'toJSON undefined',
      );
    },
  },
  {
    name: 'executeTool: a tool that throws or rejects is an UnknownError',
    kind: 'spec',
    async run(env) {
      const throws = await registerAndGet(
        env,
        tool('throws', {
          execute: () => {
            throw new TypeError('boom');
          },
        }),
      );
      const rejectsTool = await registerAndGet(
        env,
        tool('rejects', {
          execute: async () => Promise.reject(new DOMException('x', 'DataError')),
        }),
      );
      await rejectsWith(env.mc.executeTool(throws, {}), 'UnknownError', 'throws');
      await rejectsWith(env.mc.executeTool(rejectsTool, {}), 'UnknownError', 'rejects');
    },
  },
  {
    name: 'executeTool: an unknown tool is an UnknownError; a missing origin is a TypeError',
    kind: 'spec',
    async run(env) {
      const fake = {
        name: 'nope',
        description: 'd',
        window: env.win,
        origin: env.win.location.origin,
      };
      await rejectsWith(env.mc.executeTool(fake, {}), 'UnknownError', 'unknown tool');
      await rejectsWith(
        env.mc.executeTool({ name: 'nope', description: 'd', window: env.win }, {}),
        'TypeError',
        'missing origin',
      );
    },
  },
  {
    name: 'executeTool: a result of undefined is an UnknownError',
    kind: 'spec',
    async run(env) {
      const registered = await registerAndGet(
        env,
        tool('undef', { execute: async () => undefined }),
      );
      await rejectsWith(env.mc.executeTool(registered, {}), 'UnknownError', 'undefined result');
    },
  },
  {
    // As the tentative WPT executeTool-input-validation (required, enum, pattern, type, retry).
    name: 'executeTool: input that fails inputSchema is a DataError naming the keyword, and execute does not run',
    kind: 'spec',
    async run(env) {
      const ran: unknown[] = [];
      const registered = await registerAndGet(
        env,
        tool('checked', {
          inputSchema: {
            type: 'object',
            properties: {
              field: { type: 'string' },
              color: { type: 'string', enum: ['red', 'green'] },
              code: { type: 'string', pattern: '^[a-z]+$' },
              age: { type: 'integer', minimum: 0, maximum: 120 },
            },
            required: ['field'],
          },
          execute: async (input: unknown) => {
            ran.push(input);
            return 'ran';
          },
        }),
      );
      const cases: [object, { path: string; reason: string; schemaPath?: string }][] = [
        [{}, { path: '/field', reason: 'required', schemaPath: '/required' }],
        [
          { field: 'f', color: 'blue' },
          { path: '/color', reason: 'enum', schemaPath: '/enum' },
        ],
        [
          { field: 'f', code: 'ABC123' },
          { path: '/code', reason: 'pattern', schemaPath: '/pattern' },
        ],
        [
          { field: 'f', age: 'old' },
          { path: '/age', reason: 'type' },
        ],
      ];
      for (const [input, expected] of cases) {
        const pending = env.mc.executeTool(registered, input);
        ok(!(await settlesInMicrotasks(pending)), `${expected.reason}: settles in a task`);
        const error = await rejectsWith(pending, 'DataError', expected.reason);
        const message = JSON.parse(error.message);
        deepEqual(
          { path: message.path, reason: message.reason, schemaPath: message.schemaPath },
          {
            path: expected.path,
            reason: expected.reason,
            schemaPath: expected.schemaPath ?? message.schemaPath,
          },
          `${expected.reason}: message`,
        );
      }
      deepEqual(ran, [], 'execute did not run');
      equal(await env.mc.executeTool(registered, { field: 'f', age: 30 }), 'ran', 'retry');
      equal(ran.length, 1, 'execute ran once the input was right');
    },
  },
  {
    name: 'executeTool: execute gets an AbortSignal that is not aborted',
    kind: 'spec',
    async run(env) {
      let signal: AbortSignal | undefined;
      const registered = await registerAndGet(
        env,
        tool('sig', {
          execute: async (_: unknown, options: { signal: AbortSignal }) => {
            signal = options.signal;
            return 'ok';
          },
        }),
      );
      await env.mc.executeTool(registered, {});
      ok(signal instanceof AbortSignal && !signal.aborted, 'a live AbortSignal');
    },
  },
  {
    name: 'executeTool: toolactivated is a ToolActivatedEvent at modelContext, once, not bubbling or cancelable',
    kind: 'spec',
    async run(env) {
      const events: (Event & { toolName: string })[] = [];
      env.mc.addEventListener('toolactivated', (e: Event & { toolName: string }) => events.push(e));
      const registered = await registerAndGet(env, tool('act'));
      const after = await registerAndGet(env, tool('act.after'));
      await env.mc.executeTool(registered, {});
      // A barrier: the next call's toolactivated comes after every one the first call caused.
      const next = nextEvent(env.mc, 'toolactivated', (e: Event & { toolName: string }) => {
        return e.toolName === 'act.after';
      });
      await env.mc.executeTool(after, {});
      await next;
      deepEqual(
        events.map((e) => e.toolName),
        ['act', 'act.after'],
        'dispatched once (the next call’s comes next)',
      );
      const [event] = events as [Event & { toolName: string }];
      ok(event instanceof (env.win as any).ToolActivatedEvent, 'a ToolActivatedEvent');
      equal(event.toolName, 'act', 'toolName');
      equal(event.target, env.mc, 'target');
      ok(!event.bubbles && !event.cancelable, 'not bubbling, not cancelable');
    },
  },
  {
    // WPT executeTool-abort and Chromium: the tool has started when toolactivated fires.
    name: 'executeTool: toolactivated fires once execute has started',
    kind: 'spec',
    async run(env) {
      const order: string[] = [];
      env.mc.addEventListener('toolactivated', () => order.push('toolactivated'));
      const registered = await registerAndGet(
        env,
        tool('first', {
          execute: async () => {
            order.push('execute');
            return 'ok';
          },
        }),
      );
      const activated = nextEvent(env.mc, 'toolactivated');
      await env.mc.executeTool(registered, {});
      await activated;
      deepEqual(order, ['execute', 'toolactivated'], 'order');
    },
  },
  {
    name: 'executeTool: abort order is tool started, toolactivated, caller rejection, target AbortError, toolcancel',
    kind: 'spec',
    async run(env) {
      const order: string[] = [];
      let targetSignal: AbortSignal | undefined;
      env.mc.addEventListener('toolactivated', () => order.push('toolactivated'));
      env.mc.addEventListener('toolcancel', (e: Event & { toolName: string }) => {
        order.push(`toolcancel:${e.toolName}:${e instanceof (env.win as any).ToolCancelEvent}`);
      });
      const registered = await registerAndGet(
        env,
        tool('hang', {
          execute: (_: unknown, options: { signal: AbortSignal }) => {
            targetSignal = options.signal;
            order.push('tool started');
            options.signal.addEventListener('abort', () =>
              order.push(`signal:${(options.signal.reason as DOMException).name}`),
            );
            return new Promise(() => {});
          },
        }),
      );
      const controller = new AbortController();
      const reason = new Error('caller reason');
      const activated = nextEvent(env.mc, 'toolactivated');
      const cancelled = nextEvent(env.mc, 'toolcancel');
      const pending = env.mc.executeTool(registered, {}, { signal: controller.signal });
      await activated;
      controller.abort(reason);
      const error = await rejects(pending, 'aborted call');
      order.push('rejected');
      equal(error, reason, "the caller's own reason");
      // toolcancel is the last of the expected steps.
      await cancelled;
      ok(targetSignal?.aborted, 'target signal aborted');
      ok(targetSignal?.reason !== reason, "the target never sees the caller's reason");
      deepEqual(
        order,
        ['tool started', 'toolactivated', 'rejected', 'signal:AbortError', 'toolcancel:hang:true'],
        'order',
      );
    },
  },
  {
    name: 'executeTool: a pre-aborted signal rejects with its reason within a microtask',
    kind: 'spec',
    async run(env) {
      const registered = await registerAndGet(env, tool('pre'));
      const reason = new Error('already');
      let settled: unknown;
      env.mc
        .executeTool(registered, {}, { signal: AbortSignal.abort(reason) })
        .catch((e: unknown) => {
          settled = e;
        });
      await Promise.resolve();
      await Promise.resolve();
      equal(settled, reason, 'rejected with the reason');
    },
  },
  {
    name: 'executeTool: a late result after abort leaves the promise rejected',
    kind: 'spec',
    async run(env) {
      let finish: (value: unknown) => void = () => {};
      let started: () => void = () => {};
      const running = new Promise<void>((resolve) => (started = resolve));
      const registered = await registerAndGet(
        env,
        tool('late', {
          execute: () =>
            new Promise((resolve) => {
              finish = resolve;
              started();
            }),
        }),
      );
      const controller = new AbortController();
      const pending = env.mc.executeTool(registered, {}, { signal: controller.signal });
      await running;
      controller.abort();
      finish('too late');
      const error = await rejects(pending, 'late result');
      equal(error?.name, 'AbortError', 'default reason');
    },
  },
  {
    name: 'executeTool: concurrent executions get independent signals',
    kind: 'spec',
    async run(env) {
      const signals: AbortSignal[] = [];
      const resolvers: ((value: string) => void)[] = [];
      let bothRunning: () => void = () => {};
      const running = new Promise<void>((resolve) => (bothRunning = resolve));
      const registered = await registerAndGet(
        env,
        tool('twice', {
          execute: (_: unknown, options: { signal: AbortSignal }) =>
            new Promise((resolve) => {
              signals.push(options.signal);
              resolvers.push(resolve);
              if (signals.length === 2) bothRunning();
            }),
        }),
      );
      const first = new AbortController();
      const a = env.mc.executeTool(registered, {}, { signal: first.signal });
      const b = env.mc.executeTool(registered, {});
      await running;
      equal(signals.length, 2, 'both running');
      ok(signals[0] !== signals[1], 'different signals');
      const [one] = signals as [AbortSignal];
      const oneAborted = one.aborted ? Promise.resolve() : nextEvent(one, 'abort');
      first.abort();
      await rejects(a, 'aborted one');
      // The target's signal aborts after the caller's rejection (the abort order case).
      await oneAborted;
      ok(signals[0]?.aborted && !signals[1]?.aborted, 'only the aborted one is aborted');
      resolvers[1]?.('done');
      equal(await b, 'done', 'the other completes');
    },
  },
  {
    name: 'executeTool: unregistering during execution does not cancel it',
    kind: 'spec',
    async run(env) {
      const controller = new AbortController();
      let signal: AbortSignal | undefined;
      await env.mc.registerTool(
        tool('self', {
          execute: async (_: unknown, options: { signal: AbortSignal }) => {
            signal = options.signal;
            const unregistered = nextEvent(env.mc, 'toolchange');
            controller.abort();
            // Still running once the tool is gone.
            await unregistered;
            return { status: 'resolved' };
          },
        }),
        { signal: controller.signal },
      );
      const [registered] = await env.mc.getTools();
      equal(await env.mc.executeTool(registered, {}), '{"status":"resolved"}', 'result');
      ok(signal && !signal.aborted, 'not aborted');
      equal((await env.mc.getTools()).length, 0, 'gone afterwards');
    },
  },
  {
    name: 'interfaces: ModelContext, ToolActivatedEvent and ToolCancelEvent exist; modelContext is [SameObject]',
    kind: 'spec',
    async run(env) {
      const win = env.win as any;
      ok(env.mc instanceof win.ModelContext, 'document.modelContext instanceof ModelContext');
      equal((env.win.document as any).modelContext, env.mc, 'same object');
      const event = new win.ToolActivatedEvent('toolactivated', { toolName: 'x' });
      equal(event.toolName, 'x', 'ToolActivatedEvent.toolName');
      equal(new win.ToolCancelEvent('toolcancel').toolName, '', 'ToolCancelEvent default toolName');
    },
  },
  // ---- the generic layer (toolManager / tools), on top of whichever modelContext -------------
  {
    name: 'generic: an agent-exposed toolManager tool is listed and executable through modelContext',
    kind: 'generic',
    async run(env) {
      await env.toolManager.register(
        {
          name: 'gen.add',
          naturalLanguageProperties: {
            title: 'Add',
            description: 'Adds two numbers.',
            inputSchema: {
              type: 'object',
              properties: { a: { type: 'number' }, b: { type: 'number' } },
              required: ['a', 'b'],
            },
            annotations: { readOnlyHint: true },
          },
          execute: ({ a, b }: { a: number; b: number }) => a + b,
        },
        { signal: env.signal },
      );
      await env.toolManager.register(
        { name: 'gen.hidden', execute: () => 1 },
        { signal: env.signal },
      );
      // register() resolves once modelContext lists the tool (a layering case below): no wait.
      const listed = await env.mc.getTools();
      const add = listed.find((t: { name: string }) => t.name === 'gen.add');
      ok(add, 'gen.add is listed by modelContext');
      ok(
        !listed.some((t: { name: string }) => t.name === 'gen.hidden'),
        'a tool without naturalLanguageProperties is not',
      );
      equal(add.title, 'Add', 'title');
      equal(await env.mc.executeTool(add, { a: 2, b: 3 }), '5', 'executeTool result');
    },
  },
  {
    name: 'generic: callTool validates, executes and reports errors by kind',
    kind: 'generic',
    async run(env) {
      await env.toolManager.register(
        {
          name: 'gen.strict',
          inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          outputSchema: { type: 'integer' },
          execute: ({ n }: { n: number }) =>
            n < 0 ? Promise.reject(new RangeError('negative')) : n === 0 ? 'zero' : n * 2,
        },
        { signal: env.signal },
      );
      equal(await env.tools.callTool('gen.strict', { n: 4 }), 8, 'result');
      const data = await rejectsWith(
        env.tools.callTool('gen.strict', { n: 1.5 }),
        'DataError',
        'bad input',
      );
      deepEqual(
        JSON.parse(data.message),
        { path: '/n', reason: 'must be integer', schemaPath: '#/properties/n/type' },
        'DataError message',
      );
      const thrown = await rejectsWith(
        env.tools.callTool('gen.strict', { n: -1 }),
        'ToolExecutionError',
        'tool throws',
      );
      deepEqual(
        { name: thrown.cause?.name, message: thrown.cause?.message },
        { name: 'RangeError', message: 'negative' },
        'cause',
      );
      await rejectsWith(env.tools.callTool('gen.strict', { n: 0 }), 'OperationError', 'bad output');
      await rejectsWith(env.tools.callTool('gen.missing', {}), 'NotFoundError', 'missing tool');
    },
  },
  {
    name: 'generic: encoding json lifts Date input and lowers a Map result',
    kind: 'generic',
    async run(env) {
      let received: unknown;
      await env.toolManager.register(
        {
          name: 'gen.dates',
          inputSchema: {
            type: 'object',
            properties: { when: { webType: 'Date' } },
            required: ['when'],
          },
          outputSchema: { webType: 'Map', keys: { type: 'string' }, values: { type: 'number' } },
          execute: ({ when }: { when: Date }) => {
            received = when;
            return new Map([['year', when.getUTCFullYear()]]);
          },
        },
        { signal: env.signal },
      );
      const result = await env.tools.callTool(
        'gen.dates',
        { when: '2026-11-30T10:00:00.000Z' },
        { encoding: 'json' },
      );
      ok(received instanceof Date, 'execute received a Date');
      deepEqual(result, { year: 2026 }, 'lowered Map');
      await rejectsWith(
        env.tools.callTool('gen.dates', { when: 'yesterday' }, { encoding: 'json' }),
        'DataError',
        'not a date-time',
      );
      const structured = await env.tools.callTool('gen.dates', { when: new Date(0) });
      ok(structured instanceof Map, 'structured result stays a Map');
    },
  },
  // ---- layering on native ----------------------------------------------------------------------
  {
    name: 'layering: natively registered tools appear in tools.getTools() and are callable',
    kind: 'layering',
    async run(env) {
      // tools.getTools() asks modelContext when called: listed once registerTool resolves.
      await env.mc.registerTool(tool('native.echo'), { signal: env.signal });
      const listed = await env.tools.getTools();
      const handle = listed.find((t: { name: string }) => t.name === 'native.echo');
      ok(handle, 'listed by tools.getTools()');
      deepEqual(
        await env.tools.callTool(handle, { hello: 'world' }),
        { hello: 'world' },
        'called through modelContext',
      );
    },
  },
  {
    // Progress is the generic layer's: the tools the polyfill runs report to onProgress; a
    // modelContext tool (the browser's own, where it has one) has the spec's {signal} only.
    name: 'layering: onProgress hears a toolManager tool; a modelContext tool reports none',
    kind: 'layering',
    async run(env) {
      await env.toolManager.register(
        {
          name: 'progress.generic',
          naturalLanguageProperties: { description: 'Reports its progress.' },
          execute: async (_input: unknown, context: any) => {
            context.reportProgress(1, 2, 'half');
            await Promise.resolve();
            context.reportProgress(2, 2);
            return 'generic';
          },
        },
        { signal: env.signal },
      );
      const optionKeys: string[][] = [];
      await env.mc.registerTool(
        tool('progress.spec', {
          execute: async (_input: unknown, options: any) => {
            optionKeys.push(Object.keys(options));
            options.reportProgress?.(1, 2, 'half');
            // An object: Chromium hands a string result back unquoted, which is not JSON.
            return { from: 'spec' };
          },
        }),
        { signal: env.signal },
      );
      const listed = await env.tools.getTools();
      const generic = listed.find((t: { name: string }) => t.name === 'progress.generic');
      const spec = listed.find((t: { name: string }) => t.name === 'progress.spec');
      ok(generic && spec, 'both listed by tools.getTools()');
      const heard: unknown[] = [];
      const onProgress = (report: unknown) => heard.push(report);
      equal(await env.tools.callTool(generic, {}, { onProgress }), 'generic', 'generic answer');
      deepEqual(
        heard,
        [
          { progress: 1, total: 2, message: 'half' },
          { progress: 2, total: 2 },
        ],
        'the generic tool reported',
      );
      heard.length = 0;
      deepEqual(
        await env.tools.callTool(spec, {}, { onProgress }),
        { from: 'spec' },
        'spec answer',
      );
      deepEqual(heard, [], 'the modelContext tool reported nothing');
      ok(!optionKeys[0]?.includes('reportProgress'), 'its options have no reportProgress');
    },
  },
  {
    name: 'layering: tools.callTool reaches a modelContext tool by name, as getTools() lists it',
    kind: 'layering',
    async run(env) {
      await env.mc.registerTool(tool('native.byname'), { signal: env.signal });
      const handle = (await env.tools.getTools()).find(
        (t: { name: string }) => t.name === 'native.byname',
      );
      ok(handle, 'listed by tools.getTools()');
      deepEqual(await env.tools.callTool(handle, { by: 'handle' }), { by: 'handle' }, 'by handle');
      deepEqual(
        await env.tools.callTool('native.byname', { by: 'name' }),
        { by: 'name' },
        'by name',
      );
      await rejectsWith(env.tools.callTool('native.missing', {}), 'NotFoundError', 'missing tool');
    },
  },
  {
    // issue 16 item 5: on a native browser the mirror is in place before register() resolves.
    name: 'layering: await register() resolves once modelContext.getTools() lists the tool',
    kind: 'layering',
    async run(env) {
      const names = ['listed.plain', 'listed.schema', 'listed.webtype'];
      const schemas = [
        undefined,
        { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        // A webType schema is expanded (the lowering chunk loads) before the mirror goes in.
        { type: 'object', properties: { at: { webType: 'Date' } } },
      ];
      for (let i = 0; i < names.length; i++) {
        await env.toolManager.register(
          {
            name: names[i] as string,
            naturalLanguageProperties: { description: 'Listed at once.' },
            ...(schemas[i] ? { inputSchema: schemas[i] } : {}),
            execute: () => 'listed',
          },
          { signal: env.signal },
        );
        const listed = (await env.mc.getTools()).map((t: { name: string }) => t.name);
        ok(listed.includes(names[i]), `${names[i]} listed as register() resolves`);
      }
    },
  },
  {
    name: 'layering: unregistering a mirrored tool removes it from modelContext',
    kind: 'layering',
    async run(env) {
      const controller = new AbortController();
      await env.toolManager.register(
        {
          name: 'mirror.me',
          naturalLanguageProperties: { description: 'Mirrored.' },
          execute: () => 'mirrored',
        },
        { signal: controller.signal },
      );
      // register() resolves once modelContext lists the tool (the case above).
      ok(
        (await env.mc.getTools()).some((t: { name: string }) => t.name === 'mirror.me'),
        'listed natively',
      );
      const removed = nextEvent(env.mc, 'toolchange');
      controller.abort();
      await removed;
      ok(
        !(await env.mc.getTools()).some((t: { name: string }) => t.name === 'mirror.me'),
        'gone natively',
      );
    },
  },
  ...DECLARATIVE_CASES,
];

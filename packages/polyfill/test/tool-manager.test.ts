import { describe, expect, it, vi } from 'vitest';
import { freshInstall, rejection } from './helpers.js';

const echo = { name: 'echo', execute: (input: unknown) => input };

describe('toolManager.register', () => {
  it('registers, lists sorted, and unregisters', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({ ...echo, name: 'b.tool' });
    await toolManager.register({ ...echo, name: 'a.tool' });
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['a.tool', 'b.tool']);
    await toolManager.unregister('a.tool');
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['b.tool']);
    expect((await rejection(toolManager.unregister('a.tool'))).name).toBe('NotFoundError');
  });

  it('refuses bad names, duplicates and agent tools without a description: InvalidStateError', async () => {
    const { toolManager } = freshInstall();
    for (const name of ['', 'a b', 'x'.repeat(129), 'ümlaut', 'semi;colon']) {
      expect((await rejection(toolManager.register({ ...echo, name }))).name, name).toBe(
        'InvalidStateError',
      );
    }
    await toolManager.register({ ...echo, name: 'x'.repeat(128) });
    await toolManager.register({ ...echo, name: 'A-z_0.9' });
    expect((await rejection(toolManager.register({ ...echo, name: 'A-z_0.9' }))).name).toBe(
      'InvalidStateError',
    );
    const noDescription = {
      ...echo,
      name: 'agent',
      naturalLanguageProperties: { description: '' },
    };
    expect((await rejection(toolManager.register(noDescription))).name).toBe('InvalidStateError');
  });

  it("refuses the specification's top-level description with a TypeError naming naturalLanguageProperties", async () => {
    const { toolManager, tools } = freshInstall();
    // The honest shape: the description in naturalLanguageProperties shows the tool to agents.
    await toolManager.register({
      ...echo,
      name: 'cart.add',
      naturalLanguageProperties: { description: 'Adds a product to the cart.' },
    });
    expect((await tools.getTools({ agentOnly: true })).map((tool) => tool.name)).toEqual([
      'cart.add',
    ]);
    // What people who know registerTool() write first: never a tool agents silently miss.
    const cases: Record<string, unknown>[] = [
      { description: 'Adds a product to the cart.' },
      // Beside naturalLanguageProperties too: which one agents read would be a guess.
      {
        description: 'Adds a product to the cart.',
        naturalLanguageProperties: { description: 'Adds a product to the cart.' },
      },
      // Present but undefined (a spread of an optional field) is still the wrong place.
      { description: undefined, naturalLanguageProperties: { description: 'Adds.' } },
    ];
    for (const extra of cases) {
      const error = await rejection(
        toolManager.register({ ...echo, name: 'spec.shape', ...extra } as never),
      );
      expect(error.name).toBe('TypeError');
      expect(error.message).toBe(
        'Tool "spec.shape": description goes in naturalLanguageProperties.',
      );
    }
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['cart.add']);
  });

  it('refuses untrustworthy exposedTo entries with SecurityError and accepts origins and *', async () => {
    const { toolManager } = freshInstall();
    for (const origin of [
      'http://example.com',
      'not a url',
      'ftp://example.com',
      'javascript:alert(1)',
    ]) {
      const result = await rejection(
        toolManager.register({ ...echo, name: 'x', exposedTo: [origin] }),
      );
      expect(result.name, origin).toBe('SecurityError');
    }
    await toolManager.register({
      ...echo,
      name: 'ok',
      exposedTo: ['https://b.example/path', 'http://localhost:8080', '*'],
    });
  });

  it('refuses invalid or unserializable schemas with a TypeError naming the path', async () => {
    const { toolManager } = freshInstall();
    const cases: [unknown, RegExp][] = [
      [
        { type: 'object', properties: { a: { type: 'strin' } } },
        /inputSchema\/properties\/a\/type/,
      ],
      [{ type: 'object', required: 'a' }, /inputSchema\/required/],
      [{ type: 'string', pattern: '([' }, /inputSchema\/pattern/],
      [
        { type: 'object', properties: { d: { default: () => 1 } } },
        /inputSchema\/properties\/d\/default/,
      ],
      [{ type: 'number', maximum: Number.NaN }, /inputSchema\/maximum/],
      ['not an object', /inputSchema/],
      // Paths are built only on failure (issue 16 item 5): keys escaped, indexes kept.
      [
        { type: 'object', properties: { 'a/b~c': { type: 'nope' } } },
        /at inputSchema\/properties\/a~1b~0c\/type:/,
      ],
      [{ anyOf: [{ type: 'string' }, { type: 'nope' }] }, /at inputSchema\/anyOf\/1\/type:/],
      [{ enum: ['a', [true, Number.POSITIVE_INFINITY]] }, /at inputSchema\/enum\/1\/1:/],
    ];
    for (const [schema, path] of cases) {
      const result = await rejection(
        toolManager.register({ ...echo, name: 's', inputSchema: schema as never }),
      );
      expect(result.name).toBe('TypeError');
      expect(result.message).toMatch(path);
    }
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(
      (await rejection(toolManager.register({ ...echo, name: 's', inputSchema: cyclic }))).message,
    ).toMatch(/cycle/);
  });

  it('accepts schemas at the top level or in naturalLanguageProperties, not two different ones', async () => {
    const { toolManager, tools } = freshInstall();
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    await toolManager.register({
      ...echo,
      name: 'nested',
      naturalLanguageProperties: { description: 'd', inputSchema: schema },
    });
    await toolManager.register({
      ...echo,
      name: 'both',
      inputSchema: schema,
      naturalLanguageProperties: { description: 'd', inputSchema: { ...schema } },
    });
    const differ = {
      ...echo,
      name: 'differ',
      inputSchema: schema,
      naturalLanguageProperties: { description: 'd', inputSchema: { type: 'object' } },
    };
    expect((await rejection(toolManager.register(differ))).name).toBe('TypeError');
    const [both, nested] = await tools.getTools();
    expect(nested?.inputSchema).toEqual(schema);
    expect(both?.inputSchema).toEqual(schema);
  });

  it('a pre-aborted signal rejects with its reason; aborting later unregisters', async () => {
    const { toolManager, tools } = freshInstall();
    const reason = new Error('never mind');
    expect(
      await rejection(toolManager.register(echo, { signal: AbortSignal.abort(reason) })),
    ).toMatchObject({ error: reason });
    const controller = new AbortController();
    await toolManager.register(echo, { signal: controller.signal });
    expect(await tools.getTools()).toHaveLength(1);
    controller.abort();
    expect(await tools.getTools()).toHaveLength(0);
    // The name is free again, and aborting the old signal twice does not touch the new one.
    await toolManager.register(echo);
    controller.abort();
    expect(await tools.getTools()).toHaveLength(1);
  });

  it('unregister() by name drops the signal listener; only toolManager tools are its to remove', async () => {
    const { toolManager, tools, modelContext } = freshInstall();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    await toolManager.register(echo, { signal: controller.signal });
    await toolManager.unregister('echo');
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    await toolManager.register(echo); // the name again, no signal
    controller.abort();
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['echo']);
    await (modelContext as never as { registerTool(tool: object): Promise<void> }).registerTool({
      name: 'spec.tool',
      description: 'd',
      execute: () => 'x',
    });
    expect((await rejection(toolManager.unregister('spec.tool'))).name).toBe('NotFoundError');
  });

  it('derives policy from annotations unless given', async () => {
    const { toolManager, registry } = freshInstall();
    await toolManager.register({
      ...echo,
      name: 'r',
      naturalLanguageProperties: { description: 'd', annotations: { readOnlyHint: true } },
    });
    await toolManager.register({
      ...echo,
      name: 'c',
      naturalLanguageProperties: {
        description: 'd',
        annotations: { destructiveHint: true, readOnlyHint: true },
      },
    });
    await toolManager.register({ ...echo, name: 'w' });
    await toolManager.register({ ...echo, name: 'x', policy: 'read' });
    expect(['r', 'c', 'w', 'x'].map((name) => registry.get(name)?.policy)).toEqual([
      'read',
      'critical',
      'write',
      'read',
    ]);
    expect(
      (await rejection(toolManager.register({ ...echo, name: 'bad', policy: 'admin' as never })))
        .name,
    ).toBe('TypeError');
  });

  it('register() settles without a macrotask, and change events coalesce', async () => {
    const { toolManager, tools, modelContext } = freshInstall();
    const changes = vi.fn();
    tools.addEventListener('toolchange', changes);
    let timerRan = false;
    // A zero-delay timer is the point: 200 registrations must not need one macrotask.
    setTimeout(() => {
      timerRan = true;
    }, 0);
    for (let i = 0; i < 200; i++) await toolManager.register({ ...echo, name: `t${i}` });
    expect(timerRan).toBe(false);
    const before = changes.mock.calls.length;
    await Promise.all([
      toolManager.register({ ...echo, name: 'x1' }),
      toolManager.register({ ...echo, name: 'x2' }),
    ]);
    // A barrier: getTools() settles in a queued task, after every change told before it.
    await modelContext.getTools();
    expect(changes.mock.calls.length - before).toBe(1);
  });

  it('agent registrations in a loop queue one modelContext toolchange until it has fired', async () => {
    const { toolManager, modelContext } = freshInstall();
    const changes = vi.fn();
    modelContext.addEventListener('toolchange', changes);
    const agent = { ...echo, naturalLanguageProperties: { description: 'd' } };
    for (let i = 0; i < 100; i++) await toolManager.register({ ...agent, name: `t${i}` });
    expect(changes).not.toHaveBeenCalled(); // a task, not a microtask
    // A barrier: getTools() settles in a task queued behind every toolchange queued so far
    // (one queue of tasks, in order).
    await modelContext.getTools();
    expect(changes).toHaveBeenCalledTimes(1);
    // Once it has fired, the next change queues its own.
    await toolManager.register({ ...agent, name: 'later' });
    await modelContext.getTools();
    expect(changes).toHaveBeenCalledTimes(2);
  });
});

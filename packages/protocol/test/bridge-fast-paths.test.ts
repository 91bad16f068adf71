import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { AvailabilityInput, BridgeTool, GuardPreset } from '../src/index.js';
import { createToolBridge, toolFailure } from '../src/index.js';
import { exchange, request, tool } from './helpers.js';

// tool.call skips awaits it does not need (a built catalog, a synchronous availability check, a
// compiled validator); these pin down that it still sees every change and every outcome.
describe('tool.call fast paths', () => {
  it('a call after invalidate() sees the new tools and the new guard', async () => {
    const tools: BridgeTool[] = [tool('demo.echo', (args) => args)];
    let guard: GuardPreset = 'read-only';
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => tools,
      guard: () => guard,
    });
    const call = async (toolId: string) =>
      (await exchange(bridge, request('tool.call', { toolId, arguments: { a: 1 } }))).payload;
    expect((await call('demo.echo')).result).toEqual({ a: 1 });
    expect((await call('demo.echo')).result).toEqual({ a: 1 });

    tools.push(tool('demo.write', () => ({ wrote: true }), { policy: 'write' }));
    expect((await call('demo.write')).code).toBe('tool_not_found');
    bridge.invalidate();
    expect((await call('demo.write')).code).toBe('tool_execution_denied');
    guard = 'read-write';
    bridge.invalidate();
    expect((await call('demo.write')).result).toEqual({ wrote: true });

    tools.splice(0, 1);
    bridge.invalidate();
    expect((await call('demo.echo')).code).toBe('tool_not_found');
  });

  it('availability: synchronous, asynchronous and throwing checks all count', async () => {
    let available: AvailabilityInput = true;
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [
        tool(
          'a.sync',
          () => ({}),
          {},
          () => available,
        ),
        tool(
          'a.async',
          () => ({}),
          {},
          async () => ({ available: false, code: 'needs_login', reason: 'Sign in first.' }),
        ),
        tool(
          'a.throws',
          () => ({}),
          {},
          () => {
            throw new Error('cannot tell');
          },
        ),
      ],
    });
    const call = async (toolId: string) =>
      (await exchange(bridge, request('tool.call', { toolId }))).payload;
    expect((await call('a.sync')).success).toBe(true);
    available = { available: false, code: 'busy', reason: 'Busy.', retryable: true };
    expect(await call('a.sync')).toMatchObject({ code: 'busy', retryable: true });
    expect(await call('a.async')).toMatchObject({ code: 'needs_login', message: 'Sign in first.' });
    expect((await call('a.throws')).code).toBe('tool_unavailable');
  });

  it('tools that throw at once, reject later, or report failure keep their codes', async () => {
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [
        tool('t.sync', () => {
          throw new Error('at once');
        }),
        tool('t.async', async () => {
          throw new Error('later');
        }),
        tool('t.failure', () => toolFailure({ message: 'no', code: 'my_code' })),
      ],
    });
    const call = async (toolId: string) =>
      (await exchange(bridge, request('tool.call', { toolId }))).payload;
    expect(await call('t.sync')).toMatchObject({ code: 'tool_execution_exception' });
    expect(await call('t.async')).toMatchObject({ code: 'tool_execution_exception' });
    expect(await call('t.failure')).toMatchObject({ code: 'my_code', message: 'no' });
  });
});

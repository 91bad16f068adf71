// @vitest-environment happy-dom
import type { Installation, ToolDefinition, ToolExecuteContext } from '@toolwire/polyfill';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import {
  mountTool,
  type Probe,
  rejection,
  removeGlobals,
  scriptTagPolyfill,
  ToolProbe,
} from './helpers.js';

const counter = (execute: ToolDefinition['execute'] = () => 'ok'): ToolDefinition => ({
  name: 'counter.add',
  naturalLanguageProperties: { description: 'Adds to the counter.' },
  inputSchema: { type: 'object', properties: { by: { type: 'integer' } } },
  execute,
});

let polyfill: Installation;
let errors: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  polyfill = scriptTagPolyfill();
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  removeGlobals();
  errors.mockRestore();
});

const names = async () => (await polyfill.tools.getTools()).map((tool) => tool.name);

describe('useTool: mount and unmount', () => {
  it('registers on mount, reports registered, and unregisters on unmount', async () => {
    const view = mountTool();
    await view.render(counter());
    expect(view.probe.result).toEqual({
      status: 'registered',
      name: 'counter.add',
      error: undefined,
    });
    expect(await names()).toEqual(['counter.add']);
    const [tool] = await polyfill.tools.getTools({ agentOnly: true });
    expect(tool?.description).toBe('Adds to the counter.');
    expect(await polyfill.tools.callTool('counter.add', { by: 1 })).toBe('ok');
    await view.unmount();
    expect(await names()).toEqual([]);
    expect(errors).not.toHaveBeenCalled();
  });

  it('reports pending on the first render, before the effect ran', () => {
    // Server rendering runs no effect: nothing registered, nothing logged, no window needed.
    removeGlobals();
    const probe: Probe = { result: undefined };
    const element = createElement(ToolProbe, { definition: counter(), probe });
    expect(renderToString(element)).toBe('');
    expect(probe.result).toEqual({ status: 'pending', name: 'counter.add', error: undefined });
    expect(errors).not.toHaveBeenCalled();
  });
});

/**
 * A toolManager whose register() stores the tool at once but settles only when the test
 * releases it, and only then looks at the signal (as one answering across frames might). A hook
 * that unregisters out of turn leaves a duplicate or nothing at all. It starts held; `hold()`
 * holds the registrations from then on again.
 */
function slowManager(real: Installation['toolManager']) {
  let gate = latch();
  const settled: ToolDefinition[] = [];
  return {
    /** The tools whose register() has settled, in that order. */
    settled,
    hold(): void {
      gate = latch();
    },
    release(): void {
      gate.open();
    },
    register: (tool: ToolDefinition, options?: { signal?: AbortSignal }) => {
      const stored = real.register(tool);
      return gate.wait.then(async () => {
        await stored;
        const signal = options?.signal;
        const drop = () => void real.unregister(tool.name);
        if (signal?.aborted) drop();
        else signal?.addEventListener('abort', drop, { once: true });
        settled.push(tool);
      });
    },
  };
}

const described = (tools: readonly ToolDefinition[], description: string) =>
  tools.some((tool) => tool.naturalLanguageProperties?.description === description);

describe('useTool: StrictMode', () => {
  it('mount, unmount, mount ends with one registration and no error', async () => {
    const register = vi.spyOn(polyfill.toolManager, 'register');
    const view = mountTool(true);
    await view.render(counter());
    expect(view.probe.result?.status).toBe('registered');
    expect(await names()).toEqual(['counter.add']);
    expect(errors).not.toHaveBeenCalled();
    // The registration StrictMode's first mount queued was cancelled before its turn.
    expect(register).toHaveBeenCalledTimes(1);
    expect(register.mock.calls[0]?.[1]?.signal?.aborted).toBe(false);
    await view.unmount();
    expect(await names()).toEqual([]);
  });

  it('holds when register() settles late (an asynchronous toolManager)', async () => {
    const slow = slowManager(polyfill.toolManager);
    (globalThis as { toolManager?: unknown }).toolManager = slow;
    const view = mountTool(true);
    await view.render(counter());
    // Stored but not settled: the hook still reports pending.
    expect(view.probe.result?.status).toBe('pending');
    expect(await names()).toEqual(['counter.add']);
    await view.inAct(async () => {
      slow.release();
      await until(() => slow.settled.length === 1, 'the registration settled');
    });
    expect(view.probe.result?.status).toBe('registered');
    expect(await names()).toEqual(['counter.add']);
    // A change of data while the old registration is still settling: still exactly one.
    slow.hold();
    await view.render({ ...counter(), naturalLanguageProperties: { description: 'Adds more.' } });
    await view.render({ ...counter(), naturalLanguageProperties: { description: 'Adds most.' } });
    expect(view.probe.result?.status).toBe('pending');
    await view.inAct(async () => {
      slow.release();
      await until(() => described(slow.settled, 'Adds most.'), 'the last registration settled');
    });
    expect(view.probe.result?.status).toBe('registered');
    const listed = await polyfill.tools.getTools();
    expect(listed.map((tool) => [tool.name, tool.description])).toEqual([
      ['counter.add', 'Adds most.'],
    ]);
    expect(errors).not.toHaveBeenCalled();
    await view.unmount();
    await until(async () => (await names()).length === 0, 'the tool was removed');
  });
});

describe('useTool: the latest execute', () => {
  it('calls the latest render’s execute without registering again', async () => {
    const register = vi.spyOn(polyfill.toolManager, 'register');
    const view = mountTool();
    await view.render(counter(() => 'first'));
    expect(await polyfill.tools.callTool('counter.add', {})).toBe('first');
    // A new closure and a new (equal) definition object on every render, as inline code makes.
    await view.render(counter(() => 'second'));
    expect(await polyfill.tools.callTool('counter.add', {})).toBe('second');
    expect(register).toHaveBeenCalledTimes(1);
    await view.unmount();
  });

  it('passes the input and a context with the caller and a signal', async () => {
    const seen: { input?: unknown; origin?: string; signal?: AbortSignal } = {};
    const view = mountTool();
    await view.render(
      counter((input: unknown, context: ToolExecuteContext) => {
        seen.input = input;
        seen.origin = context.caller.origin;
        seen.signal = context.signal;
        return 1;
      }),
    );
    await polyfill.tools.callTool('counter.add', { by: 2 });
    expect(seen.input).toEqual({ by: 2 });
    expect(seen.origin).toBe('https://app.example');
    expect(seen.signal?.aborted).toBe(false);
    await view.unmount();
  });
});

describe('useTool: progress', () => {
  it("passes the caller's reportProgress on to execute", async () => {
    const view = mountTool();
    await view.render(
      counter(async (_input: unknown, context: ToolExecuteContext) => {
        context.reportProgress(1, 2, 'half');
        await Promise.resolve();
        context.reportProgress(2, 2);
        return 'done';
      }),
    );
    const seen: unknown[] = [];
    expect(
      await polyfill.tools.callTool('counter.add', {}, { onProgress: (r) => seen.push(r) }),
    ).toBe('done');
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
    await view.unmount();
  });
});

describe('useTool: unmount aborts calls in flight', () => {
  it('rejects the caller with AbortError and aborts the signal execute() got', async () => {
    let signal: AbortSignal | undefined;
    const view = mountTool();
    await view.render(
      counter((_input: unknown, context: ToolExecuteContext) => {
        signal = context.signal;
        return new Promise(() => {}); // never settles by itself
      }),
    );
    const call = polyfill.tools.callTool('counter.add', {});
    await until(() => signal, 'execute() ran');
    expect(signal?.aborted).toBe(false);
    const outcome = rejection(call);
    await view.unmount();
    const error = await outcome;
    expect(error.name).toBe('AbortError');
    expect(error.message).toContain('counter.add');
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error | undefined)?.name).toBe('AbortError');
    expect(await names()).toEqual([]);
  });

  it('refuses a call that reaches the tool after unmount, before its removal', async () => {
    // The slow manager keeps the tool listed until the test releases its register(); the hook
    // already let go of it, so a call in that window fails as a call in flight would.
    const slow = slowManager(polyfill.toolManager);
    (globalThis as { toolManager?: unknown }).toolManager = slow;
    const execute = vi.fn(() => 'ran');
    const view = mountTool();
    await view.render(counter(execute));
    await view.unmount();
    expect(await names()).toEqual(['counter.add']);
    expect((await rejection(polyfill.tools.callTool('counter.add', {}))).name).toBe('AbortError');
    expect(execute).not.toHaveBeenCalled();
    // Only now the window closes: the registration settles and its removal runs.
    slow.release();
    await until(async () => (await names()).length === 0, 'the tool was removed');
  });

  it('still passes on the caller’s own abort to execute()', async () => {
    let signal: AbortSignal | undefined;
    const view = mountTool();
    await view.render(
      counter((_input: unknown, context: ToolExecuteContext) => {
        signal = context.signal;
        return new Promise(() => {});
      }),
    );
    const caller = new AbortController();
    const call = polyfill.tools.callTool('counter.add', {}, { signal: caller.signal });
    await until(() => signal, 'execute() ran');
    caller.abort();
    expect((await rejection(call)).name).toBe('AbortError');
    await vi.waitFor(() => expect(signal?.aborted).toBe(true));
    await view.unmount();
  });

  it('leaves a call running across a re-registration (only unmount aborts)', async () => {
    const running = latch<(value: string) => void>();
    const view = mountTool();
    await view.render(counter(() => new Promise<string>((resolve) => running.open(resolve))));
    const call = polyfill.tools.callTool('counter.add', {});
    const finish = await running.wait;
    await view.render({ ...counter(), naturalLanguageProperties: { description: 'Changed.' } });
    finish('done');
    expect(await call).toBe('done');
    await view.unmount();
  });
});

describe('useTool: re-registers when the definition’s data changes', () => {
  it('a new description or schema re-registers; equal data written anew does not', async () => {
    const register = vi.spyOn(polyfill.toolManager, 'register');
    const view = mountTool();
    await view.render(counter());
    // Equal data, keys in another order, new objects: the same tool.
    await view.render({
      execute: () => 'ok',
      inputSchema: { properties: { by: { type: 'integer' } }, type: 'object' },
      naturalLanguageProperties: { description: 'Adds to the counter.' },
      name: 'counter.add',
    });
    expect(register).toHaveBeenCalledTimes(1);
    await view.render({ ...counter(), naturalLanguageProperties: { description: 'New words.' } });
    expect(register).toHaveBeenCalledTimes(2);
    expect((await polyfill.tools.getTools())[0]?.description).toBe('New words.');
    await view.render({ ...counter(), inputSchema: { type: 'object' } });
    expect(register).toHaveBeenCalledTimes(3);
    expect((await polyfill.tools.getTools())[0]?.inputSchema).toEqual({ type: 'object' });
    expect(await names()).toEqual(['counter.add']);
    expect(errors).not.toHaveBeenCalled();
    await view.unmount();
  });

  it('a new name replaces the old tool', async () => {
    const view = mountTool();
    await view.render(counter());
    await view.render({ ...counter(), name: 'counter.increment' });
    expect(view.probe.result).toMatchObject({ status: 'registered', name: 'counter.increment' });
    expect(await names()).toEqual(['counter.increment']);
    await view.unmount();
    expect(await names()).toEqual([]);
  });
});

describe('useTool: failures are returned, not thrown', () => {
  it('without window.toolManager: status error, a TypeError naming the fix', async () => {
    removeGlobals();
    const view = mountTool();
    await view.render(counter());
    expect(view.probe.result?.status).toBe('error');
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('window.toolManager is missing'));
    expect(view.probe.result?.error).toBeInstanceOf(TypeError);
    expect(view.probe.result?.error?.message).toMatch(
      /window\.toolManager is missing.*install\(\)/,
    );
    await view.unmount();
  });

  it('a register() that throws instead of rejecting: status error all the same', async () => {
    (globalThis as { toolManager?: unknown }).toolManager = {
      register: () => {
        throw new RangeError('no room');
      },
    };
    const view = mountTool();
    await view.render(counter());
    expect(view.probe.result?.status).toBe('error');
    expect(view.probe.result?.error).toBeInstanceOf(RangeError);
    await view.unmount();
  });

  it('a refused registration (a duplicate name): status error with the DOMException', async () => {
    await polyfill.toolManager.register({ name: 'counter.add', execute: () => 'theirs' });
    const view = mountTool();
    await view.render(counter());
    expect(view.probe.result?.status).toBe('error');
    expect(view.probe.result?.error?.name).toBe('InvalidStateError');
    expect(errors).toHaveBeenCalledWith(
      expect.stringContaining('could not register "counter.add"'),
    );
    await view.unmount();
    // The other registration is not the hook's to remove.
    expect(await polyfill.tools.callTool('counter.add', {})).toBe('theirs');
  });
});

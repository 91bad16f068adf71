/**
 * What an in-page call skips when nobody would see it (docs/performance.md "In the page"): no
 * `toolactivated` event object for a target nobody has listened to, no AbortController until a
 * tool reads its signal, and no URL parsing of the document's own origin. Each case first shows
 * the listened-to path works, so that none passes because nothing ran.
 */
import { describe, expect, it, vi } from 'vitest';
import { ToolActivatedEvent } from '../src/events.js';
import type { ModelContext } from '../src/model-context.js';
import { freshInstall, rejection } from './helpers.js';

type Registered = Parameters<ModelContext['executeTool']>[0];

async function specTool(mc: ModelContext, name: string, execute: (...args: any[]) => unknown) {
  await mc.registerTool({ name, description: `The ${name} tool.`, execute });
  const listed = (await mc.getTools()).find((tool) => tool.name === name);
  if (!listed) throw new Error(`${name} is not listed`);
  return listed as Registered;
}

describe('toolactivated is built only for a target someone listens to', () => {
  it('a listener added after calls hears the next call; before it, none was built', async () => {
    const { modelContext } = freshInstall();
    const mc = modelContext as ModelContext;
    const echo = await specTool(mc, 'echo', (input: unknown) => input);
    const dispatch = vi.spyOn(mc, 'dispatchEvent');
    expect(await mc.executeTool(echo, { a: 1 })).toBe('{"a":1}');
    expect(dispatch.mock.calls.filter(([event]) => event.type === 'toolactivated')).toEqual([]);

    const heard: string[] = [];
    mc.addEventListener('toolactivated', (event) => {
      heard.push(
        `${(event as ToolActivatedEvent).toolName}:${event instanceof ToolActivatedEvent}`,
      );
    });
    expect(await mc.executeTool(echo, { a: 2 })).toBe('{"a":2}');
    expect(heard).toEqual(['echo:true']);
  });

  it('an ontoolactivated handler alone is a listener', async () => {
    const { modelContext } = freshInstall();
    const mc = modelContext as ModelContext;
    const echo = await specTool(mc, 'echo', (input: unknown) => input);
    const heard: string[] = [];
    mc.ontoolactivated = (event) => heard.push((event as ToolActivatedEvent).toolName);
    expect(mc.ontoolactivated).toBeTypeOf('function');
    await mc.executeTool(echo, {});
    expect(heard).toEqual(['echo']);
    mc.ontoolactivated = null;
    expect(mc.ontoolactivated).toBe(null);
    await mc.executeTool(echo, {});
    expect(heard).toEqual(['echo']);
  });

  it('toolManager: a listener on it hears tools.callTool; an unheard one builds nothing', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({ name: 'echo', execute: (input: unknown) => input });
    const dispatch = vi.spyOn(toolManager, 'dispatchEvent');
    expect(await tools.callTool('echo', { b: 1 })).toEqual({ b: 1 });
    expect(dispatch).not.toHaveBeenCalled();
    const heard: string[] = [];
    toolManager.addEventListener('toolactivated', (event) =>
      heard.push((event as ToolActivatedEvent).toolName),
    );
    expect(await tools.callTool('echo', { b: 2 })).toEqual({ b: 2 });
    expect(heard).toEqual(['echo']);
  });
});

describe('executeTool without the per-call work', () => {
  it("the tool's signal is made when read, and aborts as before", async () => {
    const { modelContext } = freshInstall();
    const mc = modelContext as ModelContext;
    const made = vi.spyOn(globalThis, 'AbortController');
    const quiet = await specTool(mc, 'quiet', () => 'done');
    expect(await mc.executeTool(quiet, {})).toBe('done');
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();

    let seen: AbortSignal | undefined;
    let optionKeys: string[] = [];
    const hang = await specTool(mc, 'hang', (_input: unknown, options: { signal: AbortSignal }) => {
      optionKeys = Object.keys(options);
      seen = options.signal;
      return new Promise(() => {});
    });
    const caller = new AbortController();
    const call = mc.executeTool(hang, {}, { signal: caller.signal });
    expect(optionKeys).toEqual(['signal']);
    expect(seen?.aborted).toBe(false);
    caller.abort(new Error('stop'));
    expect((await rejection(call)).message).toBe('stop');
    await vi.waitFor(() => expect(seen?.aborted).toBe(true));
    expect(((seen as AbortSignal).reason as DOMException).name).toBe('AbortError');
  });

  it("the document's own origin is not parsed; another origin is, and a bad one still throws", async () => {
    const { modelContext } = freshInstall('https://app.example/');
    const mc = modelContext as ModelContext;
    const echo = await specTool(mc, 'echo', (input: unknown) => input);
    const parse = vi.spyOn(globalThis, 'URL');
    expect(await mc.executeTool(echo, { c: 1 })).toBe('{"c":1}');
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    // The same origin written another way is parsed, and names this document's tool.
    expect(await mc.executeTool({ ...echo, origin: 'HTTPS://APP.EXAMPLE:443/' }, { c: 2 })).toBe(
      '{"c":2}',
    );
    expect((await rejection(mc.executeTool({ ...echo, origin: 'not a url' }, {}))).name).toBe(
      'NotSupportedError',
    );
    expect((await rejection(mc.executeTool({ ...echo, origin: 'null' }, {}))).name).toBe(
      'NotSupportedError',
    );
  });
});

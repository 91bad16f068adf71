import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../src/index.js';
import { install } from '../src/index.js';
import { wireInfo } from '../src/wire/index.js';
import { freshInstall } from './helpers.js';

/**
 * The annotations -> policy rule (docs/browser-api.md "Registering"): destructiveHint -> critical,
 * readOnlyHint -> read, else write; both hints -> critical. One rule for every layer, read
 * where the endpoint reads it: wireInfo.
 */
const policies = async (tools: Parameters<typeof wireInfo>[0] & { getTools(): Promise<Tool[]> }) =>
  Object.fromEntries(
    (await tools.getTools()).map((tool) => [tool.name, wireInfo(tools, tool)?.policy]),
  );

describe('the annotations -> policy rule, in every layer', () => {
  it('toolManager registrations', async () => {
    const { toolManager, tools } = freshInstall();
    const execute = () => 1;
    const hinted = (annotations: object) => ({
      naturalLanguageProperties: { description: 'd', annotations },
      execute,
    });
    await toolManager.register({ name: 'none', execute });
    await toolManager.register({ name: 'read', ...hinted({ readOnlyHint: true }) });
    await toolManager.register({ name: 'destroy', ...hinted({ destructiveHint: true }) });
    await toolManager.register({
      name: 'both',
      ...hinted({ readOnlyHint: true, destructiveHint: true }),
    });
    await toolManager.register({
      name: 'declared',
      policy: 'read',
      ...hinted({ destructiveHint: true }),
    });
    expect(await policies(tools)).toEqual({
      none: 'write',
      read: 'read',
      destroy: 'critical',
      both: 'critical',
      declared: 'read',
    });
    // Wire metadata is read where the endpoint reads it, not from `window.tools`.
    expect('wireInfo' in tools).toBe(false);
  });

  it('document.modelContext registrations (the spec has no destructiveHint: it is dropped)', async () => {
    const { win, tools } = freshInstall();
    const mc = (win.document as unknown as { modelContext: any }).modelContext;
    const tool = (name: string, annotations?: object) => ({
      name,
      description: name,
      execute: () => 1,
      ...(annotations ? { annotations } : {}),
    });
    await mc.registerTool(tool('plain'));
    await mc.registerTool(tool('read', { readOnlyHint: true }));
    await mc.registerTool(tool('destroy', { destructiveHint: true }));
    expect(await policies(tools)).toEqual({ plain: 'write', read: 'read', destroy: 'write' });
  });

  it("the browser's own tools, as the wire sees them", async () => {
    const win = new Window({ url: 'https://app.example/' });
    const origin = 'https://app.example';
    const native = Object.assign(new EventTarget(), {
      registerTool: async () => undefined,
      getTools: async () => [
        { name: 'n.plain', description: 'd', origin },
        { name: 'n.read', description: 'd', origin, annotations: { readOnlyHint: true } },
        { name: 'n.destroy', description: 'd', origin, annotations: { destructiveHint: true } },
        {
          name: 'n.both',
          description: 'd',
          origin,
          annotations: { readOnlyHint: true, destructiveHint: true },
        },
      ],
      executeTool: async () => 'null',
    });
    Object.defineProperty(win.document, 'modelContext', { value: native, configurable: true });
    const { tools } = install({ window: win as unknown as never });
    expect(await policies(tools)).toEqual({
      'n.plain': 'write',
      'n.read': 'read',
      'n.destroy': 'critical',
      'n.both': 'critical',
    });
    for (const tool of await tools.getTools()) expect(wireInfo(tools, tool)?.local).toBe(true);
  });

  it('form tools (no annotations) are write', async () => {
    const { win, tools } = freshInstall();
    win.document.body.innerHTML =
      '<form toolname="book" tooldescription="Books"><input name="who"><button>Go</button></form>';
    await expect.poll(async () => (await tools.getTools()).length).toBe(1);
    expect(await policies(tools)).toEqual({ book: 'write' });
  });
});

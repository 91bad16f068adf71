/**
 * The native layer on a page with frames: the browser's getTools() answers for the whole page,
 * each descriptor naming the window that registered it. window.tools lists this document's
 * native tools and its descendants', never an ancestor's or a sibling's.
 */
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { install } from '../src/index.js';

const ORIGIN = 'https://app.example';

function installWith(listing: (win: unknown) => object[]) {
  const win = new Window({ url: `${ORIGIN}/` });
  const context = Object.assign(new EventTarget(), {
    registerTool: async () => undefined,
    getTools: async () => listing(win),
    // As Chromium answers: a tool's object result as JSON text, a string result as it is.
    executeTool: async (tool: { name: string }) =>
      tool.name.startsWith('text.') ? `plain ${tool.name}` : JSON.stringify(tool.name),
  });
  Object.defineProperty(win.document, 'modelContext', { value: context, configurable: true });
  return install({ window: win as unknown as never });
}

const described = (name: string, window?: unknown) => ({
  name,
  description: `${name}.`,
  origin: ORIGIN,
  ...(window === undefined ? {} : { window }),
});

describe('native tools across frames', () => {
  it("lists this document's native tools and its descendants', and calls them", async () => {
    const { tools } = installWith((win) => {
      const child = { parent: win };
      const grandchild = { parent: child };
      return [
        described('own.native', win),
        described('child.native', child),
        described('grandchild.native', grandchild),
        described('unnamed.native'),
      ];
    });
    const listed = await tools.getTools();
    expect(listed.map((tool) => tool.name)).toEqual([
      'child.native',
      'grandchild.native',
      'own.native',
      'unnamed.native',
    ]);
    expect(await tools.callTool('own.native')).toBe('own.native');
  });

  it('hands back a string result the browser returns unquoted as that string', async () => {
    const { tools } = installWith((win) => [
      described('text.native', win),
      described('own.native', win),
    ]);
    // Honest path first: JSON text comes back parsed.
    expect(await tools.callTool('own.native')).toBe('own.native');
    expect(await tools.callTool('text.native')).toBe('plain text.native');
  });

  it("leaves out an ancestor's and a sibling's native tools", async () => {
    const { tools } = installWith((win) => {
      const top = {} as { parent?: unknown };
      top.parent = top;
      const sibling = { parent: top };
      // A window whose parent cannot be read (it throws) is not known to be below.
      const closed = {
        get parent(): unknown {
          throw new Error('cross-origin');
        },
      };
      return [
        described('own.native', win),
        described('top.native', top),
        described('sibling.native', sibling),
        described('closed.native', closed),
      ];
    });
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['own.native']);
  });
});

describe("a frame's mirrors", () => {
  it('are left to the frames bridge; a frame tool named like one of ours is still listed', async () => {
    const { toolManager, tools } = installWith((win) => {
      // A same-origin frame with toolwire mirrors `frame.mirror` (and not `frame.native`).
      const child = {
        parent: win,
        [Symbol.for('toolwire.native.mirrors')]: (name: string) => name === 'frame.mirror',
      };
      return [
        described('frame.mirror', child),
        described('frame.native', child),
        described('shared', child),
        described('shared', win),
      ];
    });
    // This document mirrors `shared`: its own native listing of it is the mirror.
    await toolManager.register({
      name: 'shared',
      naturalLanguageProperties: { description: 'shared.' },
      execute: () => 'mine',
    });
    const listed = (await tools.getTools()).map((tool) => `${tool.name}:${tool.origin}`);
    expect(listed).toEqual([
      `frame.native:${ORIGIN}`,
      // The frame's native `shared`, then this document's registration (not its mirror).
      `shared:${ORIGIN}`,
      `shared:${ORIGIN}`,
    ]);
    expect(await tools.callTool('shared')).toBe('mine');
  });
});

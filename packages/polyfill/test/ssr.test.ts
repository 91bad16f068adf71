// Plain Node, no DOM (vitest's node environment): what server-side rendering sees (issue 15).
import { describe, expect, it } from 'vitest';

describe('install() without a document', () => {
  it('installs nothing, throws nothing, and answers a detached installation', async () => {
    expect(typeof (globalThis as { document?: unknown }).document).toBe('undefined');
    const before = Object.getOwnPropertyNames(globalThis);
    const beforeSymbols = Object.getOwnPropertySymbols(globalThis);
    const { install, defineTool } = await import('../src/index.js');

    const installation = install();
    expect(installation.detached).toBe(true);
    expect(installation.native).toBe(false);
    expect(install()).toBe(installation);
    expect(Object.getOwnPropertyNames(globalThis)).toEqual(before);
    expect(Object.getOwnPropertySymbols(globalThis)).toEqual(beforeSymbols);
    expect('toolManager' in globalThis).toBe(false);

    // Page code that registers and calls survives; its tools go nowhere else.
    const { toolManager, tools } = installation;
    await toolManager.register(
      defineTool({
        name: 'ssr.echo',
        inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        execute: ({ n }) => n + 1,
      }),
    );
    expect(await tools.callTool('ssr.echo', { n: 1 })).toBe(2);
    expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['ssr.echo']);
    expect(Object.getOwnPropertyNames(globalThis)).toEqual(before);
  });

  it('treats a window object without a document the same way', async () => {
    const { install } = await import('../src/index.js');
    const fake = {} as unknown as Window & typeof globalThis;
    const installation = install({ window: fake });
    expect(installation.detached).toBe(true);
    expect(Object.getOwnPropertySymbols(fake)).toEqual([]);
    expect(Object.keys(fake)).toEqual([]);
  });
});

// @vitest-environment happy-dom
import { install } from '@toolwire/polyfill';
import { expect, it } from 'vitest';
import { mountTool } from './helpers.js';

// The app installs the polyfill itself (install() on this window), as a Vite app would; the
// other tests put a separately installed polyfill on the globals, as the IIFE does.
it('registers through the toolManager install() put on window', async () => {
  const { tools } = install();
  expect((window as { toolManager?: unknown }).toolManager).toBeDefined();
  const view = mountTool(true);
  await view.render({ name: 'app.ping', execute: () => 'pong' });
  expect(view.probe.result?.status).toBe('registered');
  expect((await tools.getTools()).map((tool) => tool.name)).toEqual(['app.ping']);
  expect(await tools.callTool('app.ping')).toBe('pong');
  await view.unmount();
  expect(await tools.getTools()).toEqual([]);
});

// @vitest-environment happy-dom
/**
 * The built-in ui.* tools load their implementations on the first ui.* call (issue 16, item 2):
 * listed before, loaded once, and a load that fails answers that call with a coded, retryable
 * error (the next call tries again), never a hang.
 */
import type { BridgeTool } from '@toolwire/protocol';
import { createToolBridge } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BuiltinTools } from '../src/builtins/index.js';
import { createBuiltinTools } from '../src/builtins/index.js';
import { pageValidator } from '../src/validator.js';

const loader = vi.hoisted(() => ({ load: undefined as undefined | (() => Promise<unknown>) }));
vi.mock('../src/chunks.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/chunks.js')>();
  return {
    ...original,
    loadBuiltinRuntime: () => (loader.load ?? original.loadBuiltinRuntime)(),
  };
});

let builtins: BuiltinTools | undefined;
afterEach(() => {
  builtins?.dispose();
  loader.load = undefined;
});

let sequence = 0;
function setUp() {
  document.body.innerHTML = '<button data-testid="go">Go</button>';
  builtins = createBuiltinTools({ document });
  const tools: BridgeTool[] = builtins.tools;
  const bridge = createToolBridge({
    validator: pageValidator(),
    tools: () => tools,
    guard: 'full-access',
  });
  const send = async (type: string, payload: unknown) => {
    const response = await bridge.handle({
      type,
      id: `lazy-${++sequence}`,
      sessionId: 's1',
      sentAt: new Date().toISOString(),
      capability: 'tool.exec',
      payload,
    });
    if (!response) throw new Error('passed through');
    return { type: response.type, payload: response.envelope.payload as any };
  };
  return { send };
}

/** A ChunkLoadError as the IIFE's loader rejects with (packages/polyfill/src/lib/chunks.ts). */
function chunkLoadError(): Error {
  return Object.assign(
    new Error('toolwire: cannot load polyfill-ui-builtins.js from /x/polyfill-ui-builtins.js'),
    {
      name: 'ChunkLoadError',
      code: 'toolwire_chunk_load_failed',
      file: 'polyfill-ui-builtins.js',
      url: 'http://page.test/x/polyfill-ui-builtins.js',
    },
  );
}

describe('ui.* built-ins, loaded on the first ui.* call', () => {
  it('are listed before anything loads; the first call loads the implementations once', async () => {
    const real = await import('../src/builtins/runtime.js');
    let loads = 0;
    loader.load = async () => {
      loads++;
      return real;
    };
    const { send } = setUp();
    const listing = await send('tool.query', { detail: 'full' });
    const ids = listing.payload.tools.map((tool: { id: string }) => tool.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'ui.get_visual_tree',
        'ui.query_nodes',
        'ui.perform_action',
        'ui.get_screenshot',
      ]),
    );
    expect(loads).toBe(0);
    const found = await send('tool.call', {
      toolId: 'ui.query_nodes',
      arguments: { automationId: 'go' },
    });
    expect(found.type).toBe('tool.result');
    expect(found.payload.result.count).toBe(1);
    const tree = await send('tool.call', { toolId: 'ui.get_visual_tree', arguments: {} });
    expect(tree.type).toBe('tool.result');
    expect(loads).toBe(1);
  });

  it('a load that fails answers toolwire_chunk_load_failed (retryable); the next call loads', async () => {
    const real = await import('../src/builtins/runtime.js');
    let fail = true;
    loader.load = () => (fail ? Promise.reject(chunkLoadError()) : Promise.resolve(real));
    const { send } = setUp();
    const failed = await send('tool.call', { toolId: 'ui.get_visual_tree', arguments: {} });
    expect(failed.type).toBe('tool.error');
    expect(failed.payload).toMatchObject({
      code: 'toolwire_chunk_load_failed',
      retryable: true,
      details: {
        file: 'polyfill-ui-builtins.js',
        url: 'http://page.test/x/polyfill-ui-builtins.js',
      },
    });
    expect(failed.payload.message).toContain('cannot load polyfill-ui-builtins.js');
    fail = false;
    const again = await send('tool.call', { toolId: 'ui.get_visual_tree', arguments: {} });
    expect(again.type).toBe('tool.result');
    expect(again.payload.result.root.role).toBeDefined();
  });

  it('the screenshot tool needs no load: unavailable without a provider, as before', async () => {
    loader.load = () => Promise.reject(chunkLoadError());
    const { send } = setUp();
    const shot = await send('tool.call', { toolId: 'ui.get_screenshot', arguments: {} });
    expect(shot.payload.code).toBe('screenshot_unavailable');
  });
});

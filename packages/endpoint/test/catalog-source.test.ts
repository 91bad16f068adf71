import * as polyfill from '@toolwire/polyfill';
import type { BridgeTool } from '@toolwire/protocol';
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { connect } from '../src/connect.js';
import type { ToolCatalogSource } from '../src/options.js';
import { FakeSocket, sockets } from './fake-socket.js';

// `connect({source})`: tools served as they are (a browser extension serving a tab's), with no
// polyfill installed and the guard still applied.
vi.mock('@toolwire/polyfill', { spy: true });

function tool(id: string, policy: 'read' | 'write' = 'read'): BridgeTool {
  return {
    definition: {
      id,
      name: id,
      description: `${id} tool`,
      category: 'tab',
      policy,
      argumentsSchema: { type: 'object' },
      resultSchema: {},
      origin: 'https://tab.example',
    },
    execute: (args) => ({ echoed: args }),
  };
}

/** A source whose tools the test sets; counts subscriptions. */
function fakeSource(initial: BridgeTool[]) {
  let tools = initial;
  const listeners = new Set<() => void>();
  const source: ToolCatalogSource = {
    read: async () => tools,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    source,
    listeners,
    change(next: BridgeTool[]) {
      tools = next;
      for (const listener of listeners) listener();
    },
  };
}

async function open(source: ToolCatalogSource) {
  const before = sockets.length;
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    source,
    builtins: false,
    reconnect: false,
    catalogChangedDelayMs: 0,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
  });
  await until(() => sockets.length === before + 1);
  const socket = sockets.at(-1) as FakeSocket;
  socket.open();
  return { session, socket };
}

const ids = (tools: readonly BridgeTool[]) => tools.map((t) => t.definition.id).sort();

describe('connect({source})', () => {
  it('serves the source tools, installs no polyfill, and follows changes', async () => {
    const fake = fakeSource([tool('tab.read'), tool('tab.write', 'write')]);
    const { session, socket } = await open(fake.source);
    await until(() => session.catalogTools.length === 2);
    expect(polyfill.install).not.toHaveBeenCalled();

    socket.receive({
      type: 'tool.call',
      id: 'c1',
      capability: 'tool.exec',
      payload: { toolId: 'tab.read', arguments: { q: 'x' } },
    });
    await until(() => socket.frames('tool.result').length === 1);
    expect(socket.frames('tool.result')[0].payload.result).toEqual({ echoed: { q: 'x' } });

    // The guard (read-only by default) still hides the write tool.
    socket.receive({
      type: 'tool.call',
      id: 'c2',
      capability: 'tool.exec',
      payload: { toolId: 'tab.write', arguments: {} },
    });
    await until(() => socket.frames('tool.error').length === 1);
    expect(socket.frames('tool.error')[0].payload).toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'page-guard', maxPolicy: 'read' },
    });

    fake.change([tool('tab.read'), tool('tab.more')]);
    await until(() => ids(session.catalogTools).join() === 'tab.more,tab.read');
    await until(() => socket.frames('tool.catalog.changed').length >= 1);

    session.close();
    expect(fake.listeners.size).toBe(0);
  });

  it('a read that fails keeps the tools of the last good read, with a warning', async () => {
    const fake = fakeSource([tool('tab.read')]);
    const { session } = await open(fake.source);
    await until(() => session.catalogTools.length === 1);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    fake.source.read = async () => {
      throw new Error('the tab is gone');
    };
    fake.change([]);
    await until(() => warn.mock.calls.length === 1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('the tab is gone');
    expect(ids(session.catalogTools)).toEqual(['tab.read']);
    warn.mockRestore();
    session.close();
  });
});

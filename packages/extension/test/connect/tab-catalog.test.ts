import type { ToolContext } from '@toolwire/protocol';
import { noProgress } from '@toolwire/protocol';
import { describe, expect, it } from 'vitest';
import { readPairingAddress } from '../../app/connect/pairing-address.js';
import { bridgeToolOf, tabCatalog } from '../../app/connect/tab-catalog.js';
import { FakeTabClient, tabTool } from './fake-client.js';

const context = (): ToolContext => ({
  requestId: 'r',
  sessionId: null,
  callId: null,
  toolId: 't',
  signal: new AbortController().signal,
  reportProgress: noProgress,
});

describe('tabCatalog', () => {
  it('maps a tab tool to a bridge tool: title, category, policy, origin, hints', () => {
    const client = new FakeTabClient([]);
    const tool = bridgeToolOf(
      client,
      tabTool('notes.add', {
        title: 'Add a note',
        origin: 'https://widget.example',
        policy: undefined,
        annotations: { destructiveHint: true, idempotentHint: true },
        source: 'native',
      }),
    );
    expect(tool.definition).toMatchObject({
      id: 'notes.add',
      name: 'Add a note',
      category: 'notes',
      policy: 'critical',
      origin: 'https://widget.example',
      argumentsSchema: { type: 'object' },
      resultSchema: {},
      annotations: { idempotentHint: true },
    });
    // The browser's own tools are checked by the bridge; toolwire's in the tab.
    expect(tool.validates).toBeUndefined();
    expect(bridgeToolOf(client, tabTool('x')).validates).toEqual({ arguments: true, result: true });
    expect(bridgeToolOf(client, tabTool('plain', { policy: undefined })).definition).toMatchObject({
      policy: 'write',
      category: 'page',
    });
  });

  it('expands webType schemas for the listing; the lowered result passes unchanged', async () => {
    const client = new FakeTabClient([]);
    const png = { mimeType: 'image/png', data: 'AAAA', width: 1, height: 1 };
    client.answers.set('shot', () => ({ ok: true, result: png }));
    const tool = bridgeToolOf(client, tabTool('shot', { outputSchema: { webType: 'ImageData' } }));
    expect(tool.definition.resultSchema).toMatchObject({
      type: 'object',
      properties: { mimeType: { const: 'image/png' } },
    });
    expect(await tool.execute({}, context())).toBe(png);
  });

  it('keeps a failure code (tab_gone too) and words; a throw is tool_execution_failed', async () => {
    const client = new FakeTabClient([]);
    client.answers.set('bad', () => ({
      ok: false,
      error: { code: 'tool_arguments_schema_invalid', message: 'q is required' },
    }));
    const bad = (await bridgeToolOf(client, tabTool('bad')).execute({}, context())) as Record<
      string,
      unknown
    >;
    expect(bad).toMatchObject({ code: 'tool_arguments_schema_invalid', message: 'q is required' });
    client.answers.set('boom', () => {
      throw new Error('relay broke');
    });
    const boom = (await bridgeToolOf(client, tabTool('boom')).execute({}, context())) as Record<
      string,
      unknown
    >;
    expect(boom).toMatchObject({ code: 'tool_execution_failed' });
    client.go('closed');
    const gone = (await bridgeToolOf(client, tabTool('bad')).execute({}, context())) as Record<
      string,
      unknown
    >;
    expect(gone).toMatchObject({ code: 'tab_gone' });
  });

  it('serves the list a change brought without reading the tab again', async () => {
    const client = new FakeTabClient([tabTool('a')]);
    let reads = 0;
    const list = client.list.bind(client);
    client.list = () => {
      reads++;
      return list();
    };
    const source = tabCatalog(client);
    let told = 0;
    const stop = source.subscribe(() => told++);
    expect((await source.read()).map((t) => t.definition.id)).toEqual(['a']);
    client.change([tabTool('a'), tabTool('b')]);
    expect(told).toBe(1);
    expect((await source.read()).map((t) => t.definition.id)).toEqual(['a', 'b']);
    expect(reads).toBe(1);
    stop();
    expect(client.listeners).toBe(0);
  });

  it('serves only agent-exposed tools', async () => {
    const client = new FakeTabClient([
      tabTool('a'),
      tabTool('own.helper', { agentExposed: false }),
    ]);
    expect((await tabCatalog(client).read()).map((t) => t.definition.id)).toEqual(['a']);
  });
});

describe('readPairingAddress', () => {
  it('reads the address toolwire pair --extension prints', () => {
    expect(readPairingAddress(' ws://127.0.0.1:45124/toolwire?pair=abc ')).toEqual({
      ok: true,
      address: 'ws://127.0.0.1:45124/toolwire',
      code: 'abc',
    });
  });

  it('refuses other machines, long-lived secrets, and text without a code', () => {
    for (const text of [
      'ws://evil.example:45124/toolwire?pair=abc',
      'ws://127.0.0.1:45124/toolwire?token=abc',
      'ws://127.0.0.1:45124/toolwire?credential=abc',
      'ws://127.0.0.1:45124/toolwire',
      'http://127.0.0.1:45124/toolwire?pair=abc',
      'abc',
    ]) {
      expect(readPairingAddress(text)).toMatchObject({
        ok: false,
        code: 'pairing_address_invalid',
      });
    }
  });
});

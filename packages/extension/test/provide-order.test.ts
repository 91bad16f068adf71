/**
 * The provider (app/provide/provide.ts) and the MAIN-world reader in one document, in either
 * order: the browser runs both at document_start, and a page that feature-tests
 * `document.modelContext` then registers its tools, which the reader must list and call through
 * the relay whichever script ran first. A document with its own `document.modelContext` gets
 * nothing installed.
 */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { provideWebMcp } from '../app/provide/provide.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { startInPage } from './in-page.js';

const ORIGIN = 'http://localhost:5198';
const windows: Window[] = [];
afterEach(async () => {
  for (const win of windows.splice(0)) await win.happyDOM.close();
});

function page(): globalThis.Window & typeof globalThis {
  const win = new Window({ url: `${ORIGIN}/flights.html` });
  windows.push(win);
  return win as unknown as globalThis.Window & typeof globalThis;
}

/** The reader and the relay, as the extension starts them, with a stand-in background port. */
async function startReader(win: globalThis.Window & typeof globalThis) {
  const sent: any[] = [];
  let request: (message: unknown) => void = () => {};
  const background: RuntimePortLike = {
    name: 'toolwire-relay',
    postMessage: (message) => sent.push(message),
    disconnect: () => {},
    onMessage: { addListener: (listener) => (request = listener) },
    onDisconnect: { addListener: () => {} },
  };
  await startInPage(win as never, () => background);
  return {
    sent,
    async ask(message: { id: number } & Record<string, unknown>) {
      request(message);
      await until(
        () => sent.some((answer) => answer.id === message.id),
        `the answer to ${message.id}`,
      );
      return sent.find((answer) => answer.id === message.id).outcome;
    },
  };
}

/** What a demo page's script does once it finds `document.modelContext`. */
function registerDemoTool(win: globalThis.Window & typeof globalThis): void {
  if (!('modelContext' in win.document)) return;
  (win.document as any).modelContext.registerTool({
    name: 'searchFlights',
    description: 'Search flights.',
    inputSchema: {
      type: 'object',
      properties: { cabin: { type: 'string', enum: ['economy', 'business'] } },
      required: ['cabin'],
    },
    annotations: { readOnlyHint: true },
    execute: async ({ cabin }: { cabin: string }) => ({ cabin, flights: 1 }),
  });
}

describe('the provider and the reader at document_start', () => {
  for (const order of ['reader first', 'provider first'] as const) {
    it(`list and call the page's tools with the ${order}`, async () => {
      const win = page();
      let reader: Awaited<ReturnType<typeof startReader>>;
      if (order === 'reader first') {
        reader = await startReader(win);
        expect(provideWebMcp(win)).toBe(true);
      } else {
        expect(provideWebMcp(win)).toBe(true);
        reader = await startReader(win);
      }
      registerDemoTool(win);
      await until(async () => {
        const tools = await (win as any).tools.getTools();
        return tools.length === 1;
      }, 'the registration');
      expect(await reader.ask({ id: 1, op: 'list' })).toEqual({
        ok: true,
        result: [
          expect.objectContaining({
            name: 'searchFlights',
            origin: ORIGIN,
            source: 'toolwire',
            policy: 'read',
          }),
        ],
      });
      expect(
        await reader.ask({ id: 2, op: 'call', name: 'searchFlights', args: { cabin: 'business' } }),
      ).toEqual({ ok: true, result: { cabin: 'business', flights: 1 } });
      // The polyfill checks the arguments: the enum holds.
      expect(
        await reader.ask({ id: 3, op: 'call', name: 'searchFlights', args: { cabin: 'first' } }),
      ).toMatchObject({ ok: false, error: { code: 'tool_arguments_schema_invalid' } });
      // A tool registered after the reader's listing is announced.
      const before = reader.sent.filter((message) => message.event === 'changed').length;
      (win.document as any).modelContext.registerTool({
        name: 'later',
        description: 'Registered later.',
        execute: () => 'ok',
      });
      await until(
        () => reader.sent.filter((message) => message.event === 'changed').length > before,
        'a change notice',
      );
    });
  }

  it('installs nothing where the document has its own modelContext', async () => {
    // Honest first: a plain document gets the polyfill.
    const plain = page();
    expect(provideWebMcp(plain)).toBe(true);
    expect(typeof (plain as any).tools?.getTools).toBe('function');

    const native = page();
    const own = { registerTool() {}, getTools: async () => [] };
    Object.defineProperty(native.document, 'modelContext', { value: own, configurable: true });
    expect(provideWebMcp(native)).toBe(false);
    expect((native.document as any).modelContext).toBe(own);
    expect('tools' in native).toBe(false);
    expect('toolManager' in native).toBe(false);
  });
});

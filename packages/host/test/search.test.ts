/**
 * One tool search (issue 14): the control API's `--query` is the page's own `tool.query`
 * search, words split by the protocol's normalizeSearch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../src/index.js';
import { controlRequest, startControlServer } from '../src/internal.js';
import { FakePage, tool } from './helpers.js';

const cleanup: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('one tool search', () => {
  it("--query finds what the page's own tool.query finds", async () => {
    const host = await createHost({ token: 'search-test-token-0123456789', origins: ['*'] });
    cleanup.push(() => host.close());
    const page = await FakePage.connect(host.url, {
      tools: [
        tool('notes.add', undefined, { description: 'Adds a note.', keywords: ['memo'] }),
        tool('notes.delete', undefined, { prerequisiteToolIds: ['notes.add'] }),
        tool('demo.echo', undefined, { name: 'Echo-Tool', description: 'Returns its input!' }),
        tool('cart_checkout', undefined, { category: 'shop' }),
      ],
    });
    cleanup.push(async () => page.socket.terminate());
    const session = await host.waitForSession();
    const control = await startControlServer(host);
    cleanup.push(() => control.close());
    const target = { url: control.url, token: control.token };
    const queries = [
      'notes.add',
      'ADD note',
      'echo-tool',
      'input!',
      'cart checkout',
      'memo',
      'shop',
      'notes add',
      'nothing-like-it',
      '  ',
    ];
    for (const query of queries) {
      const page = (await session.query({ detail: 'index', query })) as {
        tools: { id: string }[];
      };
      const answer = (await controlRequest(target, '/v1/tools', { query })) as {
        tools: { id: string }[];
      };
      expect(answer.tools.map((t) => t.id).sort(), query).toEqual(
        page.tools.map((t) => t.id).sort(),
      );
    }
    // The rule is the protocol's: punctuation splits words, case does not matter.
    const found = (await controlRequest(target, '/v1/tools', { query: 'ADD note' })) as {
      tools: { id: string }[];
    };
    expect(found.tools.map((t) => t.id)).toEqual(['notes.add', 'notes.delete']);
  });
});

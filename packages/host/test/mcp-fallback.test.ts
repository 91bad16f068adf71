import { join } from 'node:path';
import { sessionOpen } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createHost } from '../src/index.js';
import { sessionLabel } from '../src/internal.js';
import { hostInProcess, mcpInProcess, tempDir } from './cli-helpers.js';
import { FakePage, mcpOverMemory, tool } from './helpers.js';

// Issue 17 part 3: two tabs offering one tool id are both callable, each tool names its tab, and
// `toolwire_sessions` / `toolwire_call` (src/mcp/fallback-tools.ts) list and call any tab's tool
// for clients that ignore list_changed. The same scenario against a host in this process and
// against a running host through its control API (`toolwire mcp --attach`). Real sockets.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Rpc = (method: string, params?: object) => Promise<any>;
interface Started {
  rpc: Rpc;
  /** The ws:// address its host's pages connect to. */
  url: string;
  /** Every message the client received. */
  messages: any[];
}

/** An initialized MCP client of a host in this process. */
async function ownHost(): Promise<Started> {
  const host = await createHost({ origins: ['*'] });
  cleanups.push(() => host.close());
  const client = await mcpOverMemory(host);
  cleanups.push(() => client.bridge.close());
  await client.rpc('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '0' },
  });
  client.notify('notifications/initialized');
  return { rpc: client.rpc, url: host.url, messages: client.messages };
}

/** An initialized MCP client of `toolwire mcp --attach` to a running host. */
async function attached(): Promise<Started> {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-fallback-'), 'host.json') };
  const host = await hostInProcess(env);
  cleanups.push(() => host.stop());
  const client = mcpInProcess(['--attach'], env);
  cleanups.push(() => client.stop());
  await client.open();
  return { rpc: client.rpc, url: host.url, messages: client.messages };
}

const names = async (rpc: Rpc): Promise<string[]> =>
  (await rpc('tools/list')).result.tools.map((entry: { name: string }) => entry.name);

/** Two tabs of two origins, both with `demo.echo`; each tool counts its runs. */
async function twoTabs(rpc: Rpc, url: string) {
  const ran: string[] = [];
  const run = (what: string, answer: unknown) => () => {
    ran.push(what);
    return answer;
  };
  const inbox = await FakePage.connect(url, {
    origin: 'http://localhost:5191',
    tab: { title: 'Inbox', url: 'http://localhost:5191/inbox', origin: 'http://localhost:5191' },
    tools: [
      tool('demo.echo', run('inbox echo', 'from the inbox')),
      tool('notes.add', run('inbox notes.add', {}), { policy: 'write' }),
    ],
  });
  cleanups.push(() => inbox.socket.terminate());
  await until(async () => (await names(rpc)).includes('demo_echo'));
  const drafts = await FakePage.connect(url, {
    origin: 'http://127.0.0.1:5191',
    // A tab that claims another origin (as an extension may, for the tab it speaks for).
    tab: {
      title: 'Drafts\u001b[2J',
      url: 'https://mail.example/drafts',
      origin: 'https://mail.example',
    },
    guard: 'read-only',
    reportGuard: true,
    tools: [
      tool('demo.echo', run('drafts echo', 'from the drafts')),
      tool('notes.delete', run('drafts notes.delete', {}), { policy: 'critical' }),
    ],
  });
  cleanups.push(() => drafts.socket.terminate());
  await until(async () => (await names(rpc)).length === 5);
  const listing = (await rpc('tools/call', { name: 'toolwire_sessions', arguments: {} })).result;
  const [first, second] = listing.structuredContent.sessions;
  return { ran, listing, inbox: first, drafts: second };
}

const text = (answer: any): string => answer.result.content[0].text;
const code = (answer: any): string => answer.result._meta['toolwire/code'];

describe.each([
  ['a host of its own', ownHost],
  ['attached to a running host', attached],
])('two tabs, one tool id, over MCP (%s)', (_, start) => {
  it('lists both under stable, distinct names that say their tab; both are callable', async () => {
    const { rpc, url } = await start();
    const { inbox, drafts, ran } = await twoTabs(rpc, url);
    const label = sessionLabel(drafts.id);
    const { tools } = (await rpc('tools/list')).result;
    expect(tools.map((entry: { name: string }) => entry.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
      `demo_echo__${label}`,
    ]);
    const [mine, theirs] = tools.slice(3);
    expect(mine.description).toBe(
      `The demo.echo tool. [tab "Inbox" at http://localhost:5191, session ${sessionLabel(inbox.id)}]`,
    );
    expect(mine._meta['toolwire/tab']).toEqual({
      title: 'Inbox',
      url: 'http://localhost:5191/inbox',
      origin: 'http://localhost:5191',
    });
    // The page's title on one line, its escape character gone; the origin it claims, then the
    // socket's own (the browser's word), since they differ.
    expect(theirs.description).toBe(
      `The demo.echo tool. [tab "Drafts [2J" at https://mail.example, connected from http://127.0.0.1:5191, session ${label}]`,
    );
    expect(text(await rpc('tools/call', { name: 'demo_echo', arguments: {} }))).toBe(
      'from the inbox',
    );
    expect(text(await rpc('tools/call', { name: `demo_echo__${label}`, arguments: {} }))).toBe(
      'from the drafts',
    );
    expect(ran).toEqual(['inbox echo', 'drafts echo']);
  });

  it('a tab named after its tools came (session.open late): the list changes and names it', async () => {
    const { rpc, url, messages } = await start();
    const late = await FakePage.connect(url, { open: false, tools: [tool('demo.echo')] });
    cleanups.push(() => late.socket.terminate());
    await until(async () => (await names(rpc)).includes('demo_echo'));
    const describe = async () =>
      (await rpc('tools/list')).result.tools.find((t: any) => t.name === 'demo_echo').description;
    expect(await describe()).toMatch(/ \[an unnamed tab, session [0-9a-f]{8}\]$/);
    const changed = () =>
      messages.filter((m) => m.method === 'notifications/tools/list_changed').length;
    const before = changed();
    late.send(
      sessionOpen({
        sdk: { name: 'fake-page', version: '1.0.0' },
        page: { origin: 'null', url: 'http://fake.test/late', title: 'Late' },
        session: late.key,
      }),
    );
    await until(() => changed() > before);
    expect(await describe()).toMatch(/ \[tab "Late" at null, session [0-9a-f]{8}\]$/);
  });

  it('toolwire_sessions lists the tabs and their tools; toolwire_call calls by session and id', async () => {
    const { rpc, url } = await start();
    const { inbox, drafts, listing, ran } = await twoTabs(rpc, url);
    expect(JSON.parse(listing.content[0].text)).toEqual(listing.structuredContent);
    expect(inbox).toMatchObject({
      label: sessionLabel(inbox.id),
      tab: { title: 'Inbox', url: 'http://localhost:5191/inbox' },
      connectedFrom: 'http://localhost:5191',
      grant: 'read',
      tools: [{ id: 'demo.echo', name: 'demo_echo', policy: 'read', available: true }],
      withheld: [{ id: 'notes.add', policy: 'write', reason: 'grant', limit: 'read' }],
    });
    expect(drafts).toMatchObject({
      guard: 'read-only',
      tools: [{ id: 'demo.echo', name: `demo_echo__${sessionLabel(drafts.id)}` }],
      withheld: [{ id: 'notes.delete', policy: 'critical', reason: 'page_guard' }],
    });
    const call = (args: object) => rpc('tools/call', { name: 'toolwire_call', arguments: args });
    // By id, by label, by the tool's MCP name.
    const byId = await call({ session: inbox.id, tool: 'demo.echo', arguments: {} });
    expect(byId.result.isError).toBe(false);
    expect(text(byId)).toBe('from the inbox');
    expect(text(await call({ session: drafts.label, tool: 'demo.echo' }))).toBe('from the drafts');
    expect(text(await call({ session: drafts.id, tool: drafts.tools[0].name }))).toBe(
      'from the drafts',
    );
    expect(ran).toEqual(['inbox echo', 'drafts echo', 'drafts echo']);

    // Hostile: each refusal is a coded isError result, and nothing runs in a page.
    const unknown = await call({ session: 'no-such-session', tool: 'demo.echo' });
    expect(unknown.result.isError).toBe(true);
    expect(code(unknown)).toBe('session_not_connected');
    const aboveGrant = await call({ session: inbox.id, tool: 'notes.add', arguments: {} });
    expect(code(aboveGrant)).toBe('tool_execution_denied');
    expect(text(aboveGrant)).toContain('"deniedBy":"host-grant"');
    const hiddenByGuard = await call({ session: drafts.id, tool: 'notes.delete' });
    expect(code(hiddenByGuard)).toBe('tool_execution_denied');
    expect(text(hiddenByGuard)).toContain('"deniedBy":"page-guard"');
    expect(code(await call({ session: inbox.id, tool: 'nope' }))).toBe('tool_not_found');
    // Another tab's tool is not this tab's, whatever its name.
    expect(code(await call({ session: inbox.id, tool: drafts.tools[0].name }))).toBe(
      'tool_not_found',
    );
    for (const malformed of [
      {},
      { session: inbox.id },
      { session: 42, tool: 'demo.echo' },
      { session: inbox.id, tool: '' },
      { session: inbox.id, tool: 'demo.echo', arguments: ['a'] },
      { session: inbox.id, tool: 'demo.echo', arguments: 'a' },
    ]) {
      const refused = await call(malformed);
      expect(refused.result.isError).toBe(true);
      expect(code(refused)).toBe('tool_arguments_schema_invalid');
    }
    expect(ran).toEqual(['inbox echo', 'drafts echo', 'drafts echo']);
  });

  it("a second tab's withheld tool explains itself under its labelled name, as under its plain one", async () => {
    const { rpc, url } = await start();
    const tab = async (title: string, extra: object) => {
      const page = await FakePage.connect(url, {
        origin: 'http://localhost:5191',
        tab: { title, url: `http://localhost:5191/${title}`, origin: 'http://localhost:5191' },
        ...extra,
      });
      cleanups.push(() => page.socket.terminate());
      return page;
    };
    // Both tabs list demo.echo and withhold notes.add: the first's is above the grant (read),
    // the second's guard (read-only) hides it, and notes.delete too.
    await tab('first', {
      tools: [tool('demo.echo', () => 'first'), tool('notes.add', () => ({}), { policy: 'write' })],
    });
    await until(async () => (await names(rpc)).includes('demo_echo'));
    await tab('second', {
      guard: 'read-only',
      reportGuard: true,
      tools: [
        tool('demo.echo', () => 'second'),
        tool('notes.add', () => ({}), { policy: 'write' }),
        tool('notes.delete', () => ({}), { policy: 'critical' }),
      ],
    });
    await until(async () => (await names(rpc)).length === 5);
    const listing = (await rpc('tools/call', { name: 'toolwire_sessions', arguments: {} })).result;
    const [first, second] = listing.structuredContent.sessions;
    const direct = (name: string) => rpc('tools/call', { name, arguments: {} });
    const refusal = async (name: string) => {
      const answer = await direct(name);
      expect(answer.result?.isError).toBe(true);
      const details = JSON.parse(text(answer).split('\n')[1] ?? 'null');
      return {
        code: code(answer),
        deniedBy: details?.deniedBy,
        toolId: details?.toolId,
        session: details?.sessionId,
      };
    };

    // The honest path: each tab's listed tool, under its plain and its labelled name.
    expect(text(await direct('demo_echo'))).toBe('first');
    expect(text(await direct(`demo_echo__${second.label}`))).toBe('second');
    // A withheld tool, under its plain name: the first tab's.
    expect(await refusal('notes_add')).toEqual({
      code: 'tool_execution_denied',
      deniedBy: 'host-grant',
      toolId: 'notes.add',
      session: first.id,
    });
    // Under the second tab's labelled name: the second tab's, for its own reason.
    expect(await refusal(`notes_add__${second.label}`)).toEqual({
      code: 'tool_execution_denied',
      deniedBy: 'page-guard',
      toolId: 'notes.add',
      session: second.id,
    });
    // Hidden by the second tab's guard: plain and labelled alike.
    for (const name of ['notes_delete', `notes_delete__${second.label}`]) {
      expect(await refusal(name)).toEqual({
        code: 'tool_execution_denied',
        deniedBy: 'page-guard',
        toolId: 'notes.delete',
        session: second.id,
      });
    }
    // toolwire_call takes that name too, for its own tab only.
    const call = (args: object) => rpc('tools/call', { name: 'toolwire_call', arguments: args });
    const deniedBy = (answer: unknown) => /"deniedBy":"([a-z-]+)"/.exec(text(answer))?.[1];
    for (const [session, name, by] of [
      [second.id, `notes_add__${second.label}`, 'page-guard'],
      [first.id, 'notes_add', 'host-grant'],
      [second.id, 'notes_delete', 'page-guard'],
    ]) {
      const answer = await call({ session, tool: name });
      expect(code(answer)).toBe('tool_execution_denied');
      expect(deniedBy(answer)).toBe(by);
    }

    // Hostile: a label no tab has, or a tab that has no such tool, is still unknown.
    for (const name of [
      'notes_add__deadbeef',
      `notes_delete__${first.label}`,
      `demo_echo__${second.label}x`,
    ]) {
      const unknown = await direct(name);
      expect(unknown.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool'),
        data: { 'toolwire/code': 'tool_not_found', 'toolwire/retryable': false },
      });
    }
    expect(code(await call({ session: first.id, tool: `notes_delete__${second.label}` }))).toBe(
      'tool_not_found',
    );
  });
});

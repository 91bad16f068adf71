import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { cli, hostInProcess, mcpInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// A call refused by the host's grant says how to allow it (--max-tool-policy), whether the host
// refuses it (the catalog's policy is above the grant) or the page does (the tool's policy rose
// after the host read it): both are tool_execution_denied with details.deniedBy "host-grant".

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-grant-'), 'host.json') };
  const host = await hostInProcess(env); // grant read
  cleanups.push(() => host.stop());
  const page = await FakePage.connect(host.url, {
    tools: [tool('cart.add', () => ({}), { policy: 'write' }), tool('notes.read')],
    applyGrant: true,
  });
  cleanups.push(() => page.socket.terminate());
  await until(() => host.err().includes('2 tools'));
  return { env, page };
}

/** The page raises `notes.read` to write without telling the host (its catalog says read). */
function raise(page: FakePage): void {
  page.setTools([
    tool('cart.add', () => ({}), { policy: 'write' }),
    tool('notes.read', () => ({}), { policy: 'write' }),
  ]);
}

describe('a call refused by the grant names --max-tool-policy', () => {
  it('toolwire call: refused by the host, and by the page', async () => {
    const { env, page } = await setup();
    const host = await cli(['call', 'cart.add'], env);
    expect(host.code).toBe(1);
    expect(host.err).toBe(
      'toolwire: tool_execution_denied: Tool "cart.add" has policy "write"; this host is granted up to "read". (restart the host with --max-tool-policy write to allow it)\n',
    );
    const hostJson = JSON.parse((await cli(['call', 'cart.add', '--json'], env)).out);
    expect(hostJson.error.details).toMatchObject({
      deniedBy: 'host-grant',
      policy: 'write',
      maxToolPolicy: 'read',
    });
    // `toolwire tools` says the same of the tools it marks as not granted.
    const listed = await cli(['tools'], env);
    expect(listed.out).toContain(
      "\n1 tool above the host's grant (read): cart.add (write); restart the host with --max-tool-policy write to call it\n",
    );
    raise(page);
    const denied = await cli(['call', 'notes.read'], env);
    expect(denied.code).toBe(1);
    expect(denied.err).toMatch(/^toolwire: tool_execution_denied: .*grant "read"\./);
    expect(denied.err).toContain('(restart the host with --max-tool-policy write to allow it)\n');
    const deniedJson = JSON.parse((await cli(['call', 'notes.read', '--json'], env)).out);
    expect(deniedJson.error.details).toMatchObject({
      deniedBy: 'host-grant',
      policy: 'write',
      maxToolPolicy: 'read',
    });
    // Other failures get no such hint.
    const missing = await cli(['call', 'no.such'], env);
    expect(missing.err).not.toContain('--max-tool-policy');
  });

  it('toolwire batch: the failed call line', async () => {
    const { env, page } = await setup();
    raise(page);
    const file = join(tempDir('toolwire-grant-batch-'), 'calls.json');
    (await import('node:fs')).writeFileSync(file, JSON.stringify([{ toolId: 'notes.read' }]));
    const run = await cli(['batch', file], env);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^toolwire: batch call 0 failed: tool_execution_denied: .*\(restart the host with --max-tool-policy write to allow it\)\n$/,
    );
  });

  it('MCP: a listed tool the page now refuses explains itself in the result', async () => {
    const { env, page } = await setup();
    const client = mcpInProcess(['--attach'], env);
    cleanups.push(() => client.stop());
    await client.open();
    const listed = (await client.rpc('tools/list')).result.tools.map(
      (t: { name: string }) => t.name,
    );
    expect(listed).toEqual(['toolwire_pair', 'toolwire_sessions', 'toolwire_call', 'notes_read']); // cart.add is above the grant
    raise(page);
    const answer = (await client.rpc('tools/call', { name: 'notes_read', arguments: {} })).result;
    expect(answer.isError).toBe(true);
    expect(answer._meta['toolwire/code']).toBe('tool_execution_denied');
    expect(answer.content[0].text).toContain(
      '(restart the host with --max-tool-policy write to allow it)',
    );
    const above = (await client.rpc('tools/call', { name: 'cart_add', arguments: {} })).result;
    expect(above.content[0].text).toContain('--max-tool-policy write');
    expect(above.content[0].text).not.toContain('Unknown tool');
  });
});

describe('over MCP, with a host of its own', () => {
  it('a tool above the grant explains itself (and names --max-tool-policy), not "Unknown tool"', async () => {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-grant-own-'), 'host.json') };
    const client = mcpInProcess(['--port', '0', '--allow-origin', '*'], env);
    cleanups.push(() => client.stop());
    await client.open();
    await until(() => client.err().includes('connect a page'));
    const url = /url: '([^']+)'/.exec(client.err())?.[1] as string;
    const page = await FakePage.connect(url, {
      tools: [tool('cart.add', () => ({}), { policy: 'write' }), tool('notes.read')],
    });
    cleanups.push(() => page.socket.terminate());
    await until(() => client.err().includes('2 tools'));
    const listed = (await client.rpc('tools/list')).result;
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'notes_read',
    ]);
    expect(listed._meta['toolwire/note']).toBe("1 tool above the host's grant (read): cart.add");
    const above = (await client.rpc('tools/call', { name: 'cart_add', arguments: {} })).result;
    expect(above).toMatchObject({
      isError: true,
      _meta: { 'toolwire/code': 'tool_execution_denied', 'toolwire/retryable': false },
    });
    expect(above.content[0].text).toContain('--max-tool-policy write');
    // Said once: the message leaves the way out to the hint.
    expect(above.content[0].text.match(/--max-tool-policy/g)).toHaveLength(1);
    const unknown = await client.rpc('tools/call', { name: 'no_such', arguments: {} });
    expect(unknown.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool'),
      data: { 'toolwire/code': 'tool_not_found', 'toolwire/retryable': false },
    });
  });
});

/**
 * HostSession.call sends a listed, granted tool's request at once (no await before it), and
 * keeps every local refusal: still a rejection (never a synchronous throw), still coded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { FakePage, tool } from './helpers.js';

let host: Host | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
  host = undefined;
});

async function setup() {
  host = await createHost({ origins: ['*'], maxToolPolicy: 'read' });
  const page = await FakePage.connect(host.url, {
    tools: [tool('demo.echo'), tool('notes.add', () => ({ added: true }), { policy: 'write' })],
  });
  pages.push(page);
  const session = await host.waitForSession({
    filter: (s) => s.info?.key === page.key && s.catalog.get('demo.echo') !== undefined,
  });
  return { page, session };
}

describe('HostSession.call, the fast path', () => {
  it('sends a listed, granted call in the same tick', async () => {
    const { session } = await setup();
    const before = session.stats.requests;
    const call = session.call('demo.echo', { a: 1 });
    expect(session.pendingCount).toBe(1);
    expect(session.stats.requests).toBe(before + 1);
    const result = await call;
    expect(result.success).toBe(true);
    expect(session.stats.responses).toBe(before + 1);
  });

  it('refusals still reject (never throw) with their codes, and send nothing', async () => {
    const { session } = await setup();
    const before = session.stats.requests;
    const missingId = session.call('');
    const granted = session.call('notes.add');
    expect(session.pendingCount).toBe(0);
    await expect(missingId).rejects.toMatchObject({ code: 'tool_call_missing_id' });
    await expect(granted).rejects.toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'host-grant' },
    });
    // An unknown id refreshes the catalog once (a tool.query), then is refused.
    await expect(session.call('nope')).rejects.toMatchObject({ code: 'tool_not_found' });
    expect(session.stats.requests).toBe(before + 1);
    session.close();
    await expect(session.call('demo.echo')).rejects.toMatchObject({
      code: 'tool_transport_closed',
    });
  });
});

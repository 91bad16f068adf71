/**
 * The one control API client (control/client.ts), read two ways: the CLI's exit codes and the
 * ToolProtocolErrors `mcp --attach` reports. Each broken "host" below comes after the honest
 * path against a real `toolwire host`, so a failure cannot pass because nothing was sent.
 */
import { writeFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { controlRequest, readControlState } from '../src/internal.js';
import { cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tcpRelay, tool } from './helpers.js';

const dir = tempDir('toolwire-control-client-');
let counter = 0;
const cleanup: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A running `toolwire host` with one page; its control target and a client env for it. */
async function realHost() {
  const env = { TOOLWIRE_STATE: join(dir, `state-${++counter}.json`) };
  const host = await hostInProcess(env);
  cleanup.push(host.stop);
  const page = await FakePage.connect(host.url, { tools: [tool('demo.echo')] });
  cleanup.push(async () => page.socket.terminate());
  await until(() => host.err().includes('catalog'));
  const state = readControlState(env.TOOLWIRE_STATE) as { controlUrl: string; token: string };
  return { env, target: { url: state.controlUrl, token: state.token } };
}

async function listen(server: NetServer | HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The env that points the CLI at `url` with some secret (no state file involved). */
const at = (url: string) => ({ TOOLWIRE_HOST: url, TOOLWIRE_CONTROL_TOKEN: 'any-secret' });

const batchFile = join(dir, 'batch.json');

describe('the control client', () => {
  it('the honest path: the CLI and controlRequest both get the answer', async () => {
    const { env, target } = await realHost();
    expect((await cli(['sessions'], env)).code).toBe(0);
    const echo = await cli(['call', 'demo.echo', '--args', '{"text":"hi"}'], env);
    expect(echo).toMatchObject({ code: 0, out: '{\n  "text": "hi"\n}\n' });
    expect(await controlRequest(target, '/v1/sessions')).toMatchObject({ ok: true });
    expect(
      await controlRequest(target, '/v1/call', { toolId: 'demo.echo', arguments: { a: 1 } }),
    ).toMatchObject({ ok: true, result: { result: { a: 1 } } });
  });

  it('nothing listens: exit 3, and session_not_connected (retryable)', async () => {
    const { env } = await realHost();
    expect((await cli(['sessions'], env)).code).toBe(0);
    // A port that was just free: nothing accepts there.
    const gone = createNetServer();
    const url = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
    expect(await cli(['sessions'], at(url))).toEqual({
      code: 3,
      out: '',
      err: `toolwire: no toolwire host answers at ${url} (start one with "toolwire host")\n`,
    });
    expect((await cli(['call', 'demo.echo'], at(url))).code).toBe(3);
    await expect(controlRequest({ url, token: 'x' }, '/v1/sessions')).rejects.toMatchObject({
      code: 'session_not_connected',
      retryable: true,
    });
  });

  it('an address no request can go to is "no host" too (exit 3), not a crash', async () => {
    const { env } = await realHost();
    expect((await cli(['sessions'], env)).code).toBe(0);
    for (const url of ['not a url', 'ftp://127.0.0.1:1/']) {
      expect(await cli(['sessions'], at(url))).toEqual({
        code: 3,
        out: '',
        err: `toolwire: no toolwire host answers at ${url} (start one with "toolwire host")\n`,
      });
    }
  });

  it('cut after the request: a call or batch is exit 4 (outcome unknown), a listing exit 3', async () => {
    const { env, target } = await realHost();
    writeFileSync(batchFile, JSON.stringify([{ toolId: 'demo.echo', arguments: {} }]));
    expect((await cli(['batch', batchFile], env)).code).toBe(0);
    expect((await controlRequest(target, '/v1/sessions')).ok).toBe(true);
    // A "host" that reads the request, then dies without answering.
    const url = await listen(
      createNetServer((socket) => socket.once('data', () => socket.destroy())),
    );
    const call = await cli(['call', 'demo.echo', '--json'], at(url));
    expect(call.code).toBe(4);
    expect(call.err).toMatch(
      /^toolwire: the connection to the host at http:\/\/127\.0\.0\.1:\d+ broke during the call \(\w+\): its outcome is unknown, the tool may have run\n$/,
    );
    expect(JSON.parse(call.out)).toEqual({
      ok: false,
      error: {
        code: 'outcome_unknown',
        message: 'The connection to the host broke during the call; the tool may have run.',
      },
    });
    const batch = await cli(['batch', batchFile], at(url));
    expect(batch.code).toBe(4);
    expect(batch.err).toContain('broke during the batch');
    const sessions = await cli(['sessions'], at(url));
    expect(sessions.code).toBe(3);
    expect(sessions.err).toMatch(/^toolwire: the host at \S+ closed the connection \(\w+\)\n$/);
    // The same failure for mcp --attach: not retryable where a tool may have run.
    await expect(
      controlRequest({ url, token: 'x' }, '/v1/call', { toolId: 'demo.echo' }),
    ).rejects.toMatchObject({ code: 'tool_transport_closed', retryable: false });
    await expect(controlRequest({ url, token: 'x' }, '/v1/sessions')).rejects.toMatchObject({
      code: 'tool_transport_closed',
      retryable: true,
    });
  });

  it('an answer that is not the control API: exit 3, and tool_protocol_bridge_failed', async () => {
    const { env } = await realHost();
    expect((await cli(['sessions'], env)).code).toBe(0);
    const url = await listen(
      createHttpServer((_, response) => {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end('<html>a web server</html>');
      }),
    );
    expect(await cli(['sessions'], at(url))).toEqual({
      code: 3,
      out: '',
      err: `toolwire: ${url} is not a toolwire host\n`,
    });
    await expect(controlRequest({ url, token: 'x' }, '/v1/sessions')).rejects.toMatchObject({
      code: 'tool_protocol_bridge_failed',
      message: `${url} is not a toolwire host`,
    });
  });

  it("the host's own refusal: exit 3 for a wrong secret, its code for controlRequest", async () => {
    const { env, target } = await realHost();
    expect((await cli(['sessions'], env)).code).toBe(0);
    expect(
      await cli(['sessions'], {
        TOOLWIRE_HOST: target.url,
        TOOLWIRE_CONTROL_TOKEN: 'wrong-secret-0123456789',
      }),
    ).toEqual({
      code: 3,
      out: '',
      err: `toolwire: the host at ${target.url} refused us: Wrong or missing token.\n`,
    });
    await expect(
      controlRequest({ url: target.url, token: 'wrong' }, '/v1/sessions'),
    ).rejects.toMatchObject({ code: 'unauthorized', retryable: false });
  });

  it('an aborted request rejects with the abort reason, nothing else', async () => {
    const { target } = await realHost();
    // In front of the host, a relay that says when the request has arrived: the abort comes
    // while the long poll is in flight (it waits for a change that never comes).
    const arrived = latch();
    const url = await listen(
      tcpRelay(Number(new URL(target.url).port), (client) => {
        client.once('data', () => arrived.open());
      }).server,
    );
    const stop = new AbortController();
    const poll = controlRequest(
      { url, token: target.token },
      '/v1/changes?after=1000000',
      undefined,
      { signal: stop.signal },
    );
    const reason = new Error('stopped by the test');
    await arrived.wait;
    stop.abort(reason);
    await expect(poll).rejects.toBe(reason);
  });
});

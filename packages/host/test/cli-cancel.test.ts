import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BridgeTool } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { runCommand } from '../src/index.js';
import { CliProcess, captureIo, cli, hostInProcess, RAW_CONTROL, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// `toolwire call` and `toolwire batch`: Ctrl-C cancels at the page (exit 130), a second one
// quits at once, `--timeout` travels with the call, and a call that runs over a second shows
// the page's progress on stderr, terminal-safe.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A tool that runs until its signal aborts (or 10 s), noting its start and why it stopped. */
function waiting(id: string, stops: unknown[], started: string[]): BridgeTool {
  return tool(
    id,
    (_, context) =>
      new Promise((resolve, reject) => {
        started.push(id);
        const timer = setTimeout(() => resolve('waited'), 10_000);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          stops.push(context.signal.reason);
          reject(context.signal.reason);
        });
      }),
  );
}

/** `toolwire host` in-process with a page holding `demo.echo` and `slow.tool`. */
async function hostWithPage() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-cli-cancel-'), 'host.json') };
  const host = await hostInProcess(env, ['-q']);
  cleanup.push(() => host.stop());
  const stops: unknown[] = [];
  const started: string[] = [];
  const page = await FakePage.connect(host.url, {
    tools: [tool('demo.echo'), waiting('slow.tool', stops, started)],
  });
  cleanup.push(() => page.socket.terminate());
  await until(() => host.err().includes('catalog tools') || page.requests('tool.query').length > 1);
  return { env, page, stops, started };
}

/**
 * A stand-in for a host's control API (TOOLWIRE_HOST): `answer` answers a request, or holds it
 * by doing nothing. Every request is noted with its body, and whether its connection closed.
 */
async function fakeControl(answer: (path: string, response: ServerResponse) => void) {
  const seen: { path: string; body: any; closed: boolean }[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const entry = {
        path: request.url ?? '',
        body: text ? JSON.parse(text) : null,
        closed: false,
      };
      seen.push(entry);
      response.once('close', () => {
        entry.closed = true;
      });
      answer(entry.path, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { env: { TOOLWIRE_HOST: url, TOOLWIRE_CONTROL_TOKEN: 'fake-control-secret' }, seen };
}

describe('Ctrl-C during toolwire call / batch', () => {
  it("SIGINT to a running `toolwire call` cancels the page's tool; exit 130", async () => {
    const { env, page, stops, started } = await hostWithPage();
    // The honest path first: a call that is not interrupted prints its result, exit 0.
    expect(await cli(['call', 'demo.echo', '--args', '{"a":1}'], env)).toMatchObject({ code: 0 });
    const arrived = page.next('tool.call');
    const run = new CliProcess(['call', 'slow.tool', '--json'], env);
    cleanup.push(() => run.kill('SIGKILL'));
    const call = await Promise.race([
      arrived,
      run.exited.then((exit) => {
        throw new Error(`toolwire call exited (${exit.code}) before calling: ${exit.err}`);
      }),
    ]);
    await until(() => started.includes('slow.tool')); // the tool runs
    run.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.err).toContain('cancelling the call (Ctrl-C again to quit at once)');
    expect(exit.err).toMatch(/toolwire: tool_call_cancelled: /);
    expect(JSON.parse(exit.out)).toMatchObject({
      ok: false,
      error: { code: 'tool_call_cancelled', retryable: false },
    });
    expect(exit.code).toBe(130);
    const cancel = await until(() => page.requests('session.cancel')[0]);
    expect(cancel.payload).toMatchObject({ requestId: call.id });
    await until(() => stops.length === 1);
    expect(stops[0]).toMatchObject({ code: 'tool_call_cancelled' });
  }, 120_000);

  it('Ctrl-C on a batch cancels it at the page: the coded outcome, exit 130', async () => {
    const { env, page } = await hostWithPage();
    const file = join(env.TOOLWIRE_STATE, '..', 'batch.json');
    writeFileSync(file, JSON.stringify([{ toolId: 'demo.echo' }, { toolId: 'slow.tool' }]));
    const run = captureIo(env);
    const exit = runCommand(['batch', file], run.io);
    const batch = await until(() => page.requests('tool.batch')[0]);
    run.interrupt();
    expect(await exit).toBe(130);
    expect(run.err()).toMatch(/toolwire: tool_call_cancelled: /);
    const cancel = await until(() => page.requests('session.cancel')[0]);
    expect(cancel.payload).toMatchObject({ requestId: batch.id });
  });

  it('a second Ctrl-C quits at once when the host does not answer the first', async () => {
    const control = await fakeControl(() => {}); // answers nothing, ever
    const run = captureIo(control.env);
    const exit = runCommand(['call', 'slow.tool'], run.io);
    const sent = await until(() => control.seen.find((one) => one.path === '/v1/call'));
    expect(sent.body).toMatchObject({ toolId: 'slow.tool', cancelKey: expect.any(String) });
    run.interrupt();
    const cancel = await until(() => control.seen.find((one) => one.path === '/v1/cancel'));
    expect(cancel.body).toEqual({ cancelKey: sent.body.cancelKey });
    run.interrupt();
    expect(await exit).toBe(130);
    expect(run.err()).toMatch(/tool_call_cancelled: quit at once/);
    // The call's connection is closed: a host that cancels on a closed connection does.
    await until(() => sent.closed);
  });

  it('a host that cannot be asked to cancel (no /v1/cancel): its connection is closed, exit 130', async () => {
    const control = await fakeControl((path, response) => {
      if (path !== '/v1/cancel') return; // the call: held
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ ok: false, error: { code: 'not_found', message: 'No.' } }));
    });
    const run = captureIo(control.env);
    const exit = runCommand(['call', 'slow.tool'], run.io);
    const sent = await until(() => control.seen.find((one) => one.path === '/v1/call'));
    run.interrupt();
    expect(await exit).toBe(130);
    expect(run.err()).toMatch(/tool_call_cancelled: the host could not be asked/);
    await until(() => sent.closed);
  });
});

describe('toolwire call --timeout', () => {
  it("travels to the page; without it, the host's deadline (60 s)", async () => {
    const { env, page } = await hostWithPage();
    expect((await cli(['call', 'demo.echo', '--timeout', '1234'], env)).code).toBe(0);
    expect((await cli(['call', 'demo.echo'], env)).code).toBe(0);
    expect(page.requests('tool.call').map((call) => call.payload.timeoutMs)).toEqual([
      1234, 60_000,
    ]);
  });

  it('is a whole number of ms, 1 or more', async () => {
    for (const value of ['0', '-1', '1.5', 'soon']) {
      const run = await cli(['call', 'demo.echo', `--timeout=${value}`], {});
      expect(run.code).toBe(2);
      expect(run.err).toContain('--timeout needs a whole number of milliseconds');
    }
  });
});

describe("the page's progress on stderr", () => {
  it('shows after a second, terminal-safe; a quick call shows none', async () => {
    let release: (() => void) | undefined;
    const control = await fakeControl((path, response) => {
      if (path !== '/v1/call') return;
      response.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8' });
      response.write(
        `${JSON.stringify({ progress: { progress: 1, total: 3, message: 'one' } })}\n`,
      );
      response.write(
        `${JSON.stringify({
          progress: { progress: 2, total: 3, message: 'two\x1b]0;owned\x07\n\u009b2J' },
        })}\n`,
      );
      release = () =>
        response.end(`${JSON.stringify({ ok: true, session: 's', result: { result: 'done' } })}\n`);
    });
    const run = captureIo(control.env);
    const exit = runCommand(['call', 'slow.tool'], run.io);
    const sent = await until(() => control.seen.find((one) => one.path === '/v1/call'));
    expect(sent.body.progress).toBe(true);
    // The latest report, once the call has run a second; the page's controls made visible.
    await until(() => run.err().includes('progress 2/3'));
    expect(run.err()).not.toContain('progress 1/3');
    expect(run.err()).not.toMatch(RAW_CONTROL);
    expect(run.err()).toBe('progress 2/3 two\\x1b]0;owned\\x07 \\u009b2J\n');
    release?.();
    expect(await exit).toBe(0);
    expect(run.out()).toBe('done\n');
  });
});

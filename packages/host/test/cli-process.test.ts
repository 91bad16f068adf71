import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliProcess, PAGE_TOKEN, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// Issue 13 part 9, the CLI's side, with real processes: `toolwire host` and each client command
// run as processes of their own, a Node `ws` client as the page, whose `slow.tool` never
// answers. The host is then killed (SIGKILL: the CLI cannot know whether the tool ran) or
// stopped (SIGTERM: the host fails the call itself, and that answer reaches the CLI).

const children: CliProcess[] = [];
const pages: FakePage[] = [];
afterEach(() => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function startHost() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-proc-'), 'host.json') };
  const host = new CliProcess(
    ['host', '--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*'],
    env,
  );
  children.push(host);
  // The connect line comes after the control API's.
  const url = (await host.errMatching(/url: '([^']+)'/))[1] as string;
  const page = await FakePage.connect(url, {
    tools: [tool('demo.echo'), tool('slow.tool', () => new Promise(() => {}))],
  });
  pages.push(page);
  await host.errMatching(/catalog tools/);
  // The honest path first: a call through this host works.
  const honest = await cliProcess(['call', 'demo.echo', '--args', '{"n":1}'], env);
  expect(honest).toMatchObject({ code: 0, out: '{\n  "n": 1\n}\n', err: '' });
  return { env, host, page };
}

/**
 * Starts `toolwire ARGS` and waits until the page has the request it made (or fails with the
 * process's output if it exits first). No clock: a process starts as slowly as the machine is.
 */
async function pending(args: string[], env: Record<string, string>, page: FakePage, type: string) {
  const arrived = page.next(type);
  const run = new CliProcess(args, env);
  children.push(run);
  await Promise.race([
    arrived,
    run.exited.then((exit) => {
      throw new Error(`toolwire ${args[0]} exited (${exit.code}) before sending: ${exit.err}`);
    }),
  ]);
  return run;
}

// Each test starts five processes of Node compiling the CLI from source: on a loaded machine
// that alone can take tens of seconds, so their bounds are generous.
describe('toolwire processes when the host goes away mid-call', () => {
  it('SIGKILL: the outcome is unknown (exit 4, one line); refused before sending stays exit 3', async () => {
    const { env, host, page } = await startHost();
    const call = await pending(['call', 'slow.tool', '--args', '{"n":2}'], env, page, 'tool.call');
    const batch = await pending(['batch', batchFile(env), '--json'], env, page, 'tool.batch');
    host.kill('SIGKILL');
    const called = await call.exited;
    expect(called).toMatchObject({ code: 4, out: '' });
    expect(called.err).toMatch(
      /^toolwire: the connection to the host at http:\/\/127\.0\.0\.1:\d+ broke during the call \([^)\n]+\): its outcome is unknown, the tool may have run\n$/,
    );
    const batched = await batch.exited;
    expect(batched.code).toBe(4);
    expect(JSON.parse(batched.out)).toMatchObject({
      ok: false,
      error: { code: 'outcome_unknown' },
    });
    expect(batched.err).toMatch(/broke during the batch .*its outcome is unknown/);
    // Nothing listens now (the state file outlived the host): refused before sending.
    const refused = await cliProcess(['call', 'slow.tool'], env);
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/^toolwire: no toolwire host answers at http:\/\/127\.0\.0\.1:\d+/);
  }, 180_000);

  it('SIGTERM: pending calls fail with tool_transport_closed (exit 1) before the control API closes', async () => {
    const { env, host, page } = await startHost();
    const call = await pending(['call', 'slow.tool'], env, page, 'tool.call');
    const json = await pending(['call', 'slow.tool', '--json'], env, page, 'tool.call');
    const batch = await pending(['batch', batchFile(env)], env, page, 'tool.batch');
    host.kill('SIGTERM');
    const called = await call.exited;
    expect(called).toMatchObject({ code: 1, out: '' });
    expect(called.err).toMatch(/^toolwire: tool_transport_closed: [^\n]+\n$/);
    const jsoned = await json.exited;
    expect(jsoned.code).toBe(1);
    expect(JSON.parse(jsoned.out).error.code).toBe('tool_transport_closed');
    const batched = await batch.exited;
    expect(batched.code).toBe(1);
    expect(batched.err).toMatch(/^toolwire: tool_transport_closed: /);
    expect((await host.exited).code).toBe(0);
    expect(existsSync(env.TOOLWIRE_STATE)).toBe(false);
  }, 180_000);
});

/** A batch whose second call never answers. */
function batchFile(env: Record<string, string>): string {
  const file = join(env.TOOLWIRE_STATE as string, '..', 'batch.json');
  writeFileSync(
    file,
    JSON.stringify([{ toolId: 'demo.echo', arguments: { n: 1 } }, { toolId: 'slow.tool' }]),
  );
  return file;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, cliProcess, type Exited, PAGE_TOKEN, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// Two `toolwire host` processes for one user and one state file: the second never takes the
// file of a live first, its exit never removes that file, a dead host's file is taken over, and
// of two started at once exactly one publishes. Real processes, a Node `ws` client as the page.

const children: CliProcess[] = [];
const pages: FakePage[] = [];
afterEach(() => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const HOST_ARGS = ['host', '--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*'];

function stateEnv(): { TOOLWIRE_STATE: string } {
  return { TOOLWIRE_STATE: join(tempDir('toolwire-two-'), 'host.json') };
}

function spawnHost(env: Record<string, string>): CliProcess {
  const host = new CliProcess(HOST_ARGS, env);
  children.push(host);
  return host;
}

/** A host that published its state, with a page whose one tool is `toolId`. */
async function publishedHost(env: Record<string, string>, toolId: string) {
  const host = spawnHost(env);
  await host.errMatching(/control API on /);
  const url = (await host.errMatching(/url: '([^']+)'/))[1] as string;
  const page = await FakePage.connect(url, { tools: [tool(toolId)] });
  pages.push(page);
  await host.errMatching(/catalog tools/);
  return host;
}

const fileOf = (env: Record<string, string>) =>
  JSON.parse(readFileSync(env.TOOLWIRE_STATE as string, 'utf8')) as { pid: number; runId: string };

/** `toolwire call TOOL`: which host the CLI reaches is the one whose page has TOOL. */
async function reaches(env: Record<string, string>, toolId: string): Promise<void> {
  const called = await cliProcess(['call', toolId, '--args', '{"n":1}'], env);
  expect(called).toMatchObject({ code: 0, out: '{\n  "n": 1\n}\n', err: '' });
}

const REFUSED =
  /^toolwire host: a toolwire host already runs \(pid (\d+), pages at ws:\/\/127\.0\.0\.1:\d+\/toolwire, control API http:\/\/127\.0\.0\.1:\d+, state in [^)]+\): the toolwire commands reach that one \(toolwire sessions; toolwire pair --page URL for a pairing link\); for a second host, give it a state file of its own \(TOOLWIRE_STATE=PATH\)\n$/;

// Each test starts several processes of Node compiling the CLI from source: generous bounds.
describe('two toolwire hosts, one state file', () => {
  it('a second host while the first runs does not take the file, and its exit leaves it', async () => {
    const env = stateEnv();
    const first = await publishedHost(env, 'first.echo');
    // The honest path: one host, and the CLI finds it.
    await reaches(env, 'first.echo');
    const published = fileOf(env);
    expect(published.pid).toBe(first.child.pid);

    const second = spawnHost(env);
    // Refused, it exits; were it to publish, it is stopped, so its exit is part of the test.
    const secondPublished = await Promise.race([
      second.errMatching(/control API on /).then(() => true),
      second.exited.then(() => false),
    ]);
    if (secondPublished) second.kill('SIGTERM');
    const exit = await second.exited;
    expect(secondPublished).toBe(false);
    expect(exit.code).toBe(1);
    expect(exit.err).toMatch(REFUSED);
    expect(REFUSED.exec(exit.err)?.[1]).toBe(String(first.child.pid));
    // The second has exited: the first's file is still there, unchanged, and the CLI reaches it.
    expect(fileOf(env)).toEqual(published);
    await reaches(env, 'first.echo');
    expect(first.child.exitCode).toBeNull();
  }, 180_000);

  it('a host killed with SIGKILL leaves a stale file, which the next host takes over', async () => {
    const env = stateEnv();
    const first = await publishedHost(env, 'first.echo');
    await reaches(env, 'first.echo');
    const stale = fileOf(env);
    first.kill('SIGKILL');
    await first.exited;
    expect(fileOf(env)).toEqual(stale); // nobody removed it

    const next = await publishedHost(env, 'next.echo');
    expect(fileOf(env).pid).toBe(next.child.pid);
    expect(fileOf(env).runId).not.toBe(stale.runId);
    await reaches(env, 'next.echo');
  }, 180_000);

  it('of two hosts started at once, exactly one publishes and the other says why', async () => {
    const env = stateEnv();
    const both = [spawnHost(env), spawnHost(env)];
    // Each either publishes (its control API line) or exits.
    const outcomes = await Promise.all(
      both.map((host) =>
        host.errMatching(/control API on /).then(
          () => 'published' as const,
          () => host.exited,
        ),
      ),
    );
    const winners = both.filter((_, index) => outcomes[index] === 'published');
    expect(winners).toHaveLength(1);
    const loser = outcomes.find((outcome) => outcome !== 'published') as Exited;
    expect(loser.code).toBe(1);
    expect(loser.err).toMatch(/a toolwire host already runs \(pid \d+, /);
    const winner = winners[0] as CliProcess;
    expect(fileOf(env).pid).toBe(winner.child.pid);
    const url = (await winner.errMatching(/url: '([^']+)'/))[1] as string;
    pages.push(await FakePage.connect(url, { tools: [tool('winner.echo')] }));
    await winner.errMatching(/catalog tools/);
    await reaches(env, 'winner.echo');
  }, 180_000);

  it("a host's orderly exit (SIGTERM) still removes its own file", async () => {
    const env = stateEnv();
    const first = await publishedHost(env, 'first.echo');
    await reaches(env, 'first.echo');
    first.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(() => fileOf(env)).toThrow(/ENOENT/);
  }, 180_000);
});

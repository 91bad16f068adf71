import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ControlState,
  claimControlState,
  controlStatePath,
  HostRunningError,
  readControlState,
  removeControlState,
  writeControlState,
} from '../src/internal.js';
import { cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// The state file tells `toolwire call` where to send arguments, and with which secret: it is
// trusted only when it is ours (issue 13 part 5). Owner checks need a second uid: CI runs as
// root, which can chown to `nobody` (65534).

const asRoot = process.getuid?.() === 0;
const OTHER_UID = 65534;
const uid = process.getuid?.() ?? 0;

const state = (port = 1): ControlState => ({
  pid: process.pid,
  controlUrl: `http://127.0.0.1:${port}`,
  port,
  token: 'a-control-secret-of-the-test',
});

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** An HTTP server that records what reaches it (the attacker's, in the planted-file tests). */
async function listener(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization} ${body}`);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ ok: true, sessions: [], result: { result: 'stolen' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('the state file is read only when it can be trusted', () => {
  it('a genuine file (ours, 0600) reads back; mode 0644 is refused in one line, exit 3', async () => {
    const path = join(tempDir('toolwire-state-'), 'host.json');
    writeControlState(path, state());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readControlState(path)).toEqual(state());
    chmodSync(path, 0o644);
    expect(() => readControlState(path)).toThrow(
      `refusing the state file ${path}: mode 0644, not 0600`,
    );
    const run = await cli(['sessions'], { TOOLWIRE_STATE: path });
    expect(run).toEqual({
      code: 3,
      out: '',
      err: `toolwire: refusing the state file ${path}: mode 0644, not 0600\n`,
    });
    const json = await cli(['sessions', '--json'], { TOOLWIRE_STATE: path });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.out).error.code).toBe('no_host');
  });

  it.skipIf(!asRoot)('a file owned by another uid is refused, even 0600', async () => {
    const path = join(tempDir('toolwire-state-'), 'host.json');
    writeControlState(path, state());
    expect(readControlState(path)).toEqual(state());
    chownSync(path, OTHER_UID, OTHER_UID);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const line = `refusing the state file ${path}: owned by uid ${OTHER_UID}, not ${uid}`;
    expect(() => readControlState(path)).toThrow(line);
    expect(await cli(['tools'], { TOOLWIRE_STATE: path })).toEqual({
      code: 3,
      out: '',
      err: `toolwire: ${line}\n`,
    });
  });

  it('a symbolic link is refused, though it points at a genuine file', async () => {
    const dir = tempDir('toolwire-state-');
    const genuine = join(dir, 'genuine.json');
    writeControlState(genuine, state());
    expect(readControlState(genuine)).toEqual(state());
    const link = join(dir, 'host.json');
    symlinkSync(genuine, link);
    const line = `refusing the state file ${link}: a symbolic link`;
    expect(() => readControlState(link)).toThrow(line);
    expect((await cli(['call', 'x'], { TOOLWIRE_STATE: link })).err).toBe(`toolwire: ${line}\n`);
  });

  it('a FIFO, a directory or another file are refused without hanging', async () => {
    const dir = tempDir('toolwire-state-');
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    expect(() => readControlState(fifo)).toThrow(`${fifo}: not a regular file`);
    expect(() => readControlState(dir)).toThrow(`${dir}: not a regular file`);
    const other = join(dir, 'other.json');
    writeFileSync(other, '{"hello": "world"}', { mode: 0o600 });
    expect(() => readControlState(other)).toThrow(`${other}: not a toolwire state file`);
    expect(readControlState(join(dir, 'absent.json'))).toBeUndefined();
  });

  it('a failed write removes its temporary file', () => {
    const dir = tempDir('toolwire-state-');
    writeControlState(join(dir, 'fine.json'), state());
    expect(readdirSync(dir)).toEqual(['fine.json']);
    // A directory where the file should go: the rename into place fails.
    const blocked = join(dir, 'blocked.json');
    mkdirSync(blocked);
    expect(() => writeControlState(blocked, state())).toThrow(/EISDIR|ENOTEMPTY|EEXIST|EPERM/);
    expect(readdirSync(dir).sort()).toEqual(['blocked.json', 'fine.json']);
  });
});

describe('one host per state file: claimed under a lock, removed only by its own run', () => {
  it('a claim over a live host fails naming it; over a dead one it takes the file', async () => {
    const path = join(tempDir('toolwire-claim-'), 'host.json');
    const mine = { ...state(1), runId: 'run-one' };
    // The honest path: no file, the claim writes it 0600.
    await claimControlState(path, mine, async () => true);
    expect(readControlState(path)).toEqual(mine);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const other = { ...state(2), runId: 'run-two' };
    await expect(claimControlState(path, other, async () => true)).rejects.toThrow(
      HostRunningError,
    );
    expect(readControlState(path)).toEqual(mine);
    await claimControlState(path, other, async () => false);
    expect(readControlState(path)).toEqual(other);
    expect(readdirSync(join(path, '..')).sort()).toEqual(['host.json']); // no lock, no temp left
  });

  it("a run removes the file only while it holds that run's id, whatever the pid", () => {
    const path = join(tempDir('toolwire-claim-'), 'host.json');
    writeControlState(path, { ...state(1), runId: 'the-running-one' });
    removeControlState(path, { runId: 'an-earlier-one' }); // same pid, another run
    expect(readControlState(path)?.runId).toBe('the-running-one');
    removeControlState(path, { runId: 'the-running-one' });
    expect(readControlState(path)).toBeUndefined();
  });

  it('two in-process hosts on one state file: the second is refused, one line, exit 1', async () => {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-claim-'), 'host.json') };
    const first = await hostInProcess(env);
    cleanup.push(() => first.stop());
    const published = readControlState(env.TOOLWIRE_STATE);
    expect((await cli(['sessions', '--json'], env)).code).toBe(0);
    const second = await cli(['host', '--port', '0', '--allow-origin', '*'], env);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/^toolwire host: a toolwire host already runs \(pid \d+, [^\n]+\n$/);
    expect(readControlState(env.TOOLWIRE_STATE)).toEqual(published);
    expect((await cli(['sessions', '--json'], env)).code).toBe(0);
  });
});

describe('without XDG_RUNTIME_DIR: a private directory, never the shared temp folder', () => {
  it('the host makes $TMPDIR/toolwire-<uid> 0700 and the client finds it there', async () => {
    const tmp = tempDir('toolwire-tmp-');
    const env = { TMPDIR: tmp };
    const path = controlStatePath(env);
    expect(path).toBe(join(tmp, `toolwire-${uid}`, 'toolwire-host.json'));
    const host = await hostInProcess(env);
    cleanup.push(host.stop);
    expect(statSync(join(tmp, `toolwire-${uid}`)).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await cli(['sessions'], env)).out).toBe('no sessions: no page is connected\n');
  });

  it('a private directory that is not 0700, or a link, is refused (host and client)', async () => {
    const tmp = tempDir('toolwire-tmp-');
    const env = { TMPDIR: tmp };
    const dir = join(tmp, `toolwire-${uid}`);
    writeControlState(controlStatePath(env), state());
    expect(readControlState(controlStatePath(env))).toEqual(state());
    chmodSync(dir, 0o755);
    const line = `refusing the state directory ${dir}: mode 0755, not 0700`;
    expect(await cli(['sessions'], env)).toEqual({ code: 3, out: '', err: `toolwire: ${line}\n` });
    const host = await hostInProcess(env);
    expect(await host.exit).toBe(1);
    expect(host.err()).toContain(`toolwire: could not start the control API: ${line}\n`);

    const tmp2 = tempDir('toolwire-tmp-');
    const real = join(tmp2, 'elsewhere');
    mkdirSync(real, { mode: 0o700 });
    writeControlState(join(real, 'toolwire-host.json'), state());
    symlinkSync(real, join(tmp2, `toolwire-${uid}`));
    expect((await cli(['sessions'], { TMPDIR: tmp2 })).err).toBe(
      `toolwire: refusing the state directory ${join(tmp2, `toolwire-${uid}`)}: a symbolic link\n`,
    );
  });

  it.skipIf(!asRoot)(
    'attack: a state file planted by another user sends no call anywhere',
    async () => {
      // First the honest path: a genuine host in the private directory gets the call.
      const tmp = tempDir('toolwire-tmp-');
      chmodSync(tmp, 0o1777); // a shared temp folder, as /tmp is
      const env = { TMPDIR: tmp };
      const host = await hostInProcess(env);
      cleanup.push(host.stop);
      const page = await FakePage.connect(host.url, { tools: [tool('demo.echo')] });
      cleanup.push(() => page.socket.terminate());
      const honest = await cli(['call', 'demo.echo', '--args', '{"secret":"s3cret"}'], env);
      expect(honest).toMatchObject({ code: 0, out: '{\n  "secret": "s3cret"\n}\n' });
      expect(page.requests('tool.call')).toHaveLength(1);
      await host.stop();

      // The attacker (another uid) plants state files pointing at a server of theirs: where
      // toolwire used to look ($TMPDIR/toolwire-host-<uid>.json), and a private directory of
      // their own making where it looks now.
      const attacker = await listener();
      const planted = JSON.stringify({ ...state(), controlUrl: attacker.url });
      const old = join(tmp, `toolwire-host-${uid}.json`);
      writeFileSync(old, planted, { mode: 0o644 });
      chownSync(old, OTHER_UID, OTHER_UID);
      const gone = await cli(['call', 'demo.echo', '--args', '{"secret":"s3cret"}'], env);
      expect(gone).toEqual({
        code: 3,
        out: '',
        err: 'toolwire: no toolwire host is running (start one with "toolwire host", or set TOOLWIRE_HOST)\n',
      });

      const tmp2 = tempDir('toolwire-tmp-');
      chmodSync(tmp2, 0o1777);
      const theirs = join(tmp2, `toolwire-${uid}`);
      mkdirSync(theirs, { mode: 0o700 });
      const file = join(theirs, 'toolwire-host.json');
      writeFileSync(file, planted, { mode: 0o600 });
      chownSync(file, OTHER_UID, OTHER_UID);
      chownSync(theirs, OTHER_UID, OTHER_UID);
      const refused = await cli(['call', 'demo.echo', '--args', '{"secret":"s3cret"}'], {
        TMPDIR: tmp2,
      });
      expect(refused).toEqual({
        code: 3,
        out: '',
        err: `toolwire: refusing the state directory ${theirs}: owned by uid ${OTHER_UID}, not ${uid}\n`,
      });
      // Nor does a host write its secret into their directory.
      const hostThere = await hostInProcess({ TMPDIR: tmp2 });
      expect(await hostThere.exit).toBe(1);
      expect(readdirSync(theirs)).toEqual(['toolwire-host.json']);
      expect(attacker.seen).toEqual([]);
    },
  );
});

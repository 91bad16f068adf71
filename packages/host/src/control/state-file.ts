/**
 * The state file: how `toolwire sessions|tools|call|batch` (and `mcp --attach`) find a running
 * `toolwire host`.
 *
 * 1. `{pid, controlUrl, port, token}` (the token is the control secret), written 0600 by the
 *    host and removed when that host exits.
 * 2. `$TOOLWIRE_STATE`, else `$XDG_RUNTIME_DIR/toolwire-host.json`, else a private directory,
 *    `$TMPDIR/toolwire-<uid>`, which must be ours, mode 0700, and not a link. Readers also look
 *    at the other of those two places (controlStatePaths), for an environment without XDG.
 * 3. It is trusted only when it is a regular file of ours, mode 0600, read through a descriptor
 *    opened without following links; anything else is refused with one line (StateFileError).
 * 4. One host per file (claimControlState): a host claims the file under a lock (`PATH.lock`,
 *    made with O_EXCL), and only when no file is there or the one there is stale (its control
 *    API does not answer with its secret). A live host's file is never replaced: the claim fails
 *    with HostRunningError. The file itself is put in place with link(2), which fails when a
 *    file is there, so two claims never both succeed.
 * 5. Each run writes a random `runId`; on exit a host removes the file only when it still holds
 *    that id (removeControlState), never the file of a host that took over after it.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isPlainObject } from '@toolwire/protocol';
import { errnoText } from '../shared/errors.js';

/** What the state file holds. */
export interface ControlState {
  pid: number;
  /** `http://127.0.0.1:PORT` */
  controlUrl: string;
  port: number;
  /** The control API's secret (never the page token). */
  token: string;
  /** Random per run: whose file this is, for removal on exit (header 5). */
  runId?: string;
  /** The page WebSocket address, without any secret: what a busy port's message names. */
  address?: string;
  /** Where the host serves MCP over Streamable HTTP (no secret); absent when it does not. */
  mcpUrl?: string;
}

/** "pid 12, pages at ws://127.0.0.1:45124/toolwire, control API http://..., state in PATH". */
export function describeRunning(path: string, running: ControlState): string {
  const pages = typeof running.address === 'string' ? `, pages at ${running.address}` : '';
  return `pid ${running.pid}${pages}, control API ${running.controlUrl}, state in ${path}`;
}

/** The claim found a live host in the file (header 4): `running` is what the file says. */
export class HostRunningError extends Error {
  override name = 'HostRunningError';
  constructor(
    readonly path: string,
    readonly running: ControlState,
  ) {
    super(
      `a toolwire host already runs (${describeRunning(path, running)}): the toolwire commands reach that one (toolwire sessions; toolwire pair --page URL for a pairing link); for a second host, give it a state file of its own (TOOLWIRE_STATE=PATH)`,
    );
  }
}

/** A new random run id for a host's state file. */
export function newRunId(): string {
  return randomBytes(12).toString('base64url');
}

/** A state file or directory that cannot be trusted (or read): `message` is the one line. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** `$TMPDIR` from `env` (so a caller's environment decides), else the OS temp dir. */
function tempRoot(env: Record<string, string | undefined>): string {
  const given = env.TMPDIR;
  return given ? given.replace(/(.)\/+$/, '$1') : tmpdir();
}

/** The private directory for the state file without XDG_RUNTIME_DIR: `$TMPDIR/toolwire-<uid>`. */
function privateStateDir(env: Record<string, string | undefined> = process.env): string {
  return join(tempRoot(env), `toolwire-${currentUid() ?? 'user'}`);
}

/**
 * `$TOOLWIRE_STATE`, else `$XDG_RUNTIME_DIR/toolwire-host.json`, else `toolwire-host.json` in
 * privateStateDir(). Never a file straight in the shared temp folder: anyone can plant one there.
 */
export function controlStatePath(env: Record<string, string | undefined> = process.env): string {
  if (env.TOOLWIRE_STATE) return env.TOOLWIRE_STATE;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'toolwire-host.json');
  return join(privateStateDir(env), 'toolwire-host.json');
}

/**
 * Where a running host's state file may be, `controlStatePath(env)` first. A program an MCP
 * client launches often gets a pared-down environment (no XDG_RUNTIME_DIR, no TMPDIR), so the
 * host a terminal started may have written its file at the other conventional place: the
 * private temp directory, or the systemd runtime directory `/run/user/<uid>`.
 * `$TOOLWIRE_STATE` names the one place.
 */
export function controlStatePaths(env: Record<string, string | undefined> = process.env): string[] {
  const first = controlStatePath(env);
  if (env.TOOLWIRE_STATE) return [first];
  const uid = currentUid();
  const others = env.XDG_RUNTIME_DIR
    ? [join(privateStateDir(env), 'toolwire-host.json')]
    : uid === undefined
      ? []
      : [join('/run/user', String(uid), 'toolwire-host.json')];
  return [...new Set([first, ...others])];
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** Why a directory is not ours alone (undefined: it is): a link, not ours, or not mode 0700. */
function distrustDirectory(stat: Stats): string | undefined {
  const uid = currentUid();
  return stat.isSymbolicLink()
    ? 'a symbolic link'
    : !stat.isDirectory()
      ? 'not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `owned by uid ${stat.uid}, not ${uid}`
        : uid !== undefined && (stat.mode & 0o777) !== 0o700
          ? `mode ${octal(stat.mode)}, not 0700`
          : undefined;
}

/**
 * A private directory (`what` names it in errors) must be a real directory of ours, mode 0700.
 * `create`: make it (0700, and its missing parents) when missing. Returns false when missing.
 */
export function checkOwnDirectory(dir: string, create: boolean, what: string): boolean {
  if (create) {
    try {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o700); // ours, just made: the umask may have narrowed it
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StateFileError(`cannot make ${what} ${dir}: ${errnoText(error)}`);
      }
    }
  }
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StateFileError(`cannot read ${what} ${dir}: ${errnoText(error)}`);
  }
  const reason = distrustDirectory(stat);
  if (reason) throw new StateFileError(`refusing ${what} ${dir}: ${reason}`);
  return true;
}

/**
 * A directory named like the private one (`toolwire-<uid>`) must be a real directory of ours,
 * mode 0700. `create`: make it (0700) when missing. Returns false when missing (no host).
 */
function checkPrivateDir(dir: string, create: boolean): boolean {
  if (basename(dir) !== `toolwire-${currentUid() ?? 'user'}`) return true;
  return checkOwnDirectory(dir, create, 'the state directory');
}

/** Why an opened state file is not to be trusted (undefined: it is). */
function distrust(stat: Stats): string | undefined {
  const uid = currentUid();
  if (!stat.isFile()) return 'not a regular file';
  if (uid === undefined) return undefined; // no owners or modes to check (Windows)
  if (stat.uid !== uid) return `owned by uid ${stat.uid}, not ${uid}`;
  if ((stat.mode & 0o077) !== 0) return `mode ${octal(stat.mode)}, not 0600`;
  return undefined;
}

/**
 * Writes `text` to `path`, 0600: a new file (O_EXCL, so never through a planted link) renamed
 * into place, or with `exclusive`, linked into place (EEXIST when a file is there: nothing is
 * replaced). A failed write removes its temporary file. The directory is the caller's to check.
 */
export function writePrivateFile(
  path: string,
  text: string,
  options: { exclusive?: boolean } = {},
): void {
  const temporary = join(dirname(path), `.toolwire-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      fchmodSync(fd, 0o600); // the umask narrows a mode, never widens it; be exact anyway
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    if (options.exclusive) {
      linkSync(temporary, path);
      rmSync(temporary, { force: true });
    } else {
      renameSync(temporary, path);
    }
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes the state file 0600 (writePrivateFile), its private directory made when missing. */
export function writeControlState(
  path: string,
  state: ControlState,
  options: { exclusive?: boolean } = {},
): void {
  checkPrivateDir(dirname(path), true);
  writePrivateFile(path, `${JSON.stringify(state, null, 2)}\n`, options);
}

/** How long a claim waits for another's lock before giving up. */
const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a process that died while claiming: it is removed. */
const LOCK_STALE_MS = 30_000;
/** How often a waiting claim looks at the lock again. */
const LOCK_RETRY_MS = 25;

/**
 * One attempt at the lock file `lock` (created with O_EXCL, holding this pid): `taken`, `held`
 * by another process, or `again` at once (it went meanwhile, or was older than `staleMs`, left
 * by a process that died holding it, and is removed). Throws StateFileError (`what`, the one
 * line) when it cannot be made for another reason.
 */
export function tryLock(lock: string, staleMs: number, what: string): 'taken' | 'held' | 'again' {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return 'taken';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new StateFileError(`cannot lock ${what}: ${errnoText(error)}`);
    }
  }
  let age: number;
  try {
    age = Date.now() - lstatSync(lock).mtimeMs;
  } catch {
    return 'again'; // gone meanwhile
  }
  if (age <= staleMs) return 'held';
  rmSync(lock, { force: true });
  return 'again';
}

/** Holds `PATH.lock` (created with O_EXCL) while `work` runs. */
async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const state = tryLock(lock, LOCK_STALE_MS, `the state file ${path}`);
    if (state === 'taken') break;
    if (state === 'again') continue;
    if (Date.now() > deadline) {
      throw new StateFileError(
        `another toolwire host is claiming the state file ${path} (its lock ${lock} is held)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Publishes `state` at `path` unless a live host's file is there (header 4). `isLive` asks the
 * control API a file names whether it answers with that file's secret. Throws HostRunningError
 * for a live host, StateFileError for a file not to be trusted.
 */
export async function claimControlState(
  path: string,
  state: ControlState,
  isLive: (running: ControlState) => Promise<boolean>,
): Promise<void> {
  checkPrivateDir(dirname(path), true);
  await withLock(path, async () => {
    const existing = readControlState(path);
    if (existing) {
      if (await isLive(existing)) throw new HostRunningError(path, existing);
      rmSync(path, { force: true }); // a dead host's: taken over
    }
    try {
      writeControlState(path, state, { exclusive: true });
    } catch (error) {
      // Only a claim that skipped the lock could have put a file there since.
      const there = (error as NodeJS.ErrnoException).code === 'EEXIST' && readControlState(path);
      if (there) throw new HostRunningError(path, there);
      throw error;
    }
  });
}

/**
 * The text of `path` (`what` names it in errors), or undefined when there is none. Trusted only
 * as a regular file of ours, mode 0600, opened without following links; anything else throws
 * StateFileError (one line naming the file and the reason).
 */
export function readPrivateFile(path: string, what: string): string | undefined {
  let fd: number;
  try {
    // O_NOFOLLOW: a link is refused by open itself; O_NONBLOCK: a planted FIFO cannot hang us.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new StateFileError(`refusing ${what} ${path}: a symbolic link`);
    }
    throw new StateFileError(`cannot read ${what} ${path}: ${errnoText(error)}`);
  }
  try {
    // Checked on the descriptor we read from: nothing can be swapped in between.
    const reason = distrust(fstatSync(fd));
    if (reason) throw new StateFileError(`refusing ${what} ${path}: ${reason}`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The state file at `path`, or undefined when there is none. Throws StateFileError (one line
 * naming the file and the reason) when it is there but not to be trusted or not readable.
 */
export function readControlState(path: string): ControlState | undefined {
  if (!checkPrivateDir(dirname(path), false)) return undefined;
  const text = readPrivateFile(path, 'the state file');
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (
    !isPlainObject(value) ||
    typeof value.controlUrl !== 'string' ||
    typeof value.token !== 'string'
  ) {
    throw new StateFileError(`refusing the state file ${path}: not a toolwire state file`);
  }
  return value as unknown as ControlState;
}

/**
 * Removes the state file if it is still this run's (header 5): its `runId`, or for a file
 * without one, its pid. Called while this host's control API still answers, so no other host
 * takes the file over in between (a claim takes only a file whose API is silent).
 */
export function removeControlState(
  path: string,
  owner: { runId?: string; pid?: number } = {},
): void {
  try {
    const current = readControlState(path);
    if (!current) return;
    const ours =
      owner.runId !== undefined
        ? current.runId === owner.runId
        : current.pid === (owner.pid ?? process.pid);
    if (!ours) return;
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove
  }
}

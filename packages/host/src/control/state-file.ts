/**
 * The state file: how `toolwire sessions|tools|call|batch` (and `mcp --attach`) find a running
 * `toolwire host` (issue 13 part 7).
 *
 * 1. `{pid, controlUrl, port, token}` (the token is the control secret), written 0600 by the
 *    host and removed when that host exits.
 * 2. `$TOOLWIRE_STATE`, else `$XDG_RUNTIME_DIR/toolwire-host.json`, else a private directory,
 *    `$TMPDIR/toolwire-<uid>`, which must be ours, mode 0700, and not a link. Readers also look
 *    at the other of those two places (controlStatePaths), for an environment without XDG.
 * 3. It is trusted only when it is a regular file of ours, mode 0600, read through a descriptor
 *    opened without following links; anything else is refused with one line (StateFileError).
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
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
 * private temp directory, or the systemd runtime directory `/run/user/<uid>` (issue 15).
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

/**
 * A directory named like the private one (`toolwire-<uid>`) must be a real directory of ours,
 * mode 0700. `create`: make it (0700) when missing. Returns false when missing (no host).
 */
function checkPrivateDir(dir: string, create: boolean): boolean {
  if (basename(dir) !== `toolwire-${currentUid() ?? 'user'}`) return true;
  if (create) {
    try {
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o700); // ours, just made: the umask may have narrowed it
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StateFileError(`cannot read the state directory ${dir}: ${errnoText(error)}`);
  }
  const uid = currentUid();
  const reason = stat.isSymbolicLink()
    ? 'a symbolic link'
    : !stat.isDirectory()
      ? 'not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `owned by uid ${stat.uid}, not ${uid}`
        : uid !== undefined && (stat.mode & 0o777) !== 0o700
          ? `mode ${octal(stat.mode)}, not 0700`
          : undefined;
  if (reason) throw new StateFileError(`refusing the state directory ${dir}: ${reason}`);
  return true;
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
 * Writes the state file 0600: a new file (O_EXCL, so never through a planted link) renamed into
 * place. A failed write removes its temporary file.
 */
export function writeControlState(path: string, state: ControlState): void {
  const dir = dirname(path);
  checkPrivateDir(dir, true);
  const temporary = join(dir, `.toolwire-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      fchmodSync(fd, 0o600); // the umask narrows a mode, never widens it; be exact anyway
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The state file at `path`, or undefined when there is none. Throws StateFileError (one line
 * naming the file and the reason) when it is there but not to be trusted or not readable.
 */
export function readControlState(path: string): ControlState | undefined {
  if (!checkPrivateDir(dirname(path), false)) return undefined;
  let fd: number;
  try {
    // O_NOFOLLOW: a link is refused by open itself; O_NONBLOCK: a planted FIFO cannot hang us.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new StateFileError(`refusing the state file ${path}: a symbolic link`);
    }
    throw new StateFileError(`cannot read the state file ${path}: ${errnoText(error)}`);
  }
  let text: string;
  try {
    // Checked on the descriptor we read from: nothing can be swapped in between.
    const reason = distrust(fstatSync(fd));
    if (reason) throw new StateFileError(`refusing the state file ${path}: ${reason}`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
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

/** Removes the state file if it is still this process's. */
export function removeControlState(path: string, pid = process.pid): void {
  try {
    if (readControlState(path)?.pid !== pid) return;
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove
  }
}

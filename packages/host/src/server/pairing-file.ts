/**
 * The pairings a host keeps across runs, and the host's identity, in one private file.
 *
 * 1. Where: `$TOOLWIRE_HOME`, else `$XDG_STATE_HOME/toolwire`, else `~/.local/state/toolwire`
 *    (`%LOCALAPPDATA%\toolwire` on Windows): a directory of ours, mode 0700, holding
 *    `pairings.json`, mode 0600. Both are checked as the state file and its directory are
 *    (control/state-file.ts): a link, another owner or a mode others can use is refused with
 *    one line (StateFileError), and so is a file that does not read as a pairings file.
 * 2. What: `{version: 1, identity: {id, createdAt}, pairings: [PairingRecord...]}`. The
 *    identity's id (128 random bits, base64url) is made once and kept.
 * 3. Two hosts of one user may share the file (`toolwire host` and a `toolwire mcp` of its own):
 *    every write takes a lock (`pairings.json.lock`, O_EXCL), reads the file again, applies only
 *    its own change (one record added, replaced, touched or deleted; or all deleted) and puts
 *    the result in place atomically (a new 0600 file renamed over the old one).
 * 4. Pairings unused for PAIRING_IDLE_EXPIRY_MS (30 days) are dropped when the file is opened
 *    and on every write. `list()` never shows one; `get()` still returns one that expired while
 *    the host ran, so the host can say why the tab must pair again.
 * 5. Reads go to the file each time (another host may have revoked a pairing). A file that
 *    turns unreadable while the host runs is reported once (`onError`) and the last good
 *    contents serve meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { isPlainObject } from '@toolwire/protocol';
import {
  checkOwnDirectory,
  readPrivateFile,
  StateFileError,
  tryLock,
  writePrivateFile,
} from '../control/state-file.js';
import { errnoText } from '../shared/errors.js';
import type { PairingRecord, PairingStore } from './pairing-store.js';
import { PAIRING_IDLE_EXPIRY_MS } from './pairing-store.js';

export const PAIRINGS_FILE = 'pairings.json';

/** Who this host is across runs: a public id, made once. */
export interface HostIdentity {
  id: string;
  /** Epoch ms. */
  createdAt: number;
}

interface PairingFile {
  version: 1;
  identity?: HostIdentity;
  pairings: PairingRecord[];
}

/** Where the pairings directory is (header 1), for this environment and platform. */
export function pairingHome(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.TOOLWIRE_HOME) return env.TOOLWIRE_HOME;
  // The XDG spec: a relative path in the variable is to be ignored.
  if (env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)) {
    return join(env.XDG_STATE_HOME, 'toolwire');
  }
  if (platform === 'win32') {
    return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'toolwire');
  }
  return join(env.HOME || homedir(), '.local', 'state', 'toolwire');
}

const DIRECTORY = 'the pairings directory';
const FILE = 'the pairings file';

/** How long a writer waits for another's lock, and when a lock is taken as abandoned. */
const LOCK_WAIT_MS = 5000;
const LOCK_STALE_MS = 10_000;
const LOCK_RETRY_MS = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

function readRecord(value: unknown): PairingRecord | undefined {
  if (!isPlainObject(value)) return undefined;
  const { id, secret, origin, kind, guard, createdAt, lastSeen } = value;
  if (typeof id !== 'string' || id === '' || typeof secret !== 'string' || secret === '') {
    return undefined;
  }
  if (origin !== null && typeof origin !== 'string') return undefined;
  if (kind !== 'link' && kind !== 'extension') return undefined;
  if (guard !== undefined && typeof guard !== 'string') return undefined;
  if (!Number.isFinite(createdAt) || !Number.isFinite(lastSeen)) return undefined;
  return {
    id,
    secret,
    origin,
    kind,
    ...(guard === undefined ? {} : { guard }),
    createdAt: createdAt as number,
    lastSeen: lastSeen as number,
  };
}

/** The file's contents, or undefined when it is not a pairings file (header 2). */
function parseFile(text: string): PairingFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || value.version !== 1 || !Array.isArray(value.pairings)) {
    return undefined;
  }
  const identity = value.identity;
  if (
    identity !== undefined &&
    !(
      isPlainObject(identity) &&
      typeof identity.id === 'string' &&
      identity.id !== '' &&
      Number.isFinite(identity.createdAt)
    )
  ) {
    return undefined;
  }
  const pairings: PairingRecord[] = [];
  for (const entry of value.pairings) {
    const record = readRecord(entry);
    if (!record) return undefined;
    pairings.push(record);
  }
  return {
    version: 1,
    ...(identity === undefined ? {} : { identity: identity as unknown as HostIdentity }),
    pairings,
  };
}

const expired = (record: PairingRecord, now: number) =>
  record.lastSeen + PAIRING_IDLE_EXPIRY_MS <= now;

export interface PairingFileOptions {
  /** The clock (tests). Default Date.now. */
  now?: () => number;
  /** Told once when the file turns unreadable while the host runs (header 5). */
  onError?: (message: string) => void;
}

/** Pairings (and the identity) kept in `pairings.json` under `dir` (the header). */
export class FilePairingStore implements PairingStore {
  readonly dir: string;
  readonly path: string;
  #now: () => number;
  #onError: ((message: string) => void) | undefined;
  #last: PairingFile = { version: 1, pairings: [] };
  #failing = false;

  /** Use openPairingFile() (which makes the directory and the identity) or readPairingFile(). */
  constructor(dir: string, options: PairingFileOptions = {}) {
    this.dir = dir;
    this.path = join(dir, PAIRINGS_FILE);
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError;
  }

  /** The identity in the file (undefined before one was made). */
  get identity(): HostIdentity | undefined {
    return this.#last.identity;
  }

  /** The file as it is now; throws StateFileError when it cannot be trusted or read. */
  read(): PairingFile {
    if (!checkOwnDirectory(this.dir, false, DIRECTORY)) return { version: 1, pairings: [] };
    const text = readPrivateFile(this.path, FILE);
    if (text === undefined) return { version: 1, pairings: [] };
    const file = parseFile(text);
    if (!file)
      throw new StateFileError(`refusing ${FILE} ${this.path}: not a toolwire pairings file`);
    this.#last = file;
    return file;
  }

  /**
   * Under the lock: reads the file again, applies `change`, drops expired pairings and writes
   * the result (header 3). Throws StateFileError.
   */
  update(change: (file: PairingFile) => void): PairingFile {
    checkOwnDirectory(this.dir, true, DIRECTORY);
    this.#lock();
    try {
      const file = this.read();
      change(file);
      const now = this.#now();
      file.pairings = file.pairings.filter((record) => !expired(record, now));
      try {
        writePrivateFile(this.path, `${JSON.stringify(file, null, 2)}\n`);
      } catch (error) {
        throw new StateFileError(`cannot write ${FILE} ${this.path}: ${errnoText(error)}`);
      }
      this.#last = file;
      return file;
    } finally {
      rmSync(`${this.path}.lock`, { force: true });
    }
  }

  get(id: string): PairingRecord | undefined {
    const record = this.#current().pairings.find((entry) => entry.id === id);
    return record && { ...record };
  }

  put(record: PairingRecord): void {
    this.#write((file) => {
      file.pairings = file.pairings.filter((entry) => entry.id !== record.id);
      file.pairings.push({ ...record });
    });
  }

  touch(id: string, update: { lastSeen: number; guard?: string }): void {
    this.#write((file) => {
      const record = file.pairings.find((entry) => entry.id === id);
      if (!record) return;
      record.lastSeen = update.lastSeen;
      if (update.guard !== undefined) record.guard = update.guard;
    });
  }

  delete(id: string): boolean {
    let found = false;
    this.#write((file) => {
      found = file.pairings.some((entry) => entry.id === id);
      file.pairings = file.pairings.filter((entry) => entry.id !== id);
    });
    return found;
  }

  /** Forgets every pairing; how many there were. */
  clear(): number {
    let count = 0;
    this.#write((file) => {
      count = file.pairings.length;
      file.pairings = [];
    });
    return count;
  }

  list(): PairingRecord[] {
    const now = this.#now();
    return this.#current()
      .pairings.filter((record) => !expired(record, now))
      .map((record) => ({ ...record }));
  }

  /** The file, or while it cannot be read, the last good contents (header 5). */
  #current(): PairingFile {
    try {
      const file = this.read();
      this.#failing = false;
      return file;
    } catch (error) {
      this.#report(error);
      return this.#last;
    }
  }

  #write(change: (file: PairingFile) => void): void {
    try {
      this.update(change);
      this.#failing = false;
    } catch (error) {
      this.#report(error);
      // Kept in memory meanwhile, so this run still knows its own change.
      change(this.#last);
    }
  }

  #report(error: unknown): void {
    if (!(error instanceof StateFileError)) throw error;
    if (this.#failing) return;
    this.#failing = true;
    this.#onError?.(error.message);
  }

  /** Takes `pairings.json.lock` (O_EXCL), waiting for another writer's (header 3). */
  #lock(): void {
    const lock = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const state = tryLock(lock, LOCK_STALE_MS, `${FILE} ${this.path}`);
      if (state === 'taken') return;
      if (state === 'again') continue;
      if (Date.now() > deadline) {
        throw new StateFileError(`${FILE} ${this.path} is locked by another writer (${lock})`);
      }
      Atomics.wait(pause, 0, 0, LOCK_RETRY_MS);
    }
  }
}

/**
 * The store a host keeps its pairings in, the directory made when missing, its identity made
 * when the file has none, and pairings unused for 30 days dropped (header 4). Throws
 * StateFileError (one line) for a directory or file not to be trusted.
 */
export function openPairingFile(dir: string, options: PairingFileOptions = {}): FilePairingStore {
  const store = new FilePairingStore(dir, options);
  store.update((file) => {
    file.identity ??= { id: randomBytes(16).toString('base64url'), createdAt: Date.now() };
  });
  return store;
}

/** The pairings under `dir` as they are, nothing made or written (`toolwire pairings`). */
export function readPairingFile(dir: string, options: PairingFileOptions = {}): FilePairingStore {
  const store = new FilePairingStore(dir, options);
  store.read();
  return store;
}

/**
 * The MCP endpoint's bearer secret (`/mcp`, mcp/http.ts), kept across runs so that client
 * configurations keep working after a restart.
 *
 * 1. Where: `mcp-secret` in the pairings directory (pairing-file.ts `pairingHome`: beside
 *    `pairings.json`), a directory of ours, mode 0700; the file is ours, mode 0600, not a link.
 *    The same checks as the pairings file refuse anything else with one line (StateFileError).
 * 2. What: 256 random bits, base64url (43 characters), and a newline. Made on first need with
 *    O_EXCL and linked into place, so two processes starting at once end up with one secret.
 * 3. It is never the page token and never the control API's secret; `toolwire mcp-config`
 *    prints it inside the client configurations, and nothing else prints it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  checkOwnDirectory,
  readPrivateFile,
  StateFileError,
  writePrivateFile,
} from '../control/state-file.js';

const MCP_SECRET_FILE = 'mcp-secret';
const FILE = 'the MCP secret file';
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The secret in `dir` (the pairings directory), made there when missing (header). */
export function mcpSecret(dir: string): string {
  checkOwnDirectory(dir, true, 'the pairings directory');
  const path = join(dir, MCP_SECRET_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    const text = readPrivateFile(path, FILE);
    if (text !== undefined) {
      const secret = text.trim();
      if (!SECRET_PATTERN.test(secret)) {
        throw new StateFileError(
          `refusing ${FILE} ${path}: not a toolwire MCP secret (remove it to make a new one)`,
        );
      }
      return secret;
    }
    try {
      const secret = randomBytes(32).toString('base64url');
      writePrivateFile(path, `${secret}\n`, { exclusive: true });
      return secret;
    } catch (error) {
      // Another process made it first: read theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StateFileError(`cannot write ${FILE} ${path}: ${(error as Error).message}`);
      }
    }
  }
  throw new StateFileError(`cannot read ${FILE} ${path}`);
}

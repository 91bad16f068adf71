/**
 * The pairing phrase (`pairingPhrase` in @toolwire/protocol) of the code a printed link, fragment
 * or extension address carries, for the line the host prints beside it: the page's prompt and
 * the extension's panel show the same words, so the person can check that the link they opened
 * is the one their terminal made.
 */
import { pairingPhrase } from '@toolwire/protocol';

/** The phrase of the `pair=CODE` in `link` (percent-encoded inside a fragment or not), if any. */
export function linkPhrase(link: string): string | undefined {
  let text = link;
  // A page link nests the host's address in its fragment, percent-encoded once.
  for (let round = 0; round < 3 && !/[?&]pair=/.test(text); round++) {
    try {
      const decoded = decodeURIComponent(text);
      if (decoded === text) break;
      text = decoded;
    } catch {
      break;
    }
  }
  const code = /[?&]pair=([^&#\s]+)/.exec(text)?.[1];
  return code ? pairingPhrase(code) : undefined;
}

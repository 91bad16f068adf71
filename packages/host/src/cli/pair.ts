/**
 * `toolwire pair [--page URL | --extension ID]`: a new single-use pairing link (or fragment)
 * from the host, or a pairing address for the toolwire browser extension.
 */
import { linkPhrase } from '../shared/link-phrase.js';
import { escapeLine } from '../shared/terminal-text.js';
import { clientCommand } from './client.js';
import { EXIT } from './command.js';

export const pair = clientCommand({
  name: 'pair',
  synopsis: 'pair',
  summary: [
    'Print a new pairing link for that page (single use, 5 minutes); without',
    "--page, the #toolwire=... fragment to add to any allowed page's address.",
    'With --extension, the address to paste in the toolwire extension.',
  ],
  options: ['page', 'extension'],
  notes: [
    '',
    'Open the link in the browser tab: the page asks the person there before it connects.',
    "With --extension, paste the address in the extension's side panel and click Connect",
    'on the tab: it connects that tab, and later tabs with the same pairing.',
    "The phrase printed beside it (on stderr) is what the page's prompt or the",
    "extension's panel shows: connect only if the two match.",
  ],
  examples: [
    'toolwire pair --page http://localhost:5173/app/',
    'toolwire pair --extension abcdefghijklmnopabcdefghijklmnop',
    'toolwire pair --json                             # {link, fragment, phrase, expiresAt}',
  ],
  async run({ args, io, control, out, json }) {
    if (args.extension) {
      const answer = await control('/v1/pair', { extension: args.extension });
      const phrase = linkPhrase(String(answer.address));
      if (args.json) {
        json({
          address: answer.address,
          origin: answer.origin,
          expiresAt: answer.expiresAt,
          phrase: phrase ?? null,
        });
      } else {
        out(`${escapeLine(String(answer.address))}\n`);
        if (phrase) io.stderr.write(`phrase: ${phrase}\n`);
        io.stderr.write(
          `toolwire: paste it in the toolwire extension's side panel and click Connect (single use, until ${escapeLine(String(answer.expiresAt))}; only ${escapeLine(String(answer.origin))} can use it)\n`,
        );
      }
      return EXIT.ok;
    }
    const answer = await control('/v1/pair', args.page ? { page: args.page } : {});
    const phrase = linkPhrase(String(answer.link ?? answer.fragment ?? ''));
    if (args.json) {
      json({
        link: answer.link ?? null,
        fragment: answer.fragment ?? null,
        phrase: phrase ?? null,
        expiresAt: answer.expiresAt,
      });
      return EXIT.ok;
    }
    out(`${escapeLine(String(answer.link ?? answer.fragment))}\n`);
    if (phrase) io.stderr.write(`phrase: ${phrase}\n`);
    if (answer.link) {
      io.stderr.write(
        `toolwire: open it in the browser tab to pair (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
      );
    } else {
      io.stderr.write(
        `toolwire: add it to an allowed page's address (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
      );
    }
    return EXIT.ok;
  },
});

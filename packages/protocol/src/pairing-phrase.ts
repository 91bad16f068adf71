/**
 * The pairing phrase: a few pronounceable words spelled from a pairing code's first characters,
 * so a person can check that the code a page's prompt (or the extension's panel) holds is the
 * one their terminal printed, without reading 22 random characters.
 *
 * A code is base64url (6 bits a character). Each of its first six characters becomes one
 * consonant-vowel syllable (16 consonants x 4 vowels = 64, one syllable per value), and the six
 * syllables are read in three words of two: `kabo-meti-rusa`. That is the code's first 36 bits,
 * nothing hashed: the same code always reads the same, and two codes that differ anywhere in
 * those six characters read differently. A character outside base64url (a code from another
 * host) counts by its low six bits, so every code has a phrase.
 */

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** No c, q, x or y (they read two ways), no w (it reads like a vowel). */
const CONSONANTS = 'bdfghjklmnprstvz';
const VOWELS = 'aeio';

/** The code's first six characters as three pronounceable words, e.g. `kabo-meti-rusa`. */
export function pairingPhrase(code: string): string {
  const syllables: string[] = [];
  for (let i = 0; i < 6; i++) {
    const char = code.charAt(i);
    const index = BASE64URL.indexOf(char);
    // A short code pads with the value 0 (the first syllable, `ba`).
    const value = index >= 0 ? index : char ? char.charCodeAt(0) & 63 : 0;
    syllables.push(CONSONANTS.charAt(value >> 2) + VOWELS.charAt(value & 3));
  }
  return `${syllables[0]}${syllables[1]}-${syllables[2]}${syllables[3]}-${syllables[4]}${syllables[5]}`;
}

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pairingPhrase } from '../src/index.js';

const SHAPE =
  /^[bdfghjklmnprstvz][aeio][bdfghjklmnprstvz][aeio](-[bdfghjklmnprstvz][aeio][bdfghjklmnprstvz][aeio]){2}$/;

describe('pairingPhrase', () => {
  it('spells the first six base64url characters, one syllable each (known vectors)', () => {
    expect(pairingPhrase('AAAAAAAAAAAAAAAAAAAAAA')).toBe('baba-baba-baba');
    expect(pairingPhrase('______xxxxxxxxxxxxxxxx')).toBe('zozo-zozo-zozo');
    // B=1 C=2 D=3 E=4 F=5 G=6: consonant = value >> 2, vowel = value & 3.
    expect(pairingPhrase('BCDEFGhijklmnop')).toBe('bebi-boda-dedi');
    // k=36 (n,a) a=26 (k,i) 0=52 (t,a) 9=61 (z,e) -=62 (z,i) Q=16 (h,a)
    expect(pairingPhrase('ka09-Q')).toBe('naki-taze-ziha');
  });

  it('is deterministic, and only the first six characters count', () => {
    const code = randomBytes(16).toString('base64url');
    expect(pairingPhrase(code)).toBe(pairingPhrase(code));
    expect(pairingPhrase(`${code.slice(0, 6)}zzzz`)).toBe(pairingPhrase(code));
  });

  it('differs for codes that differ in any of the first six characters', () => {
    const base = 'AAAAAAAAAAAAAAAAAAAAAA';
    const seen = new Set([pairingPhrase(base)]);
    for (let i = 0; i < 6; i++) {
      for (const char of 'B_-z9') {
        const code = `${base.slice(0, i)}${char}${base.slice(i + 1)}`;
        seen.add(pairingPhrase(code));
      }
    }
    expect(seen.size).toBe(1 + 6 * 5);
  });

  it('maps all 64 values to 64 different syllables', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const syllables = new Set(
      [...alphabet].map((char) => pairingPhrase(char.repeat(6)).slice(0, 2)),
    );
    expect(syllables.size).toBe(64);
  });

  it('uses only its alphabet, for random codes and for odd input', () => {
    for (let i = 0; i < 200; i++) {
      expect(pairingPhrase(randomBytes(16).toString('base64url'))).toMatch(SHAPE);
    }
    for (const odd of ['', 'a', 'é€💥<>"', ' \n\t\0??', 'x'.repeat(10_000)]) {
      expect(pairingPhrase(odd)).toMatch(SHAPE);
    }
  });
});

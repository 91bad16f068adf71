// @vitest-environment happy-dom
/**
 * What the endpoint's IIFE does before the pairing chunk loads (issue 16, item 2): a link leaves
 * the fragment at once, and the chunk is wanted only for a tab with a link or a kept pairing.
 */
import { describe, expect, it } from 'vitest';
import {
  hasKeptPairing,
  hasPairingLink,
  PAIRING_STORAGE_KEY,
  takePairingLink,
} from '../src/pairing-link.js';

function fakeStorage(items: Record<string, string> = {}): Storage {
  return {
    getItem: (key: string) => items[key] ?? null,
  } as Storage;
}

describe('before the pairing loads', () => {
  it('takes a link out of the fragment, keeping the rest; null without one', () => {
    history.replaceState(null, '', '/page?x=1#a=1&toolwire=ws%3A%2F%2Flocalhost%3A1%3Fpair%3Dabc');
    expect(hasPairingLink(location.hash)).toBe(true);
    expect(takePairingLink(location, history)).toBe('ws://localhost:1?pair=abc');
    expect(location.pathname + location.search + location.hash).toBe('/page?x=1#a=1');
    expect(hasPairingLink(location.hash)).toBe(false);
    expect(takePairingLink(location, history)).toBeNull();
  });

  it('the address is absolute, so a <base> plays no part; a refusal still returns the link', () => {
    const seen: string[] = [];
    const loc = {
      href: 'https://page.example/a?b=1#toolwire=ws%3A%2F%2Fx&c=2',
      hash: '#toolwire=ws%3A%2F%2Fx&c=2',
    } as Location;
    const taking = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => seen.push(url),
    } as unknown as History;
    expect(takePairingLink(loc, taking)).toBe('ws://x');
    expect(seen).toEqual(['https://page.example/a?b=1#c=2']);
    const refusing = {
      state: null,
      replaceState: () => {
        throw new DOMException('another origin', 'SecurityError');
      },
    } as unknown as History;
    expect(takePairingLink(loc, refusing)).toBe('ws://x');
  });

  it('a kept pairing counts; none, or storage that throws, does not', () => {
    expect(hasKeptPairing(fakeStorage({ [PAIRING_STORAGE_KEY]: '{}' }))).toBe(true);
    expect(hasKeptPairing(fakeStorage())).toBe(false);
    expect(hasKeptPairing(null)).toBe(false);
    const throwing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
    } as unknown as Storage;
    expect(hasKeptPairing(throwing)).toBe(false);
  });
});

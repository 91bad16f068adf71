import { describe, expect, it } from 'vitest';
import { dialUrl, splitSecret } from '../src/secret.js';

// A delegate of an extension's pairing (`connect({ delegate })`): the socket names the parent
// credential by the id it was given and never carries the delegate's key.

describe('a delegate on the dial', () => {
  it('names the parent credential (delegate-of) and the nonce; the key stays out', async () => {
    const delegate = { of: 'parent-id-0123456789ab', secret: 'the-delegate-key-never-sent' };
    // Honest comparison: a credential is named by the id computed from it.
    const credential = splitSecret({ url: 'ws://127.0.0.1:9/toolwire', credential: 'c' });
    expect(await dialUrl(credential.address, credential.secret, 'n'.repeat(22), () => 'cid')).toBe(
      `ws://127.0.0.1:9/toolwire?credential-id=cid&nonce=${'n'.repeat(22)}`,
    );
    const split = splitSecret({ url: 'ws://127.0.0.1:9/toolwire?token=t', delegate });
    expect(split.secret).toEqual({ name: 'delegate', value: delegate.secret, of: delegate.of });
    const url = await dialUrl(split.address, split.secret, 'n'.repeat(22), () => {
      throw new Error('a delegate needs no id computed');
    });
    expect(url).toBe(
      `ws://127.0.0.1:9/toolwire?delegate-of=${delegate.of}&nonce=${'n'.repeat(22)}`,
    );
    expect(url).not.toContain(delegate.secret);
    expect(url).not.toContain('token');
  });
});

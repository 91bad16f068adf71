import { describe, expect, it } from 'vitest';
import { allowGrantsTools, toolsAllowlist } from '../src/frames/allow.js';
import { FRAMES_TAG, isFrameRequest, isPortMessage, isWelcome } from '../src/frames/messages.js';

const A = 'https://a.example';
const B = 'https://b.example';
const C = 'https://c.example';

describe('the emulated `tools` permission from <iframe allow>', () => {
  const grant = (allow: string | null, child: string, src: string | undefined = child) =>
    allowGrantsTools(allow, { childOrigin: child, parentOrigin: A, srcOrigin: src });

  it('defaults to self: same-origin children only', () => {
    expect(grant(null, A)).toBe(true);
    expect(grant(null, B)).toBe(false);
    expect(grant('camera; microphone', B)).toBe(false);
  });

  it('bare `tools` means src: the origin the iframe was pointed at', () => {
    expect(toolsAllowlist('tools')).toEqual(["'src'"]);
    expect(grant('tools', B, B)).toBe(true);
    // The frame navigated away from its src: the grant does not follow it (WPT permissions-policy 1).
    expect(grant('tools', C, B)).toBe(false);
  });

  it("honours *, 'none', 'self', 'src' and explicit origins, in any directive position", () => {
    expect(grant('tools *', C, B)).toBe(true);
    expect(grant("tools 'none'", A)).toBe(false);
    expect(grant("tools 'none'", B)).toBe(false);
    expect(grant("tools 'self'", A)).toBe(true);
    expect(grant("tools 'self'", B)).toBe(false);
    expect(grant(`camera; tools ${B}; geolocation`, B)).toBe(true);
    expect(grant(`tools ${B}`, C)).toBe(false);
    expect(grant(`TOOLS ${C} 'SELF'`, A)).toBe(true);
  });

  it('never grants an opaque origin', () => {
    expect(grant('tools *', 'null')).toBe(false);
  });
});

describe('frame message guards (hostile input is dropped by shape)', () => {
  it('accepts well-formed messages only', () => {
    expect(isWelcome({ tag: FRAMES_TAG, kind: 'welcome', allowed: true })).toBe(true);
    expect(isWelcome({ tag: FRAMES_TAG, kind: 'welcome', allowed: 'yes' })).toBe(false);
    expect(isWelcome({ tag: 'other', kind: 'welcome', allowed: true })).toBe(false);
    const list = {
      op: 'list',
      route: [0, 1],
      caller: A,
      via: [],
      agentOnly: false,
      fromOrigins: null,
    };
    expect(isFrameRequest(list)).toBe(true);
    expect(isFrameRequest({ ...list, route: [-1] })).toBe(false);
    expect(isFrameRequest({ ...list, route: Array.from({ length: 40 }, () => 0) })).toBe(false);
    expect(isFrameRequest({ ...list, via: 'x' })).toBe(false);
    expect(isFrameRequest({ ...list, op: '__proto__' })).toBe(false);
    expect(isPortMessage({ tag: FRAMES_TAG, kind: 'req', id: 1, request: list })).toBe(true);
    expect(isPortMessage({ tag: FRAMES_TAG, kind: 'req', id: '1', request: list })).toBe(false);
    expect(isPortMessage({ tag: FRAMES_TAG, kind: 'res', id: 1, ok: false })).toBe(false);
    expect(
      isPortMessage(
        JSON.parse('{"__proto__":{"polluted":true},"tag":"toolwire.frames/1","kind":"bye"}'),
      ),
    ).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

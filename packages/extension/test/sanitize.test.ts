/** What the relay and the background accept from the MAIN world (src/channel/sanitize.ts). */
import { describe, expect, it } from 'vitest';
import { sanitizeOutcome, sanitizeTools } from '../src/channel/sanitize.js';

describe('sanitizeTools', () => {
  it('keeps checked fields and drops bad tools and duplicates', () => {
    const tools = sanitizeTools([
      {
        name: 'a',
        description: 'A.',
        origin: 'https://app.example',
        source: 'native',
        policy: 'read',
        inputSchema: { type: 'object' },
        extra: 'dropped',
      },
      { name: 'a', description: 'again', origin: 'https://app.example', source: 'native' },
      { name: 'b', origin: 'https://app.example:443', source: 'toolwire' },
      { name: 'c', origin: 'https://app.example', source: 'eval' },
      { name: 'd', origin: 'https://app.example', source: 'toolwire', inputSchema: { f: 1n } },
      'junk',
    ]);
    expect(tools).toEqual([
      {
        name: 'a',
        description: 'A.',
        origin: 'https://app.example',
        source: 'native',
        policy: 'read',
        inputSchema: { type: 'object' },
      },
      { name: 'd', description: '', origin: 'https://app.example', source: 'toolwire' },
    ]);
    expect(sanitizeTools({ length: 1 })).toEqual([]);
    // Not for agents: kept only as `false`.
    const marked = sanitizeTools([
      { name: 'x', origin: 'https://app.example', source: 'toolwire', agentExposed: false },
      { name: 'y', origin: 'https://app.example', source: 'toolwire', agentExposed: 'no' },
    ]);
    expect(marked.map((tool) => tool.agentExposed)).toEqual([false, undefined]);
  });
});

describe('sanitizeOutcome', () => {
  it('keeps JSON results and coded errors, and refuses the rest', () => {
    expect(sanitizeOutcome({ ok: true, result: { n: 1 } })).toEqual({ ok: true, result: { n: 1 } });
    expect(sanitizeOutcome({ ok: true })).toEqual({ ok: true, result: null });
    expect(
      sanitizeOutcome({
        ok: false,
        error: { code: 'tool_not_found', message: 'No.', name: 'NotFoundError' },
      }),
    ).toEqual({
      ok: false,
      error: { code: 'tool_not_found', message: 'No.', name: 'NotFoundError' },
    });
    for (const junk of [
      null,
      { ok: 'yes' },
      { ok: false, error: { code: 'Bad Code' } },
      { ok: true, result: 1n },
    ])
      expect(sanitizeOutcome(junk)).toMatchObject({
        ok: false,
        error: { code: 'response_invalid' },
      });
  });
});

/** What the relay and the background accept from the MAIN world (src/channel/sanitize.ts). */
import { describe, expect, it } from 'vitest';
import {
  MAX_PROGRESS_MESSAGE,
  outcomeOfJson,
  resultText,
  sanitizeOutcome,
  sanitizeProgress,
  sanitizeTools,
} from '../src/channel/sanitize.js';

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

  it("keeps a coded error's retryable and its details, clipped and bounded", () => {
    const issues = [
      {
        path: '$.q',
        message: 'must be string',
        keyword: 'type',
        schemaPath: '#/properties/q/type',
      },
    ];
    // Honest path: what the reader sends comes through whole.
    expect(
      sanitizeOutcome({
        ok: false,
        error: {
          code: 'tool_arguments_schema_invalid',
          message: '`q` must be a string',
          retryable: false,
          details: issues,
        },
      }),
    ).toEqual({
      ok: false,
      error: {
        code: 'tool_arguments_schema_invalid',
        message: '`q` must be a string',
        retryable: false,
        details: issues,
      },
    });
    const clipped = (details: unknown) =>
      (
        sanitizeOutcome({
          ok: false,
          error: { code: 'tool_execution_failed', message: '', retryable: 'yes', details },
        }) as { error: { retryable?: unknown; details?: unknown } }
      ).error;
    // A retryable that is not a boolean is left out (the table's default applies).
    expect(clipped(null)).not.toHaveProperty('retryable');
    // Long strings are cut, long lists and wide objects keep their first 100 entries, what JSON
    // cannot hold is dropped, and nothing below 8 levels is kept.
    const wide = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]));
    let deep: unknown = 'bottom';
    for (let i = 0; i < 12; i++) deep = { down: deep };
    const kept = clipped({
      text: 'x'.repeat(20_000),
      list: Array.from({ length: 500 }, (_, i) => i),
      wide,
      fn: () => 1,
      nan: Number.NaN,
      deep,
    }).details as Record<string, any>;
    expect(kept.text).toHaveLength(8192);
    expect(kept.list).toHaveLength(100);
    expect(Object.keys(kept.wide)).toHaveLength(100);
    expect(kept).not.toHaveProperty('fn');
    expect(kept.nan).toBeNull();
    expect(JSON.stringify(kept.deep)).not.toContain('bottom');
    // Still too large once clipped: no details at all.
    const huge = Array.from({ length: 100 }, () => 'y'.repeat(8192));
    expect(clipped(huge).details).toBeNull();
    // A getter that throws: no details, and the outcome still comes through.
    const hostile = {
      get boom() {
        throw new Error('no');
      },
    };
    expect(clipped(hostile)).toMatchObject({ details: null });
  });
});

describe('sanitizeProgress', () => {
  it('rebuilds a report from checked fields', () => {
    expect(sanitizeProgress({ progress: 2, total: 5, message: 'two', html: '<b>' }, 1)).toEqual({
      progress: 2,
      total: 5,
      message: 'two',
    });
    expect(sanitizeProgress({ progress: 0 }, undefined)).toEqual({ progress: 0 });
    // A total that is no count, and a message that is no text, are left out.
    expect(sanitizeProgress({ progress: 1, total: 0, message: '' }, undefined)).toEqual({
      progress: 1,
    });
    expect(sanitizeProgress({ progress: 1, total: Infinity, message: 7 }, undefined)).toEqual({
      progress: 1,
    });
  });

  it('drops a report that is not a number or does not move forward', () => {
    for (const raw of [
      null,
      1,
      'x',
      {},
      { progress: '1' },
      { progress: Number.NaN },
      { progress: -Infinity },
    ])
      expect(sanitizeProgress(raw, undefined)).toBeUndefined();
    expect(sanitizeProgress({ progress: 3 }, 3)).toBeUndefined();
    expect(sanitizeProgress({ progress: 2 }, 3)).toBeUndefined();
  });

  it('clips a long message, never through a surrogate pair', () => {
    const long = 'a'.repeat(MAX_PROGRESS_MESSAGE + 5);
    expect(sanitizeProgress({ progress: 1, message: long }, undefined)?.message).toHaveLength(
      MAX_PROGRESS_MESSAGE,
    );
    const split = `${'a'.repeat(MAX_PROGRESS_MESSAGE - 1)}😀`;
    expect(sanitizeProgress({ progress: 1, message: split }, undefined)?.message).toBe(
      'a'.repeat(MAX_PROGRESS_MESSAGE - 1),
    );
  });
});

describe("a call's result as JSON text", () => {
  it('passes text within the size limit, and proves it is JSON where it is parsed', () => {
    expect(resultText('{"n":1}')).toBe('{"n":1}');
    expect(outcomeOfJson('{"n":1}')).toEqual({ ok: true, result: { n: 1 } });
    // Not text, or above 64 Mi UTF-16 units: refused before anything parses it.
    expect(resultText({ n: 1 })).toBeUndefined();
    const huge = `"${'x'.repeat(64 * 1024 * 1024 - 1)}"`;
    expect(resultText(huge)).toBeUndefined();
    expect(resultText(huge.slice(1))).toBe(huge.slice(1));
    // Not JSON: a coded failure, never a value.
    expect(outcomeOfJson('{"n":')).toMatchObject({
      ok: false,
      error: { code: 'response_invalid' },
    });
  });
});

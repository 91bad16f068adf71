import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROGRESS_AFTER_MS, progressLine, progressText } from '../src/cli/progress.js';
import { RAW_CONTROL } from './cli-helpers.js';

// The progress line of `toolwire call` / `toolwire batch`: time is the subject, so fake timers.

function stderr(tty: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  let text = '';
  stream.on('data', (chunk) => {
    text += chunk;
  });
  return { stream, text: () => text };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the progress line', () => {
  it('says nothing for a call that ends within a second', async () => {
    const err = stderr(false);
    const line = progressLine(err.stream);
    line.report({ progress: 1, total: 3, message: 'reading' });
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS - 1);
    line.end();
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS);
    expect(err.text()).toBe('');
  });

  it('off a terminal: the latest report after a second, then at most a line a second', async () => {
    const err = stderr(false);
    const line = progressLine(err.stream);
    line.report({ progress: 1, total: 3, message: 'reading' });
    line.report({ progress: 2, total: 3, message: 'parsing' });
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS);
    expect(err.text()).toBe('progress 2/3 parsing\n');
    line.report({ progress: 2.5 });
    line.report({ progress: 3, total: 3 });
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS - 1);
    expect(err.text()).toBe('progress 2/3 parsing\n');
    await vi.advanceTimersByTimeAsync(1);
    expect(err.text()).toBe('progress 2/3 parsing\nprogress 3/3\n');
    line.end();
    expect(err.text()).toBe('progress 2/3 parsing\nprogress 3/3\n'); // nothing to clear
  });

  it('on a terminal: one line rewritten in place, and cleared at the end', async () => {
    const err = stderr(true);
    const line = progressLine(err.stream);
    line.report({ progress: 1 });
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS);
    line.report({ progress: 2, total: 4 });
    await vi.advanceTimersByTimeAsync(100);
    line.end();
    line.report({ progress: 3, total: 4 }); // after the end: nothing
    await vi.advanceTimersByTimeAsync(PROGRESS_AFTER_MS);
    expect(err.text()).toBe('\r\x1b[Kprogress 1\r\x1b[Kprogress 2/4\r\x1b[K');
  });

  it("a page's message cannot reach the terminal raw, nor break the line", () => {
    const honest = progressText({ progress: 3, total: 10, message: 'step three' });
    expect(honest).toBe('progress 3/10 step three');
    const hostile = progressText({
      progress: 1,
      message: '\x1b]0;owned\x07\x1b[2J\u009b31m\nprogress 10/10 done\u202e',
    });
    expect(hostile).not.toMatch(RAW_CONTROL);
    expect(hostile).not.toContain('\n');
    expect(hostile).toContain('\\x1b]0;owned');
    expect(progressText({ progress: 1, message: 'x'.repeat(500) }).length).toBeLessThan(220);
  });
});

/**
 * Progress inside the page (docs/browser-api.md "Progress"): a tool's context.reportProgress,
 * a caller's callTool onProgress, the checks between them, and what it costs a call that does
 * not ask. Frames: e2e/frames.e2e.ts and e2e/frames-hostile.e2e.ts (real Chromium).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { FRAMES_TAG, isFrameRequest, isPortMessage } from '../src/frames/messages.js';
import type { ToolExecuteContext, ToolProgress } from '../src/index.js';
import { MAX_PROGRESS_MESSAGE, noProgress } from '../src/progress.js';
import { freshInstall, rejection } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** A tool that makes the reports it is given, in order, then answers `done`. */
function reporting(reports: unknown[][]) {
  return {
    name: 'reports',
    execute: (_input: unknown, context: ToolExecuteContext) => {
      for (const args of reports) (context.reportProgress as (...a: unknown[]) => void)(...args);
      return 'done';
    },
  };
}

describe('reportProgress -> onProgress', () => {
  it('delivers each report, in order, before callTool settles; absent members are left out', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register(reporting([[1], [2, 10], [3, 10, 'copying']]));
    const seen: ToolProgress[] = [];
    let settledFirst = false;
    const call = tools.callTool('reports', {}, { onProgress: (report) => seen.push(report) });
    call.then(() => {
      settledFirst = seen.length < 3;
    });
    expect(await call).toBe('done');
    expect(settledFirst).toBe(false);
    expect(seen).toEqual([
      { progress: 1 },
      { progress: 2, total: 10 },
      { progress: 3, total: 10, message: 'copying' },
    ]);
    expect(Object.keys(seen[0] as object)).toEqual(['progress']);
  });

  it('reaches the caller across awaits in the tool, by name, by handle and with encoding json', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'slow',
      inputSchema: { type: 'object', properties: { steps: { type: 'integer' } } },
      execute: async ({ steps }: { steps: number }, { reportProgress }: ToolExecuteContext) => {
        for (let i = 1; i <= steps; i++) {
          await Promise.resolve();
          reportProgress(i, steps);
        }
        return steps;
      },
    });
    const byName: number[] = [];
    await tools.callTool('slow', { steps: 3 }, { onProgress: (r) => byName.push(r.progress) });
    const [handle] = await tools.getTools();
    const byHandle: number[] = [];
    await handle?.call({ steps: 2 }, { onProgress: (r) => byHandle.push(r.progress) });
    const json: ToolProgress[] = [];
    await tools.callTool(
      'slow',
      { steps: 1 },
      { encoding: 'json', onProgress: (r) => json.push(r) },
    );
    expect(byName).toEqual([1, 2, 3]);
    expect(byHandle).toEqual([1, 2]);
    expect(json).toEqual([{ progress: 1, total: 1 }]);
  });

  it('drops reports that are not finite, do not increase, or have a bad total or message', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register(
      reporting([
        [Number.NaN],
        [Number.POSITIVE_INFINITY],
        ['1'],
        [undefined],
        [1],
        [1], // not an increase
        [0.5], // a decrease
        [2, Number.NaN],
        [2, Number.NEGATIVE_INFINITY],
        [2, '10'],
        [2, null],
        [2, 10, 42],
        [2, 10, { toString: () => 'x' }],
        [-1],
        [2, undefined, undefined],
        [3, 10, 'ok'],
      ]),
    );
    const seen: ToolProgress[] = [];
    await tools.callTool('reports', {}, { onProgress: (report) => seen.push(report) });
    expect(seen).toEqual([
      { progress: 1 },
      { progress: 2 },
      { progress: 3, total: 10, message: 'ok' },
    ]);
  });

  it('clips a long message, never inside a surrogate pair', async () => {
    const { toolManager, tools } = freshInstall();
    const long = 'a'.repeat(MAX_PROGRESS_MESSAGE + 10);
    // An emoji (two code units) across the cut: its high half would be the last unit kept.
    const split = `${'b'.repeat(MAX_PROGRESS_MESSAGE - 1)}\u{1F600}tail`;
    const fits = `${'c'.repeat(MAX_PROGRESS_MESSAGE - 2)}\u{1F600}`;
    await toolManager.register(
      reporting([
        [1, 3, long],
        [2, 3, split],
        [3, 3, fits],
      ]),
    );
    const seen: ToolProgress[] = [];
    await tools.callTool('reports', {}, { onProgress: (report) => seen.push(report) });
    expect(seen.map((r) => r.message?.length)).toEqual([
      MAX_PROGRESS_MESSAGE,
      MAX_PROGRESS_MESSAGE - 1,
      MAX_PROGRESS_MESSAGE,
    ]);
    expect(seen[0]?.message).toBe(long.slice(0, MAX_PROGRESS_MESSAGE));
    expect(seen[1]?.message).toBe('b'.repeat(MAX_PROGRESS_MESSAGE - 1));
    expect(seen[2]?.message).toBe(fits);
  });

  it('drops reports made after the call settled', async () => {
    const { toolManager, tools } = freshInstall();
    let report: ToolExecuteContext['reportProgress'] | undefined;
    await toolManager.register({
      name: 'leaky',
      execute: (_input: unknown, context: ToolExecuteContext) => {
        report = context.reportProgress;
        report(1);
        return 'ok';
      },
    });
    const seen: number[] = [];
    expect(await tools.callTool('leaky', {}, { onProgress: (r) => seen.push(r.progress) })).toBe(
      'ok',
    );
    report?.(2);
    report?.(3, 3, 'late');
    expect(seen).toEqual([1]);
  });

  it('drops reports made after the caller aborted, and after the tool failed', async () => {
    const { toolManager, tools } = freshInstall();
    const started = latch<ToolExecuteContext>();
    const release = latch();
    const reportedLate = latch();
    await toolManager.register({
      name: 'hang',
      execute: async (_input: unknown, context: ToolExecuteContext) => {
        context.reportProgress(1);
        started.open(context);
        await release.wait;
        context.reportProgress(2);
        reportedLate.open();
        return 'late';
      },
    });
    const seen: number[] = [];
    const controller = new AbortController();
    const call = tools.callTool(
      'hang',
      {},
      { signal: controller.signal, onProgress: (r) => seen.push(r.progress) },
    );
    const context = await started.wait;
    controller.abort(new Error('caller gave up'));
    expect((await rejection(call)).message).toBe('caller gave up');
    context.reportProgress(5);
    await until(() => context.signal.aborted, 'the tool saw the abort');
    release.open();
    await reportedLate.wait;
    expect(seen).toEqual([1]);

    const failed: number[] = [];
    let failing: ToolExecuteContext | undefined;
    await toolManager.register({
      name: 'fails',
      execute: (_input: unknown, ctx: ToolExecuteContext) => {
        failing = ctx;
        ctx.reportProgress(1);
        throw new Error('broken');
      },
    });
    expect(
      (await rejection(tools.callTool('fails', {}, { onProgress: (r) => failed.push(r.progress) })))
        .name,
    ).toBe('ToolExecutionError');
    failing?.reportProgress(2);
    expect(failed).toEqual([1]);
  });

  it('an onProgress that aborts the call stops the reports at once', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'many',
      execute: (_input: unknown, { reportProgress }: ToolExecuteContext) =>
        new Promise(() => {
          for (let i = 1; i <= 5; i++) reportProgress(i);
        }),
    });
    const controller = new AbortController();
    const seen: number[] = [];
    const call = tools.callTool(
      'many',
      {},
      {
        signal: controller.signal,
        onProgress: (r) => {
          seen.push(r.progress);
          if (r.progress === 2) controller.abort();
        },
      },
    );
    expect((await rejection(call)).name).toBe('AbortError');
    expect(seen).toEqual([1, 2]);
  });

  it('a throwing onProgress is reported and never reaches the tool, which goes on', async () => {
    const { toolManager, tools } = freshInstall();
    const outcomes: string[] = [];
    await toolManager.register({
      name: 'robust',
      execute: (_input: unknown, { reportProgress }: ToolExecuteContext) => {
        for (let i = 1; i <= 3; i++) {
          try {
            reportProgress(i);
            outcomes.push('returned');
          } catch {
            outcomes.push('threw');
          }
        }
        return 'finished';
      },
    });
    // Where the realm has reportError (browsers), it gets the error, as for a throwing listener.
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    const boom = new Error('listener bug');
    const seen: number[] = [];
    const onProgress = (r: ToolProgress) => {
      seen.push(r.progress);
      throw boom;
    };
    expect(await tools.callTool('robust', {}, { onProgress })).toBe('finished');
    expect(outcomes).toEqual(['returned', 'returned', 'returned']);
    expect(seen).toEqual([1, 2, 3]);
    expect(reported).toEqual([boom, boom, boom]);
    // A realm without reportError (Node) has nowhere to report it: the call still goes on.
    vi.unstubAllGlobals();
    expect(typeof (globalThis as { reportError?: unknown }).reportError).toBe('undefined');
    expect(await tools.callTool('robust', {}, { onProgress })).toBe('finished');
    expect(seen).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('an onProgress that is not a function is a TypeError, and the tool does not run', async () => {
    const { toolManager, tools } = freshInstall();
    const execute = vi.fn(() => 'ran');
    await toolManager.register({ name: 'x', execute });
    for (const onProgress of ['yes', 1, {}, null]) {
      const error = await rejection(tools.callTool('x', {}, { onProgress: onProgress as never }));
      expect(error.name).toBe('TypeError');
    }
    expect(execute).not.toHaveBeenCalled();
    // undefined is "not given".
    expect(await tools.callTool('x', {}, { onProgress: undefined })).toBe('ran');
  });
});

describe('cheap when unused', () => {
  it('a call without onProgress gets one shared no-op reportProgress', async () => {
    const { toolManager, tools } = freshInstall();
    const contexts: ToolExecuteContext[] = [];
    await toolManager.register({
      name: 'plain',
      execute: (_input: unknown, context: ToolExecuteContext) => {
        contexts.push(context);
        context.reportProgress(1, 2, 'nobody listens');
        return 'ok';
      },
    });
    await tools.callTool('plain', {});
    await tools.callTool('plain', {}, { signal: new AbortController().signal });
    await tools.callTool('plain', {}, { onProgress: () => {} });
    const [first, second, listened] = contexts.map((context) => context.reportProgress);
    // The honest path first: a listening call gets a function of its own.
    expect(listened).not.toBe(first);
    expect(first).toBe(noProgress);
    expect(second).toBe(noProgress);
  });
});

describe('document.modelContext', () => {
  it("has no progress: executeTool takes none, and its tools get the spec's {signal} only", async () => {
    const { win, tools } = freshInstall();
    const mc = (win.document as unknown as { modelContext: any }).modelContext;
    const optionKeys: string[][] = [];
    await mc.registerTool({
      name: 'spec.tool',
      description: 'A spec tool.',
      execute: (_input: object, options: object) => {
        optionKeys.push(Object.keys(options));
        return 'spec result';
      },
    });
    const [registered] = await mc.getTools();
    const onProgress = vi.fn();
    // An extra member in executeTool's options is ignored, as a WebIDL dictionary's would be.
    expect(await mc.executeTool(registered, {}, { onProgress })).toBe('spec result');
    // Called through window.tools it is the same spec tool: nothing to report with, as natively.
    expect(await tools.callTool('spec.tool', {}, { onProgress })).toBe('spec result');
    expect(onProgress).not.toHaveBeenCalled();
    expect(optionKeys).toEqual([['signal'], ['signal']]);
  });

  it('a toolManager tool called through executeTool reports to nobody', async () => {
    const { win, toolManager } = freshInstall();
    const mc = (win.document as unknown as { modelContext: any }).modelContext;
    const kinds: string[] = [];
    await toolManager.register({
      name: 'generic.tool',
      naturalLanguageProperties: { description: 'An agent-exposed generic tool.' },
      execute: (_input: unknown, { reportProgress }: ToolExecuteContext) => {
        reportProgress(1, 2, 'half');
        kinds.push(reportProgress === noProgress ? 'no-op' : 'listening');
        return { ok: true };
      },
    });
    const [registered] = await mc.getTools();
    expect(await mc.executeTool(registered, {})).toBe('{"ok":true}');
    expect(kinds).toEqual(['no-op']);
  });
});

describe('frames messages', () => {
  const call = {
    op: 'call',
    route: [],
    caller: 'https://a.example',
    via: [],
    callId: 'c1',
    name: 't',
    key: -1,
    origin: null,
    input: {},
    encoding: 'structured',
  };

  it('a call may ask for progress; anything but a boolean there is refused', () => {
    expect(isFrameRequest(call)).toBe(true);
    expect(isFrameRequest({ ...call, progress: true })).toBe(true);
    expect(isFrameRequest({ ...call, progress: false })).toBe(true);
    expect(isFrameRequest({ ...call, progress: 'yes' })).toBe(false);
    expect(isFrameRequest({ ...call, progress: 1 })).toBe(false);
  });

  it('a progress message has a call id and numbers; a message, when given, is a string', () => {
    const progress = { tag: FRAMES_TAG, kind: 'progress', callId: 'c1', progress: 1 };
    expect(isPortMessage(progress)).toBe(true);
    expect(isPortMessage({ ...progress, total: 2, message: 'm' })).toBe(true);
    expect(isPortMessage({ ...progress, callId: 1 })).toBe(false);
    expect(isPortMessage({ ...progress, progress: '1' })).toBe(false);
    expect(isPortMessage({ ...progress, progress: undefined })).toBe(false);
    expect(isPortMessage({ ...progress, total: '2' })).toBe(false);
    expect(isPortMessage({ ...progress, total: null })).toBe(false);
    expect(isPortMessage({ ...progress, message: 7 })).toBe(false);
    expect(isPortMessage({ ...progress, tag: 'other' })).toBe(false);
  });
});

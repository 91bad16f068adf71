// Scenarios for e2e/polyfill-build.e2e.ts, loaded as a same-origin module so that they run
// under the page's CSP like any page code. They use only the globals the polyfill installs.
const w = window as any;

async function exercise() {
  await w.toolManager.register({
    name: 'strict',
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 } },
      required: ['n'],
    },
    execute: ({ n }: { n: number }) => n + 1,
  });
  await w.toolManager.register({
    name: 'when',
    inputSchema: { type: 'object', properties: { at: { webType: 'Date' } }, required: ['at'] },
    execute: ({ at }: { at: Date }) => ({ isDate: at instanceof Date, year: at.getUTCFullYear() }),
  });
  const good = await w.tools.callTool('strict', { n: 2 });
  let bad: unknown;
  try {
    await w.tools.callTool('strict', { n: 0 });
  } catch (error) {
    bad = {
      name: (error as Error).name,
      message: (error as Error).message,
      count: (error as { errors?: unknown[] }).errors?.length,
    };
  }
  const lifted = await w.tools.callTool(
    'when',
    { at: '2026-11-30T00:00:00Z' },
    { encoding: 'json' },
  );
  // The module-build page exposes its internals as toolwireTest; the IIFE pages do not.
  const internals = w.toolwireTest;
  return {
    good,
    bad,
    lifted,
    engine: internals ? (await internals.loadValidator()).engine : undefined,
    canEval: internals ? internals.canEval() : undefined,
    hasModelContext: (document as any).modelContext instanceof w.ModelContext,
  };
}

w.toolwireScenarios = { exercise };

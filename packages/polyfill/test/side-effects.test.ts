// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';

describe('the module entry point', () => {
  it('touches no global when imported; install() is what adds them', async () => {
    const before = new Set(Object.getOwnPropertyNames(globalThis));
    const documentBefore = new Set(Object.getOwnPropertyNames(document));
    const module = await import('../src/index.js');
    const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.has(name));
    expect(added).toEqual([]);
    expect(
      Object.getOwnPropertyNames(document).filter((name) => !documentBefore.has(name)),
    ).toEqual([]);
    expect('toolManager' in globalThis).toBe(false);
    expect((document as unknown as { modelContext?: unknown }).modelContext).toBeUndefined();

    const installation = module.install();
    expect((globalThis as unknown as { toolManager: unknown }).toolManager).toBe(
      installation.toolManager,
    );
    expect((globalThis as unknown as { tools: unknown }).tools).toBe(installation.tools);
    expect((document as unknown as { modelContext: unknown }).modelContext).toBe(
      installation.modelContext,
    );
    expect(
      typeof (globalThis as unknown as { ToolActivatedEvent: unknown }).ToolActivatedEvent,
    ).toBe('function');
    // Installing twice returns the same installation.
    expect(module.install()).toBe(installation);
  });
});

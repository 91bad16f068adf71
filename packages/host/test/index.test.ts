import { describe, expect, it } from 'vitest';

describe('@toolwire/host', () => {
  it('importing it starts nothing and touches no global', async () => {
    const globals = new Set(Object.getOwnPropertyNames(globalThis));
    const servers = () =>
      process.getActiveResourcesInfo().filter((name) => name === 'TCPServerWrap').length;
    const before = servers();
    const api = await import('../src/index.js');
    expect(typeof api.createHost).toBe('function');
    expect(Object.getOwnPropertyNames(globalThis).filter((name) => !globals.has(name))).toEqual([]);
    expect(servers()).toBe(before);
  });
});

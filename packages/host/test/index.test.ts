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

  it('exports what a program that runs a host calls, and nothing else', async () => {
    const api = await import('../src/index.js');
    // Helpers for tests and sibling packages live in ../src/internal.js: a name added here is a
    // decision about the public API, not a convenience.
    expect(Object.keys(api).sort()).toEqual([
      'EXIT',
      'Host',
      'HostSession',
      'MemoryPairingStore',
      'createHost',
      'createMcpBridge',
      'openPairingFile',
      'pairingHome',
      'publishControl',
      'runCommand',
    ]);
  });

  it('the internal entry point is separate and does not repeat the public names', async () => {
    const api = await import('../src/index.js');
    const internal = await import('../src/internal.js');
    expect(Object.keys(internal).length).toBeGreaterThan(0);
    expect(Object.keys(internal).filter((name) => name in api)).toEqual([]);
    const manifest = (await import('../package.json', { with: { type: 'json' } })).default;
    expect(Object.keys(manifest.exports)).toEqual(['.', './internal']);
    // In the workspace only (the source condition); the published manifest leaves it out.
    expect(manifest.exports['./internal']).toEqual({ '@toolwire/source': './src/internal.ts' });
    expect(Object.keys(manifest.publishConfig.exports)).toEqual(['.']);
  });
});

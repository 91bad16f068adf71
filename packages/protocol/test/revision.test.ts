import { describe, expect, it } from 'vitest';
import { computeRevision } from '../src/index.js';

// WIRE "Revisions": the worked vectors (remote-tool-protocol-notes §9), reproduced exactly.
const PING = {
  id: 'demo.ping',
  name: 'Ping',
  description: 'Returns pong.',
  category: 'demo',
  policy: 'read',
  argumentsSchema: { type: 'object' },
  resultSchema: { type: 'object' },
};
const PING_REVISION = 'sha256:f4b4059c6d381a1fdf33eef7526f19e464865dbeabebaee146d0d441cb1de2fd';

describe('computeRevision', () => {
  it('hashes the worked definition vector', async () => {
    expect(await computeRevision(PING)).toBe(PING_REVISION);
  });

  it('hashes the worked catalog and availability vectors', async () => {
    const catalog = {
      schema: 'ansight.tool-catalog.v3',
      guard: { discoveryEnabled: true, executionEnabled: true, maxPolicy: 'read' },
      tools: [{ id: 'demo.ping', definitionRevision: PING_REVISION }],
    };
    expect(await computeRevision(catalog)).toBe(
      'sha256:32e0bf5e4e252caf39d93777ce806eb9bfc312c6aeab6c23aa4effd6034c9b70',
    );
    expect(
      await computeRevision({ tools: [{ id: 'demo.ping', runtime: { available: true } }] }),
    ).toBe('sha256:a3ad97c30aeca091745a6c6449734525b4cb84d007b309c3801d73d387432824');
    const unavailable = {
      tools: [
        {
          id: 'demo.ping',
          runtime: {
            available: false,
            code: 'map_not_loaded',
            reason: 'Load a map first.',
            retryable: true,
          },
        },
      ],
    };
    expect(await computeRevision(unavailable)).toBe(
      'sha256:fa3d76d31c0b0c388233a4d86d6f378b88681f5fdf40aa947ee9feeaeb8f9576',
    );
  });

  it('depends on key order (insertion order is hashed, not a canonical form)', async () => {
    const { id, name, ...rest } = PING;
    expect(await computeRevision({ name, id, ...rest })).not.toBe(PING_REVISION);
  });
});

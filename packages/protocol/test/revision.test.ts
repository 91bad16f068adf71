import { describe, expect, it } from 'vitest';
import { computeRevision, toStaticDefinition } from '../src/index.js';

// docs/wire.md "Revisions": the worked vectors (the protocol's own), reproduced exactly.
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

describe('the origin extension (toolwire)', () => {
  it('leaves a definition without an origin as docs/wire.md hashes it', async () => {
    const plain = toStaticDefinition({ ...PING, policy: 'read' });
    expect(JSON.stringify(plain)).toBe(JSON.stringify(PING));
    expect(await computeRevision(plain)).toBe(PING_REVISION);
    expect(Object.keys(toStaticDefinition({ ...PING, policy: 'read', origin: '' }))).toEqual(
      Object.keys(PING),
    );
  });

  it('appends the origin after every standard key, and it is part of the definition', async () => {
    const withOrigin = toStaticDefinition({
      ...PING,
      policy: 'read',
      keywords: ['k'],
      prerequisiteToolIds: ['p'],
      argumentEncoding: 'flattened-string',
      origin: 'https://widget.example',
    });
    expect(Object.keys(withOrigin)).toEqual([
      ...Object.keys(PING),
      'keywords',
      'prerequisiteToolIds',
      'argumentEncoding',
      'origin',
    ]);
    expect(
      await computeRevision(
        toStaticDefinition({ ...PING, policy: 'read', origin: 'https://widget.example' }),
      ),
    ).not.toBe(PING_REVISION);
  });
});

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

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool, ToolBridge } from '../src/index.js';
import { createToolBridge, toolFailure, toolResult } from '../src/index.js';
import { tool } from './helpers.js';

/**
 * Golden wire fixtures (docs/style.md 13): one file per message shape under test/fixtures/. A change
 * to the wire shows up as a diff of these files. `UPDATE_FIXTURES=1` rewrites them; review the
 * diff by hand before committing. Volatile fields are checked for format, then replaced.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const fixturesDir = new URL('./fixtures/', import.meta.url);

function normalize(frame: string): unknown {
  return JSON.parse(frame, (key, value) => {
    if ((key === 'sentAt' || key === 'evaluatedAtUtc') && typeof value === 'string') {
      expect(value).toMatch(ISO);
      return `<${key}>`;
    }
    if (key === 'id' && typeof value === 'string' && value.startsWith('tool.error.')) {
      expect(value).toMatch(/^tool\.error\.[0-9a-f]{32}$/);
      return 'tool.error.<32 hex>';
    }
    if (key === 'data' && typeof value === 'string' && value.length > 64) {
      expect(value).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      return '<base64 of the gzip bytes>';
    }
    if (key === 'compressedByteCount' && typeof value === 'number') {
      expect(value).toBeGreaterThan(0);
      return '<gzip byte count>';
    }
    if (key === 'description' && typeof value === 'string' && value.length > 1000) {
      return `<${value.length} characters>`;
    }
    return value;
  });
}

async function golden(name: string, bridge: ToolBridge, request: Record<string, unknown>) {
  const response = await bridge.handle(JSON.stringify(request));
  expect(response, `${name}: expected a response`).toBeDefined();
  const actual = { request, response: normalize(response?.frame ?? '') };
  const file = new URL(`${name}.json`, fixturesDir);
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(file)) {
    if (process.env.CI) throw new Error(`fixture ${name}.json is missing`);
    writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
  }
  expect(actual).toEqual(JSON.parse(readFileSync(file, 'utf8')));
}

function envelope(type: string, id: string, payload?: unknown) {
  return {
    type,
    id,
    sessionId: 'session-1',
    sentAt: '2026-11-30T00:00:00Z',
    capability: 'tool.exec',
    ...(payload === undefined ? {} : { payload }),
  };
}

let mapLoaded = true;
const sampleTools: BridgeTool[] = [
  tool('demo.ping', () => ({ pong: true }), {
    name: 'Ping',
    description: 'Returns pong.',
    category: 'demo',
  }),
  tool(
    'map.capture',
    () => toolResult({ width: 640, height: 480 }, { message: 'Captured the map.' }),
    {
      name: 'Capture map',
      description: 'Captures the visible map region.',
      keywords: ['snapshot', ' ', 'viewport'],
      prerequisiteToolIds: ['route.open', ' route.open ', 'demo.ping'],
      argumentsSchema: {
        type: 'object',
        properties: { zoom: { type: 'integer', minimum: 1, maximum: 20 } },
        additionalProperties: false,
      },
      resultSchema: {
        type: 'object',
        properties: { width: { type: 'integer' }, height: { type: 'integer' } },
        required: ['width', 'height'],
      },
    },
    () =>
      mapLoaded
        ? true
        : {
            available: false,
            code: 'map_not_loaded',
            reason: 'Load a map first.',
            retryable: true,
          },
  ),
  tool('route.open', () => ({ opened: true }), {
    name: 'Open route',
    policy: 'write',
    category: 'route',
  }),
  tool('admin.wipe', () => ({}), { name: 'Wipe', policy: 'critical', category: 'admin' }),
  tool(
    'demo.throws',
    () => {
      throw new RangeError('boom');
    },
    { name: 'Throws', category: 'demo' },
  ),
  tool(
    'demo.fails',
    () =>
      toolFailure({
        code: 'demo_refused',
        message: 'Refused on purpose.',
        details: { why: 'test' },
      }),
    {
      name: 'Fails',
      category: 'demo',
    },
  ),
  tool('demo.badresult', () => ({ width: 'wide' }), {
    name: 'Bad result',
    category: 'demo',
    resultSchema: { type: 'object', properties: { width: { type: 'integer' } } },
  }),
  tool('ui.get_visual_tree', () => ({ root: { role: 'main', children: [] } }), {
    name: 'Visual tree',
    category: 'ui',
  }),
];

function sampleBridge(tools: BridgeTool[] = sampleTools): ToolBridge {
  mapLoaded = true;
  return createToolBridge({
    validator: createAjvProvider(),
    tools: () => tools,
    guard: 'read-write',
  });
}

describe('golden fixtures: tool.query -> tool.catalog', () => {
  it('full listing (no detail)', async () => {
    await golden('catalog-full', sampleBridge(), envelope('tool.query', 'q-full', {}));
  });

  it('index listing', async () => {
    await golden(
      'catalog-index',
      sampleBridge(),
      envelope('tool.query', 'q-index', { detail: 'index' }),
    );
  });

  it('definitions projection for selected ids', async () => {
    await golden(
      'catalog-definitions',
      sampleBridge(),
      envelope('tool.query', 'q-defs', {
        detail: 'DEFINITIONS',
        ids: ['map.capture', '', 'demo.ping'],
      }),
    );
  });

  it('index with query + limit', async () => {
    await golden(
      'catalog-index-query',
      sampleBridge(),
      envelope('tool.query', 'q-search', { detail: 'index', query: 'MAP', limit: 1 }),
    );
  });

  // toolwire paging (docs/wire.md "Paging"): the first page, the next, and the two refusals.
  it('paged: the first page carries nextCursor', async () => {
    await golden(
      'catalog-paged-first',
      sampleBridge(),
      envelope('tool.query', 'q-page-1', { detail: 'index', limit: 1, cursor: '' }),
    );
  });

  it('paged: the page a cursor resumes, the last one, has none', async () => {
    const bridge = sampleBridge();
    const first = (
      await bridge.handle(envelope('tool.query', 'q-0', { detail: 'index', limit: 1, cursor: '' }))
    )?.envelope as unknown as { payload: { nextCursor: string } };
    await golden(
      'catalog-paged-next',
      bridge,
      envelope('tool.query', 'q-page-2', {
        detail: 'index',
        limit: 1,
        cursor: first.payload.nextCursor,
      }),
    );
  });

  it('paged: a cursor of another listing is stale', async () => {
    await golden(
      'error-cursor-stale',
      sampleBridge(),
      envelope('tool.query', 'q-stale', { detail: 'index', cursor: `tw1.1.${'0'.repeat(64)}` }),
    );
  });

  it('paged: a cursor this page could not have made is invalid', async () => {
    await golden(
      'error-cursor-invalid',
      sampleBridge(),
      envelope('tool.query', 'q-forged', { detail: 'index', cursor: '../../etc/passwd' }),
    );
  });

  it('unchanged: exactly three keys', async () => {
    const bridge = sampleBridge();
    const first = (await bridge.handle(envelope('tool.query', 'q-0', { detail: 'index' })))
      ?.envelope as unknown as { payload: { revision: string; availabilityRevision: string } };
    await golden(
      'catalog-unchanged',
      bridge,
      envelope('tool.query', 'q-unchanged', {
        detail: 'index',
        ifRevision: first.payload.revision,
        ifAvailabilityRevision: first.payload.availabilityRevision,
      }),
    );
  });

  it('unchanged with availability changes', async () => {
    const bridge = sampleBridge();
    const first = (await bridge.handle(envelope('tool.query', 'q-0', { detail: 'index' })))
      ?.envelope as unknown as { payload: { revision: string; availabilityRevision: string } };
    mapLoaded = false;
    await golden(
      'catalog-changes',
      bridge,
      envelope('tool.query', 'q-changes', {
        detail: 'index',
        ifRevision: first.payload.revision,
        ifAvailabilityRevision: first.payload.availabilityRevision,
      }),
    );
  });

  it('a full listing with an unavailable tool carries runtime and executable:false', async () => {
    const bridge = sampleBridge();
    mapLoaded = false;
    await golden(
      'catalog-full-unavailable',
      bridge,
      envelope('tool.query', 'q-unavailable', { ids: ['map.capture'] }),
    );
  });

  it('a large catalog is wrapped', async () => {
    const big = tool('demo.big', () => ({}), { description: 'd'.repeat(64 * 1024) });
    await golden('catalog-wrapped', sampleBridge([big]), envelope('tool.query', 'q-big', {}));
  });

  // toolwire extension: each tool's origin, after the standard keys; absent when not set (every
  // fixture above has none, and is byte-identical to what it was before the extension).
  const originTools = [
    tool('demo.ping', () => ({ pong: true }), {
      name: 'Ping',
      description: 'Returns pong.',
      category: 'demo',
    }),
    tool('app.save', () => ({}), {
      name: 'Save',
      policy: 'write',
      keywords: ['store'],
      origin: 'https://app.example',
    }),
    tool('calendar.events', () => ({}), {
      name: 'Events',
      prerequisiteToolIds: ['app.save'],
      origin: 'https://widget.example',
    }),
  ];

  it('index listing with origins', async () => {
    await golden(
      'catalog-origin-index',
      sampleBridge(originTools),
      envelope('tool.query', 'q-origin-index', { detail: 'index' }),
    );
  });

  it('full listing with origins, one tool unavailable', async () => {
    const tools = originTools.map((entry) =>
      entry.definition.id === 'calendar.events'
        ? { ...entry, availability: () => ({ available: false, code: 'calendar_closed' }) }
        : entry,
    );
    await golden(
      'catalog-origin-full',
      sampleBridge(tools),
      envelope('tool.query', 'q-origin-full', {}),
    );
  });

  // toolwire extension: the page's idempotentHint and openWorldHint, last, only the booleans it
  // set; the index carries none (issue 16, item 9).
  const hintedTools = [
    tool('demo.set', () => ({}), {
      name: 'Set',
      policy: 'write',
      origin: 'https://app.example',
      annotations: { idempotentHint: true, openWorldHint: false },
    }),
    tool('demo.fetch', () => ({}), {
      name: 'Fetch',
      annotations: { openWorldHint: true, readOnlyHint: true, idempotentHint: 'yes' } as never,
    }),
    tool('demo.ping', () => ({}), { name: 'Ping', annotations: {} }),
  ];

  it('full listing with annotations', async () => {
    await golden(
      'catalog-annotations-full',
      sampleBridge(hintedTools),
      envelope('tool.query', 'q-annotations-full', {}),
    );
  });

  it('index listing with annotations carries none', async () => {
    await golden(
      'catalog-annotations-index',
      sampleBridge(hintedTools),
      envelope('tool.query', 'q-annotations-index', { detail: 'index' }),
    );
  });

  it('discovery disabled', async () => {
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => sampleTools,
      guard: 'disabled',
    });
    await golden('error-discovery-disabled', bridge, envelope('tool.query', 'q-disabled', {}));
  });
});

describe('golden fixtures: tool.call -> tool.result | tool.error', () => {
  const calls: [string, unknown][] = [
    ['result', { toolId: 'demo.ping', arguments: {} }],
    ['result-message', { toolId: 'map.capture', arguments: { zoom: 3 }, callId: 'c-1' }],
    [
      'result-evidence',
      { toolId: 'demo.ping', after: { include: ['visualTree', 'unknownThing'] } },
    ],
    ['error-payload-invalid', ['not', 'an', 'object']],
    ['error-missing-id', { toolId: '   ' }],
    ['error-not-found', { toolId: 'no.such.tool' }],
    ['error-denied', { toolId: 'admin.wipe' }],
    ['error-arguments-invalid', { toolId: 'demo.ping', arguments: [1, 2] }],
    ['error-arguments-schema', { toolId: 'map.capture', arguments: { zoom: 99, extra: true } }],
    ['error-exception', { toolId: 'demo.throws' }],
    ['error-failed', { toolId: 'demo.fails' }],
    ['error-result-schema', { toolId: 'demo.badresult' }],
  ];
  for (const [name, payload] of calls) {
    it(name, async () => {
      await golden(`call-${name}`, sampleBridge(), envelope('tool.call', `c-${name}`, payload));
    });
  }

  it('error-unavailable', async () => {
    const bridge = sampleBridge();
    mapLoaded = false;
    await golden(
      'call-error-unavailable',
      bridge,
      envelope('tool.call', 'c-unavailable', { toolId: 'map.capture' }),
    );
  });
});

describe('golden fixtures: tool.batch -> tool.batch.result', () => {
  const three = [
    { callId: 'first', toolId: 'demo.ping', arguments: {} },
    { callId: 'second', toolId: 'demo.fails' },
    { callId: 'third', toolId: 'route.open' },
  ];

  it('stops after the first failure', async () => {
    await golden(
      'batch-stopped',
      sampleBridge(),
      envelope('tool.batch', 'b-stop', { calls: three }),
    );
  });

  it('continueOnError runs everything, a non-object item included', async () => {
    await golden(
      'batch-continue',
      sampleBridge(),
      envelope('tool.batch', 'b-continue', {
        calls: [...three, 'not-a-call'],
        continueOnError: true,
      }),
    );
  });

  it('no calls array', async () => {
    await golden(
      'batch-error-payload',
      sampleBridge(),
      envelope('tool.batch', 'b-none', { calls: 'nope' }),
    );
  });

  it('size 0 and 33', async () => {
    await golden(
      'batch-error-size-0',
      sampleBridge(),
      envelope('tool.batch', 'b-0', { calls: [] }),
    );
    const many = Array.from({ length: 33 }, () => ({ toolId: 'demo.ping' }));
    await golden(
      'batch-error-size-33',
      sampleBridge(),
      envelope('tool.batch', 'b-33', { calls: many }),
    );
  });
});

describe('golden fixtures: unreadable and unknown requests', () => {
  it('a tool request without an id', async () => {
    const { id: _, ...noId } = envelope('tool.call', 'x', { toolId: 'demo.ping' });
    await golden('error-invalid-request', sampleBridge(), noId);
  });

  it('an unknown tool.* type', async () => {
    await golden(
      'error-unknown-type',
      sampleBridge(),
      envelope('tool.cancel', 'u-1', { requestId: 'c-1' }),
    );
  });
});

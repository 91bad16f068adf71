/** `ui.query_nodes`'s catalog entry (query-nodes.ts runs it): listed before the tool loads. */
import type { BridgeToolDefinition } from '@toolwire/protocol';
import {
  referenceSchema,
  revisionSchema,
  SUMMARY_REQUIRED,
  snapshotIdSchema,
  summaryProperties,
} from './lib/schemas.js';

export const DEFAULT_QUERY_LIMIT = 20;

const criterion = { type: 'string', minLength: 1, maxLength: 1000 };

const argumentsSchema = {
  type: 'object',
  properties: {
    automationId: { ...criterion, description: 'Exact data-testid or id.' },
    role: { ...criterion, description: 'ARIA role, e.g. button, textbox, checkbox, link.' },
    text: { ...criterion, description: 'Case-insensitive substring of the name or text.' },
    selector: { ...criterion, description: 'A CSS selector.' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: DEFAULT_QUERY_LIMIT },
    includeHidden: { type: 'boolean', default: false },
  },
  additionalProperties: false,
  anyOf: [
    { required: ['automationId'] },
    { required: ['role'] },
    { required: ['text'] },
    { required: ['selector'] },
  ],
};

const resultSchema = {
  type: 'object',
  properties: {
    snapshotId: snapshotIdSchema,
    revision: revisionSchema,
    count: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean' },
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { reference: referenceSchema, ...summaryProperties },
        required: ['reference', ...SUMMARY_REQUIRED],
        additionalProperties: false,
      },
    },
  },
  required: ['snapshotId', 'revision', 'count', 'truncated', 'nodes'],
  additionalProperties: false,
};

export const queryNodesDefinition: BridgeToolDefinition = {
  id: 'ui.query_nodes',
  name: 'Query UI Nodes',
  description:
    'Finds page nodes by automation id, role, text or CSS selector and returns snapshot-scoped references for ui.perform_action.',
  category: 'ui',
  policy: 'read',
  argumentsSchema,
  resultSchema,
  keywords: ['ui', 'dom', 'find', 'query', 'selector', 'element', 'reference', 'node'],
};

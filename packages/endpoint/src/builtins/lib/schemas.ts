/**
 * JSON Schema (2020-12) pieces shared by the built-in tools: the node reference, the node
 * summary fields, bounds. Every object is closed (`additionalProperties: false`).
 */
import type { JsonSchema } from '@toolwire/protocol';

const SNAPSHOT_ID_PATTERN = '^web:[0-9]+:[0-9a-f]{8}$';
const NODE_ID_PATTERN = '^n[0-9]+$';

export const snapshotIdSchema: JsonSchema = {
  type: 'string',
  pattern: SNAPSHOT_ID_PATTERN,
  description: 'web:<revision>:<8-hex content hash>',
};

export const revisionSchema: JsonSchema = {
  type: 'integer',
  minimum: 1,
  description: 'Moves whenever the DOM or a form value changes.',
};

export const nodeIdSchema: JsonSchema = { type: 'string', pattern: NODE_ID_PATTERN };

export const referenceSchema: JsonSchema = {
  type: 'object',
  description: 'A node reference as ui.query_nodes returns it.',
  properties: {
    source: { const: 'web' },
    snapshotId: snapshotIdSchema,
    revision: revisionSchema,
    nodeId: nodeIdSchema,
  },
  required: ['source', 'snapshotId', 'revision', 'nodeId'],
  additionalProperties: false,
};

export const boundsSchema: JsonSchema = {
  type: 'object',
  description: 'getBoundingClientRect() in CSS pixels, rounded.',
  properties: {
    x: { type: 'integer' },
    y: { type: 'integer' },
    width: { type: 'integer', minimum: 0 },
    height: { type: 'integer', minimum: 0 },
  },
  required: ['x', 'y', 'width', 'height'],
  additionalProperties: false,
};

export const checkedSchema: JsonSchema = { enum: [true, false, 'mixed'] };

/** The fields every reported node carries (NodeSummary). */
export const summaryProperties: Record<string, JsonSchema> = {
  role: { type: 'string', minLength: 1 },
  name: { type: 'string', minLength: 1, maxLength: 200 },
  automationId: { type: 'string', minLength: 1 },
  text: { type: 'string', minLength: 1, maxLength: 200 },
  value: { type: 'string', minLength: 1, maxLength: 200 },
  visible: { type: 'boolean' },
  enabled: { type: 'boolean' },
  checked: checkedSchema,
  selected: { const: true },
};

export const SUMMARY_REQUIRED = ['role', 'visible', 'enabled'];

/** `ui.get_visual_tree`'s catalog entry (visual-tree.ts runs it): listed before the tool loads. */
import type { BridgeToolDefinition } from '@toolwire/protocol';
import {
  boundsSchema,
  nodeIdSchema,
  revisionSchema,
  SUMMARY_REQUIRED,
  snapshotIdSchema,
  summaryProperties,
} from './lib/schemas.js';

export const DEFAULT_MAX_DEPTH = 32;
export const DEFAULT_MAX_NODES = 500;

const argumentsSchema = {
  type: 'object',
  properties: {
    maxDepth: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      default: DEFAULT_MAX_DEPTH,
      description: 'Levels to include; 1 is the root alone.',
    },
    maxNodes: {
      type: 'integer',
      minimum: 1,
      maximum: 5000,
      default: DEFAULT_MAX_NODES,
      description: 'Most nodes to include, chosen breadth-first.',
    },
    rootNodeId: { ...nodeIdSchema, description: 'Start at this node instead of the document.' },
    includeHidden: {
      type: 'boolean',
      default: false,
      description: 'Also report hidden nodes (visible: false).',
    },
  },
  additionalProperties: false,
};

const resultSchema = {
  type: 'object',
  properties: {
    snapshotId: snapshotIdSchema,
    revision: revisionSchema,
    truncated: { type: 'boolean' },
    nodeCount: { type: 'integer', minimum: 1 },
    root: { $ref: '#/$defs/node' },
  },
  required: ['snapshotId', 'revision', 'truncated', 'nodeCount', 'root'],
  additionalProperties: false,
  $defs: {
    node: {
      type: 'object',
      properties: {
        nodeId: nodeIdSchema,
        ...summaryProperties,
        bounds: boundsSchema,
        children: { type: 'array', minItems: 1, items: { $ref: '#/$defs/node' } },
      },
      required: ['nodeId', ...SUMMARY_REQUIRED],
      additionalProperties: false,
    },
  },
};

export const visualTreeDefinition: BridgeToolDefinition = {
  id: 'ui.get_visual_tree',
  name: 'Get Visual Tree',
  description:
    "Returns a compact tree of the page's accessible DOM nodes (role, name, automation id, text, value, bounds, state) with a snapshotId that changes when the page does.",
  category: 'ui',
  policy: 'read',
  argumentsSchema,
  resultSchema,
  keywords: ['ui', 'dom', 'accessibility', 'tree', 'snapshot', 'inspect', 'screen'],
};

/** `ui.perform_action`'s catalog entry (perform-action.ts runs it): listed before the tool loads. */
import type { BridgeToolDefinition } from '@toolwire/protocol';
import {
  checkedSchema,
  nodeIdSchema,
  referenceSchema,
  revisionSchema,
  snapshotIdSchema,
} from './lib/schemas.js';
import type { UiAction } from './types.js';

export const UI_ACTIONS: readonly UiAction[] = [
  'tap',
  'setText',
  'clear',
  'focus',
  'scrollIntoView',
  'select',
  'check',
];

/** The value in an action's result is bounded (a textarea may hold megabytes). */
export const MAX_RESULT_VALUE = 1000;

const argumentsSchema = {
  type: 'object',
  properties: {
    reference: referenceSchema,
    action: { enum: UI_ACTIONS },
    text: { type: 'string', maxLength: 1_000_000, description: 'setText: the new value.' },
    value: {
      description: 'select: option value or label; an array selects several in <select multiple>.',
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1000 },
      ],
    },
    checked: { type: 'boolean', default: true, description: 'check: the state wanted.' },
  },
  required: ['reference', 'action'],
  additionalProperties: false,
  allOf: [
    {
      if: { properties: { action: { const: 'setText' } }, required: ['action'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
      then: { required: ['text'] },
    },
    {
      if: { properties: { action: { const: 'select' } }, required: ['action'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
      then: { required: ['value'] },
    },
  ],
};

const resultSchema = {
  type: 'object',
  properties: {
    performed: { enum: UI_ACTIONS },
    nodeId: nodeIdSchema,
    snapshotId: snapshotIdSchema,
    revision: revisionSchema,
    value: { type: 'string', maxLength: MAX_RESULT_VALUE },
    checked: checkedSchema,
  },
  required: ['performed', 'nodeId', 'snapshotId', 'revision'],
  additionalProperties: false,
};

export const performActionDefinition: BridgeToolDefinition = {
  id: 'ui.perform_action',
  name: 'Perform UI Action',
  description:
    'Performs a user action (tap, setText, clear, focus, scrollIntoView, select, check) on a node referenced by ui.query_nodes, dispatching the events a real user would cause.',
  category: 'ui',
  policy: 'write',
  argumentsSchema,
  resultSchema,
  keywords: ['ui', 'dom', 'tap', 'click', 'type', 'fill', 'select', 'check', 'action', 'input'],
  prerequisiteToolIds: ['ui.query_nodes'],
};

import { jsonTypeName, typeWords } from './describe.js';
import type { JsonNode } from './schema-node.js';
import type { WalkState } from './walk-state.js';

/**
 * The value keywords both walkers check on JSON (LOWERING.md [L6]): lift on its input, lower
 * on the JSON it has just made, so a schema means the same thing in both directions.
 */

/** `type` refused the value: say which types were allowed and what came instead. */
export function mismatch(node: JsonNode, value: unknown, w: WalkState): never {
  return w.fail(
    'type_mismatch',
    `Expected ${typeWords(node.types)}, got ${jsonTypeName(value)}.`,
    `${node.at}/type`,
  );
}

/** minLength/maxLength count code points, as JSON Schema (and ajv) do, not UTF-16 units. */
export function checkString(node: JsonNode, value: string, w: WalkState): void {
  if (node.minLength !== undefined || node.maxLength !== undefined) {
    let length = value.length;
    for (let i = 0; i < value.length; i++) {
      const unit = value.charCodeAt(i);
      if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < value.length) {
        const next = value.charCodeAt(i + 1);
        if (next >= 0xdc00 && next < 0xe000) {
          length--;
          i++;
        }
      }
    }
    if (node.minLength !== undefined && length < node.minLength) {
      w.fail('constraint_failed', `Shorter than ${node.minLength}.`, `${node.at}/minLength`);
    }
    if (node.maxLength !== undefined && length > node.maxLength) {
      w.fail('constraint_failed', `Longer than ${node.maxLength}.`, `${node.at}/maxLength`);
    }
  }
  if (node.pattern !== undefined && !node.pattern.test(value)) {
    w.fail('constraint_failed', `Does not match ${node.pattern.source}.`, `${node.at}/pattern`);
  }
}

export function checkNumber(node: JsonNode, value: number, w: WalkState): void {
  const at = node.at;
  if (node.minimum !== undefined && value < node.minimum) {
    w.fail('constraint_failed', `Less than ${node.minimum}.`, `${at}/minimum`);
  }
  if (node.maximum !== undefined && value > node.maximum) {
    w.fail('constraint_failed', `Greater than ${node.maximum}.`, `${at}/maximum`);
  }
  if (node.exclusiveMinimum !== undefined && value <= node.exclusiveMinimum) {
    w.fail(
      'constraint_failed',
      `Not greater than ${node.exclusiveMinimum}.`,
      `${at}/exclusiveMinimum`,
    );
  }
  if (node.exclusiveMaximum !== undefined && value >= node.exclusiveMaximum) {
    w.fail(
      'constraint_failed',
      `Not less than ${node.exclusiveMaximum}.`,
      `${at}/exclusiveMaximum`,
    );
  }
  // The quotient test ajv uses; binary fractions make 0.3 / 0.1 fail there too.
  if (node.multipleOf !== undefined && !Number.isInteger(value / node.multipleOf)) {
    w.fail('constraint_failed', `Not a multiple of ${node.multipleOf}.`, `${at}/multipleOf`);
  }
}

/** Count keywords shared by both walkers: `what` is `properties` or `items`. */
export function checkCount(
  min: number | undefined,
  max: number | undefined,
  count: number,
  w: WalkState,
  at: string,
  what: 'Properties' | 'Items',
): void {
  if (min !== undefined && count < min) {
    w.fail('constraint_failed', `Fewer than ${min} ${what.toLowerCase()}.`, `${at}/min${what}`);
  }
  if (max !== undefined && count > max) {
    w.fail('constraint_failed', `More than ${max} ${what.toLowerCase()}.`, `${at}/max${what}`);
  }
}

/** The first `required` name the object lacks, as missing_property at the object. */
export function requireAll(node: JsonNode, present: object, w: WalkState): void {
  for (const name of node.required ?? []) {
    if (!Object.hasOwn(present, name)) {
      w.fail('missing_property', `Missing required property "${name}".`, `${node.at}/required`);
    }
  }
}

/**
 * Every code a LoweringError carries (LOWERING.md §"Errors"). One table, so the type is
 * derived from it and a new code is a visible diff. Each value says when the code is raised.
 */
export const LOWERING_ERROR_CODES = {
  /** A value whose type is outside the allow-list: symbol, function, class instance, WeakMap... */
  unsupported_type: 'the value has no JSON lowering',
  /** The platform lacks what the rule needs: no canvas (Node, happy-dom), no Blob, big-endian. */
  unsupported_in_environment: 'this environment cannot perform the conversion',
  /** The schema uses a keyword or a webType this package does not implement, or is malformed. */
  unsupported_schema: 'the schema cannot be followed',
  /** The value (lower) or the JSON (lift) has another type than the schema says. */
  type_mismatch: 'the type differs from the schema',
  /** Lift only: the input holds something JSON cannot (undefined, NaN, a Date, a class instance). */
  not_json: 'the input is not JSON',
  /** Right type, wrong content: invalid Date, bad base64, non-finite number, undecodable PNG... */
  invalid_value: 'the value is not valid for its type',
  /** A `required` property is absent (or `undefined`, when lowering). */
  missing_property: 'a required property is absent',
  /** A property that `additionalProperties: false` (or a web-type record) does not allow. */
  unexpected_property: 'a property the schema does not allow',
  /** enum, const, a `false` schema, `not`, or a length/range/count keyword refused the value. */
  constraint_failed: 'a schema constraint refused the value',
  /** anyOf: no branch accepted the value; oneOf: none, or more than one. */
  no_matching_branch: 'no branch of anyOf/oneOf fits',
  /** Two Set items, or two Map keys, have the same JSON form. */
  duplicate_entry: 'two entries have the same JSON form',
  /** Lower: an object contains itself. Lift: the input object graph loops. */
  cycle: 'the value contains itself',
  /** Reading a getter or calling toJSON threw; `cause` holds what was thrown. */
  read_failed: 'reading the value threw',
  /** More than `maxDepth` nested arrays/objects on the JSON side. */
  depth_exceeded: 'nested deeper than maxDepth',
  /** The JSON text would exceed `maxJsonBytes` UTF-8 bytes. */
  json_too_large: 'the JSON exceeds maxJsonBytes',
  /** One binary value (bytes, Blob, PNG, or decoded pixels) exceeds `maxBinaryBytes`. */
  binary_too_large: 'a binary value exceeds maxBinaryBytes',
} as const;

export type LoweringErrorCode = keyof typeof LOWERING_ERROR_CODES;

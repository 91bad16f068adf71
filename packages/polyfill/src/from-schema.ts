/**
 * `FromSchema<S>`: the value a tool's `execute` receives for a JSON Schema written `as const`
 * (or inferred by `defineTool`'s const type parameters), `webType` included, as
 * packages/lowering/LOWERING.md delivers it: `{webType: 'Date'}` is a `Date`, a Map's `keys` /
 * `values` and a Set's `items` type its entries. Types only; nothing here exists at run time.
 *
 * Understood: `type` (one or a list, so `['string', 'null']` is nullable), `properties`,
 * `required`, `additionalProperties`, `items`, `prefixItems` (with `minItems`), `enum`,
 * `const`, `anyOf`, `oneOf`, `allOf`, `webType`, `true` / `false`. Anything else (`$ref`, `not`,
 * `if`, `patternProperties`...) adds nothing, and a schema no rule can read is `unknown`.
 * Each keyword is one conditional type and the rules only walk down the schema, so checking
 * cost grows with the schema's size, never with a recursion of the rules themselves.
 */

/** Any JSON Schema as `defineTool` sees it: an object or a boolean. */
export type JsonSchemaLike = boolean | { readonly [keyword: string]: unknown };

/** What `execute` receives for schema `S` (distributes over a union of schemas). */
export type FromSchema<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly webType: infer W }
      ? WebValue<S, W>
      : Simplify<
          TypeOf<S> &
            EnumOf<S> &
            ConstOf<S> &
            BranchesOf<S, 'anyOf'> &
            BranchesOf<S, 'oneOf'> &
            AllOf<S>
        >;

/**
 * The web types of LOWERING.md §7, as lift delivers them (a structured caller's value is
 * checked to be one). An unknown name is refused at registration's first call: `unknown`.
 */
interface WebTypes<S> {
  Date: Date;
  BigInt: bigint;
  Map: Map<Param<S, 'keys'>, Param<S, 'values'>>;
  Set: Set<Param<S, 'items'>>;
  ArrayBuffer: ArrayBuffer;
  Int8Array: Int8Array;
  Uint8Array: Uint8Array;
  Uint8ClampedArray: Uint8ClampedArray;
  Int16Array: Int16Array;
  Uint16Array: Uint16Array;
  Int32Array: Int32Array;
  Uint32Array: Uint32Array;
  Float32Array: Float32Array;
  Float64Array: Float64Array;
  BigInt64Array: BigInt64Array;
  BigUint64Array: BigUint64Array;
  DataView: DataView;
  Blob: Blob;
  File: File;
  ImageBitmap: ImageBitmap;
  ImageData: ImageData;
  HTMLCanvasElement: HTMLCanvasElement;
  OffscreenCanvas: OffscreenCanvas;
  Error: Error;
  DOMException: DOMException;
  RegExp: RegExp;
  URL: URL;
}

type WebValue<S, W> = W extends keyof WebTypes<S> ? WebTypes<S>[W] : unknown;

/** A web type's parameter schema ([M3]: absent means `{}`, any value). */
type Param<S, K extends string> = S extends { readonly [P in K]: infer P }
  ? FromSchema<P>
  : unknown;

/** `type`, one name or a list of them. */
type TypeOf<S> = S extends { readonly type: infer T }
  ? T extends readonly unknown[]
    ? ByName<S, T[number]>
    : ByName<S, T>
  : unknown;

type ByName<S, T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'object'
          ? ObjectOf<S>
          : T extends 'array'
            ? ArrayOf<S>
            : unknown;

type EnumOf<S> = S extends { readonly enum: readonly (infer E)[] } ? Mutable<E> : unknown;
type ConstOf<S> = S extends { readonly const: infer C } ? Mutable<C> : unknown;

/** `anyOf` / `oneOf`: one of the branches (oneOf's "exactly one" is not a type). */
type BranchesOf<S, K extends 'anyOf' | 'oneOf'> = S extends {
  readonly [P in K]: infer B extends readonly unknown[];
}
  ? FromSchema<B[number]>
  : unknown;

type AllOf<S> = S extends { readonly allOf: infer B extends readonly unknown[] }
  ? Every<B>
  : unknown;
type Every<B> = B extends readonly [infer H, ...infer T] ? FromSchema<H> & Every<T> : unknown;

/** Object keys: `required` ones present, the others optional; `additionalProperties` adds the rest. */
type ObjectOf<S> = Simplify<
  (S extends { readonly properties: infer P } ? Properties<P, RequiredKeys<S>> : unknown) &
    MissingRequired<S> &
    Additional<S>
>;

type RequiredKeys<S> = S extends { readonly required: readonly (infer R extends string)[] }
  ? R
  : never;

type Properties<P, R> = {
  -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]>;
} & {
  -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
};

/** Names in `required` that `properties` does not describe: present, of any value. */
type MissingRequired<S> = {
  [K in Exclude<
    RequiredKeys<S>,
    S extends { readonly properties: infer P } ? keyof P : never
  >]: unknown;
};

/**
 * Absent `additionalProperties` adds no index signature (so a misspelt name is an error); a
 * schema adds one whose values are that schema's (or a named property's) type; `false` none.
 * With no `properties` at all, absent means any keys.
 */
type Additional<S> = S extends { readonly additionalProperties: infer A }
  ? A extends false
    ? unknown
    : { [key: string]: FromSchema<A> | NamedValues<S> }
  : S extends { readonly properties: unknown }
    ? unknown
    : { [key: string]: unknown };

type NamedValues<S> = S extends { readonly properties: infer P } ? FromSchema<P[keyof P]> : never;

/**
 * Arrays: `items` alone types every item; `prefixItems` types the first ones and `items` the
 * rest (`false`: no more). JSON Schema lets an array be shorter than its `prefixItems`, so they
 * are optional unless `minItems` is exactly their number.
 */
type ArrayOf<S> = S extends { readonly prefixItems: infer P extends readonly unknown[] }
  ? [...Prefix<P, S extends { readonly minItems: infer N extends number } ? N : 0>, ...Rest<S>]
  : S extends { readonly items: infer I }
    ? FromSchema<I>[]
    : unknown[];

type Prefix<P extends readonly unknown[], N extends number> = N extends P['length']
  ? { -readonly [K in keyof P]: FromSchema<P[K]> }
  : { -readonly [K in keyof P]?: FromSchema<P[K]> };

type Rest<S> = S extends { readonly items: infer I }
  ? I extends false
    ? []
    : FromSchema<I>[]
  : unknown[];

/** `const` type parameters make literals readonly; a tool's input is an ordinary value. */
type Mutable<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: Mutable<T[K]> }
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;

/** Flattens intersections of object types for readable hovers; leaves other types alone. */
type Simplify<T> = T extends object
  ? T extends
      | ((...args: never[]) => unknown)
      | Date
      | Map<unknown, unknown>
      | Set<unknown>
      | readonly unknown[]
    ? T
    : { [K in keyof T]: T[K] }
  : T;

/**
 * `true satisfies Equal<A, B>` compiles only when A and B are the same type (not merely
 * assignable either way): the fixture's positive checks.
 */
export type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

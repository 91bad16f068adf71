// @ungap/structured-clone ships no types; the benchmark uses only its JSON entry point.
declare module '@ungap/structured-clone/json' {
  export function stringify(value: unknown): string;
  export function parse(text: string): unknown;
}

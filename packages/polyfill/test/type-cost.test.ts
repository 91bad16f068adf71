// The cost of defineTool's types (issue 15: "keep type-checking fast"): tsc on the fixture's
// 30-property schema, counted in type instantiations, which (unlike seconds) do not depend on
// the machine. The polyfill's own sources alone come to about 20,000 with TypeScript 7.0; the
// schema (input and output) adds about 12,000. A rule that recursed on itself instead of walking
// the schema once would multiply that, and fail here.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
const PROJECT = fileURLToPath(new URL('./types/tsconfig.wide.json', import.meta.url));

describe('the type-level cost of FromSchema', () => {
  it('a 30-property schema type-checks within a fixed instantiation budget', () => {
    const output = execFileSync(process.execPath, [TSC, '-p', PROJECT, '--extendedDiagnostics'], {
      encoding: 'utf8',
    });
    const instantiations = Number(/Instantiations:\s+(\d+)/.exec(output)?.[1]);
    expect(instantiations).toBeGreaterThan(20_000);
    expect(instantiations).toBeLessThan(40_000);
  }, 60_000);
});

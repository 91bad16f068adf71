import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json, JsonSchema, LoweringErrorCode } from '../../src/index.js';

/** One golden case: a named value and its JSON form, in one or both directions, or an error. */
export interface GoldenCase {
  note?: string;
  /** Overrides the file's schema; null lowers without one. */
  schema?: JsonSchema | null;
  /** A name in VALUES: what lower takes, or what lift must give back. */
  value?: string;
  /** A name in VALUES used as lift input that JSON cannot spell (NaN, a cycle). */
  input?: string;
  json?: Json;
  direction?: 'both' | 'lower' | 'lift';
  error?: { code: LoweringErrorCode; path: string; schemaPath: string };
}

export interface GoldenFile {
  file: string;
  rules: string[];
  title: string;
  schema: JsonSchema;
  expanded?: JsonSchema;
  cases: GoldenCase[];
  [extra: string]: unknown;
}

// Plain paths, not URLs: under happy-dom the global URL is not Node's.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** Every fixture, parsed with JSON.parse so `__proto__` keys stay own data as on the wire. */
export function loadFixtures(folder: 'types' | 'special'): GoldenFile[] {
  const dir = join(root, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map(
      (name): GoldenFile => ({
        ...(JSON.parse(readFileSync(join(dir, name), 'utf8')) as GoldenFile),
        file: `${folder}/${name}`,
      }),
    );
}

export function loadFixture(path: string): GoldenFile {
  return { ...(JSON.parse(readFileSync(join(root, path), 'utf8')) as GoldenFile), file: path };
}

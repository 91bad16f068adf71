import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

// LOWERING.md's promise: every rule it states has a test. A rule id ("[D1]") counts as tested
// when a test title or comment under test/ or in e2e/lowering.e2e.ts names it in brackets, or
// a golden fixture lists it in "rules".

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name), suffix)
      : entry.name.endsWith(suffix)
        ? [join(dir, entry.name)]
        : [],
  );
}

test('every rule of LOWERING.md is named by a test or a golden fixture', () => {
  const doc = readFileSync(join(packageDir, 'LOWERING.md'), 'utf8');
  const rules = new Set(
    [...doc.matchAll(/\*\*\[([A-Z]\d+)\]\*\*|\| \[([A-Z]\d+)\] +\|/g)].map(
      (m) => (m[1] ?? m[2]) as string,
    ),
  );
  expect(rules.size).toBeGreaterThan(60);

  const named = new Set<string>();
  const sources = [
    ...files(here, '.test.ts'),
    join(packageDir, '..', '..', 'e2e', 'lowering.e2e.ts'),
  ];
  for (const file of sources) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\[([A-Z]\d+)\]/g))
      named.add(m[1] as string);
  }
  for (const file of files(join(here, 'fixtures'), '.json')) {
    const { rules: listed = [] } = JSON.parse(readFileSync(file, 'utf8')) as { rules?: string[] };
    for (const id of listed) named.add(id);
  }
  const untested = [...rules].filter((id) => !named.has(id)).sort();
  expect(untested).toEqual([]);
  // And no test claims a rule the document does not have.
  const unknown = [...named].filter((id) => !rules.has(id)).sort();
  expect(unknown).toEqual([]);
});

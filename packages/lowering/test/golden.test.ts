import { describe, expect, test } from 'vitest';
import { expandSchema, LoweringError, lift, lower } from '../src/index.js';
import { type GoldenCase, type GoldenFile, loadFixtures } from './support/fixtures.js';
import { inspect } from './support/inspect.js';
import { makeValue } from './support/values.js';

// One golden fixture per row of the type table and per special value (LOWERING.md §7, §9),
// each case checked in the directions it names. A changed JSON form fails here: [V1].

const files = [...loadFixtures('types'), ...loadFixtures('special')];

function schemaOf(file: GoldenFile, c: GoldenCase) {
  return c.schema === undefined ? file.schema : c.schema;
}

function label(c: GoldenCase, i: number): string {
  const what = c.value ?? c.input ?? JSON.stringify(c.json);
  const where = c.error ? ` -> ${c.error.code} at "${c.error.path}"` : '';
  return `#${i} ${c.direction ?? 'both'} ${what}${where}${c.note ? ` (${c.note})` : ''}`;
}

async function expectError(promise: Promise<unknown>, error: NonNullable<GoldenCase['error']>) {
  const thrown = await promise.then(
    (result) => ({ resolved: result }),
    (reason: unknown) => reason,
  );
  expect(thrown).toBeInstanceOf(LoweringError);
  const { code, path, schemaPath } = thrown as LoweringError;
  expect({ code, path, schemaPath }).toEqual(error);
}

for (const file of files) {
  describe(`${file.file} [${file.rules.join('] [')}]: ${file.title}`, () => {
    if (file.expanded !== undefined) {
      test('expandSchema publishes the plain form', () => {
        expect(expandSchema(file.schema)).toEqual(file.expanded);
      });
    }
    file.cases.forEach((c, i) => {
      const direction = c.direction ?? 'both';
      const schema = schemaOf(file, c);
      if (direction !== 'lift') {
        test(`lower ${label(c, i)}`, async () => {
          const value = makeValue(c.value as string);
          const result = lower(value, schema ?? undefined);
          if (c.error) return expectError(result, c.error);
          // Compared as text: the golden JSON pins key order too.
          expect(JSON.stringify(await result)).toBe(JSON.stringify(c.json));
        });
      }
      if (direction !== 'lower') {
        test(`lift ${label(c, i)}`, async () => {
          if (schema === null) throw new Error('a lift case needs a schema');
          const input = c.input === undefined ? structuredClone(c.json) : makeValue(c.input);
          const result = lift(input, schema);
          if (c.error) return expectError(result, c.error);
          expect(await inspect(await result)).toEqual(await inspect(makeValue(c.value as string)));
        });
      }
    });
  });
}

import { describe, expect, it } from 'vitest';
import { internalReferences, isScanned } from '../check-internal-refs.js';

describe('lint:refs: internal work items in published text', () => {
  it('passes plain prose and refuses the same text once it names a work item', () => {
    const clean = [
      '/** Pairing: a link carries a single-use code (docs/permissions.md "Pairing and credentials"). */',
      'A batch holds 1 to 32 items; see typescript-sdk#2580 upstream.',
      'const maxItems = 2; // minItems 1',
    ].join('\n');
    expect(internalReferences(clean)).toEqual([]);

    const planted = `${clean}\n * 6. Pairing (issue 13): links carry codes\n`;
    expect(internalReferences(planted)).toEqual([{ line: 4, text: 'issue 13' }]);
  });

  it('finds every form, whatever the case, with its line', () => {
    const text = [
      '## Types (Issue 15)',
      'issues 16 and 17 were merged',
      '// Requirement 6: the deadline',
      '(requirements 3, 4 and 10)',
      'issue 16, item 2: a light page',
      'see issue #4',
    ].join('\n');
    expect(internalReferences(text)).toEqual([
      { line: 1, text: 'Issue 15' },
      { line: 2, text: 'issues 16' },
      { line: 3, text: 'Requirement 6' },
      { line: 4, text: 'requirements 3' },
      { line: 5, text: 'issue 16' },
      { line: 5, text: 'item 2' },
      { line: 6, text: 'issue #4' },
    ]);
  });

  it('scans what is published, and not the tests', () => {
    for (const file of [
      'README.md',
      'docs/wire.md',
      'bench/README.md',
      'packages/polyfill/README.md',
      'packages/lowering/LOWERING.md',
      'packages/host/src/mcp/bridge.ts',
      'packages/extension/app/panel/main.ts',
    ]) {
      expect(isScanned(file), file).toBe(true);
    }
    for (const file of ['packages/host/test/mcp.test.ts', 'e2e/host.e2e.ts', 'scripts/size.ts']) {
      expect(isScanned(file), file).toBe(false);
    }
  });
});

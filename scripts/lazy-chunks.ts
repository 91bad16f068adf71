/**
 * The page scripts' lazy chunks (the polyfill's and the endpoint's `polyfill-*.js`): each entry
 * built as a self-contained ES module, then minified on its own with its exports kept (Vite's
 * ES library output keeps whitespace and comments even with `minify`; issue 16 item 2: about
 * 12% fewer bytes). Only the files this build wrote are minified.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InlineConfig } from 'vite';
import { build, minifySync } from 'vite';

export async function buildLazyChunks(
  base: InlineConfig,
  outDir: string,
  entry: Record<string, string>,
  sharedChunkFileNames: string,
): Promise<void> {
  const before = new Set(readdirSync(outDir));
  await build({
    ...base,
    build: {
      outDir,
      emptyOutDir: false,
      minify: true,
      target: 'es2022',
      lib: { entry, formats: ['es'] },
      rollupOptions: { output: { chunkFileNames: sharedChunkFileNames } },
    },
  });
  for (const file of readdirSync(outDir)) {
    if (before.has(file) || !/^polyfill-.*\.js$/.test(file)) continue;
    const path = join(outDir, file);
    const result = minifySync(file, readFileSync(path, 'utf8'), {
      module: true,
      compress: true,
      mangle: true,
    });
    if (result.errors.length > 0)
      throw new Error(`minifying ${file}: ${result.errors.map((e) => e.message).join('; ')}`);
    writeFileSync(path, result.code);
  }
}

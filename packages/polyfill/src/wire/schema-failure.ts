/**
 * A schema failure's `details` and worded message (`@toolwire/protocol`'s schema-failure.ts),
 * loaded the first time a call fails its schema: the split page script fetches it from beside
 * itself (`polyfill-schema-failure.js`), the one-file script and module builds import it.
 */
import type { SchemaFailureModule } from '@toolwire/protocol';
import { importSchemaFailure } from '@toolwire/protocol';
import { chunkFromScript } from '../lib/chunks.js';

/** What the bridge and `wireFailureLoading` are given as `loadSchemaFailure`. */
export function loadSchemaFailure(): Promise<SchemaFailureModule> {
  return typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'split'
    ? chunkFromScript('schema-failure')
    : importSchemaFailure();
}

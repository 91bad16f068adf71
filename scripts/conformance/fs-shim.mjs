// What `fs` / `node:fs` is for the conformance package on a Node without `fs.globSync` (added
// in Node 22): everything Node's fs has, plus a `globSync` that says it is missing. The server
// scenarios never call it (only the suite's own file discovery for other commands does).
import * as fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync() {
  throw new Error('fs.globSync needs Node 22 or later; this Node lacks it');
}

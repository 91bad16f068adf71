// `node --import ./scripts/conformance/register.mjs .../conformance/dist/index.js ...`: lets the
// official MCP conformance suite start on Node 20, whose fs lacks `globSync` (loader.mjs). On a
// Node that has it, this does nothing.
import * as fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./loader.mjs', import.meta.url);

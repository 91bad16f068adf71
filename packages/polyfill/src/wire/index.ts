/**
 * `@toolwire/polyfill/wire`: what serves a page's tools on the wire, beyond `window.tools`: a
 * tool's wire metadata, the call option that lets a JSON result go out as it is, the IIFE's
 * chunk loader (for the endpoint's own lazy chunks), the one annotations-to-policy rule, the one
 * function that turns a page tool into its wire entry (`toBridgeTool`), and the one mapping from
 * a failed call to the wire's error (`wireFailure`). The endpoint, the toolwire extension and
 * `@toolwire/playwright` all use these, so a call means one thing whichever road it took.
 */

export type { ToolErrorCode, ToolPolicy } from '@toolwire/protocol';
export { chunkFromScript, ownScriptAttribute } from '../lib/chunks.js';
export { policyFromAnnotations } from '../policy.js';
export type { PageToolEntry, RunPageTool } from './bridge-tool.js';
export { toBridgeTool } from './bridge-tool.js';
export type { WireFailure, WireFailureContext } from './failure.js';
export { wireFailure } from './failure.js';
export type { ToolSources, ToolWireInfo } from './info.js';
export { wireInfo } from './info.js';
export { WIRE_RESULT } from './result.js';
export { loadSchemaFailure } from './schema-failure.js';

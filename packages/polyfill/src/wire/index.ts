/**
 * `@toolwire/polyfill/wire`: what the WebSocket endpoint (packages/endpoint) reads of the
 * polyfill beyond `window.tools`: a tool's wire metadata, the call option that lets a JSON
 * result go out as it is, the IIFE's chunk loader (for the endpoint's own lazy chunks), and the
 * one annotations-to-policy rule (for code that serves tools it read elsewhere, such as the
 * toolwire extension serving a tab's).
 */
export { chunkFromScript } from '../lib/chunks.js';
export { policyFromAnnotations } from '../policy.js';
export type { ToolSources, ToolWireInfo } from './info.js';
export { wireInfo } from './info.js';
export { WIRE_RESULT } from './result.js';

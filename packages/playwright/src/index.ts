/**
 * `@toolwire/playwright`: `webmcp(page)` lists and calls a page's WebMCP tools in Playwright
 * tests, through the browser's own WebMCP or toolwire's polyfill (packages/playwright/README.md).
 */
export {
  WebMCPError,
  type WebMCPErrorCode,
  type WebMCPPath,
} from './errors.js';
export type { WebMCPTool } from './tool.js';
export { type WebMCP, type WebMCPCallOptions, type WebMCPOptions, webmcp } from './webmcp.js';

export type { BuiltinTools, CaptureProvider } from './builtins/index.js';
export { createBuiltinTools } from './builtins/index.js';
export type { ConnectOptions, SessionStatus } from './connect.js';
export { connect, SDK_NAME, SDK_VERSION, Session } from './connect.js';
export { readPageTools, wireFailure } from './page-tools.js';
export { pageValidator } from './validator.js';

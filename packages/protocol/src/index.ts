export type {
  BridgeLimits,
  BridgeRevisions,
  BridgeSnapshot,
  EvidenceProvider,
  HandleScope,
  ToolBridge,
  ToolBridgeOptions,
} from './bridge.js';
export { createToolBridge, DEFAULT_EVIDENCE } from './bridge.js';
export type {
  AvailabilityInput,
  BridgeTool,
  BridgeToolDefinition,
  ReportProgress,
  SelfValidation,
  ToolContext,
  ToolSource,
} from './catalog.js';
export { noProgress, toolHints, toStaticDefinition } from './catalog.js';
export type { DecodedResponse, RequestOptions, ToolClient, ToolClientOptions } from './client.js';
export { createToolClient, DEFAULT_TIMEOUT_MS } from './client.js';
export type {
  CodecLimits,
  DecodedPayload,
  DecodeOptions,
  EncodedPayload,
  EncodeOptions,
  GzipAsync,
  InflateText,
} from './codec.js';
export {
  COMPRESSION_THRESHOLD_BYTES,
  DEFAULT_MAX_INFLATED_BYTES,
  decodePayload,
  decodePayloadWithInfo,
  encodePayload,
  inflateToText,
  PAYLOAD_ENCODING,
  parseFrame,
  payloadTooLarge,
} from './codec.js';
export { MAX_CURSOR_LENGTH } from './cursor.js';
export { lateSignal } from './deadlines.js';
export type { DeflateModule } from './deflate-load.js';
export { importDeflate } from './deflate-load.js';
export type { ToolDeniedBy, ToolErrorCode } from './errors.js';
export { defaultRetryable, errorPayload, TOOL_ERROR_CODES, ToolProtocolError } from './errors.js';
export type { BridgeResponse } from './frame.js';
export type { Guard, GuardPreset } from './guard.js';
export {
  GUARD_PRESETS,
  isExecutable,
  isVisible,
  lowerGuard,
  POLICY_RANK,
  parsePolicy,
  resolveGuard,
} from './guard.js';
export { gzip } from './gzip.js';
export { DEFAULT_MAX_DEPTH } from './json.js';
export * from './messages.js';
export type { ToolFailureOutcome, ToolResultOutcome } from './outcome.js';
export { toolFailure, toolResult } from './outcome.js';
export { pairingPhrase } from './pairing-phrase.js';
export { normalizeSearch } from './query.js';
export { computeRevision } from './revision.js';
export { schemaFailure } from './schema-failure.js';
export type { SchemaFailureModule } from './schema-failure-load.js';
export { importSchemaFailure, plainSchemaFailure } from './schema-failure-load.js';
export { SESSION_CLOSE } from './session/close.js';
export type { HeartbeatOptions } from './session/heartbeat.js';
export { Heartbeat } from './session/heartbeat.js';
export type { HostSessionCoreOptions, ToolRequestOptions } from './session/host.js';
export { DEADLINE_GRACE_MS, HostSessionCore } from './session/host.js';
export * from './session/messages.js';
export type { PageSessionOptions, PageTransport } from './session/page.js';
export { PageSessionCore } from './session/page.js';
export { PROGRESS_INTERVAL_MS } from './session/progress.js';
export type { HmacSha256, ProofBinding } from './session/proof.js';
export {
  base64url,
  createNonce,
  credentialSecret,
  delegateSecret,
  dialedPort,
  hostProof,
  isNonce,
  pageProof,
  SECRET_ID_LENGTH,
  secretId,
} from './session/proof.js';
export type { LinkedTransport, Transport, TransportCloseInfo } from './transport.js';
export { createLinkedPair } from './transport.js';
export type {
  IssueDetail,
  Validate,
  ValidationIssue,
  ValidationResult,
  ValidatorProvider,
} from './validator.js';

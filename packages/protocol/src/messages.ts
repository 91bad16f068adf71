/**
 * The wire vocabulary of `ansight.tool-catalog.v3` (docs/wire.md).
 * Pure types, constants and guards: no runtime imports, so any SDK can take it alone.
 *
 * Requirements this module encodes:
 * 1. One text frame = one JSON object; requests are tool.query / tool.call / tool.batch,
 *    responses tool.catalog / tool.result / tool.batch.result / tool.error (docs/wire.md "Envelope").
 * 2. A response's `id` is `<request id>.response` and `replyTo` is the request id.
 * 3. A request with a non-empty `capability` other than `tool.exec` is not a tool message.
 * 4. Payloads are objects, or the `$ansightEncoding` wrapper on responses.
 */

export const CATALOG_SCHEMA = 'ansight.tool-catalog.v3';
export const TOOL_CAPABILITY = 'tool.exec';
export const MAX_BATCH_CALLS = 32;
/**
 * A call's deadline when nobody names one (docs/wire.md "Deadlines, cancel and progress"): the
 * page's default `limits.callTimeoutMs`, and what toolwire's host puts in a call's `timeoutMs`.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export const REQUEST_TYPES = ['tool.query', 'tool.call', 'tool.batch'] as const;
export const RESPONSE_TYPES = [
  'tool.catalog',
  'tool.result',
  'tool.batch.result',
  'tool.error',
] as const;

export type RequestType = (typeof REQUEST_TYPES)[number];
export type ResponseType = (typeof RESPONSE_TYPES)[number];
export type MessageType = RequestType | ResponseType;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** A JSON Schema document (kept loose: schemas are data we pass on, validated by ajv). */
export type JsonSchema = { [key: string]: unknown };

export type ToolPolicy = 'read' | 'write' | 'critical';
export type CatalogDetail = 'index' | 'definitions' | 'full';

interface EnvelopeBase<T extends MessageType, P> {
  type: T;
  id: string;
  replyTo?: string | null;
  sessionId?: string | null;
  sentAt?: string;
  capability?: string;
  payload: P;
}

// ---- requests (host -> page) ----------------------------------------------------------

export interface QueryPayload {
  detail?: string;
  ifRevision?: string;
  ifAvailabilityRevision?: string;
  ids?: string[];
  query?: string;
  feature?: string;
  policy?: string;
  executableOnly?: boolean;
  limit?: number;
  maxResults?: number;
  /**
   * toolwire: paging (docs/wire.md "Paging"). `""` asks for the first page of a paged listing,
   * a listing's `nextCursor` for the next one; absent, the listing is not paged.
   */
  cursor?: string;
}

export interface AfterRequest {
  include?: string[];
  delayMilliseconds?: number;
  visualTreeArguments?: JsonObject;
  screenshotArguments?: JsonObject;
  [key: string]: unknown;
}

/**
 * What a caller may ask of a `tool.call` or `tool.batch` beyond its calls (toolwire, docs/wire.md
 * "Deadlines, cancel and progress"). Receivers that do not know them ignore them.
 */
export interface RequestControlFields {
  /**
   * The caller's deadline, in ms from receipt: the page gives up at the smaller of it and its
   * own `limits.callTimeoutMs`. For a batch it covers the whole batch.
   */
  timeoutMs?: number;
  /** Send `session.progress` for this request while it is pending. */
  progress?: boolean;
}

export interface CallPayload extends RequestControlFields {
  toolId: string;
  arguments?: JsonObject | null;
  callId?: string | null;
  after?: AfterRequest | null;
}

/** One call of a batch: the batch's own `timeoutMs` and `progress` count, not an item's. */
export type BatchCall = Omit<CallPayload, keyof RequestControlFields>;

export interface BatchPayload extends RequestControlFields {
  calls: BatchCall[];
  continueOnError?: boolean;
}

export type QueryRequest = EnvelopeBase<'tool.query', QueryPayload | undefined>;
export type CallRequest = EnvelopeBase<'tool.call', CallPayload>;
export type BatchRequest = EnvelopeBase<'tool.batch', BatchPayload>;
export type RequestEnvelope = QueryRequest | CallRequest | BatchRequest;

// ---- responses (page -> host) ---------------------------------------------------------

/** `{available:false, code?, reason?, requiredState?, remediation?, retryable?}`; empty strings omitted, retryable only when true. */
export interface RuntimeState {
  available: false;
  code?: string;
  reason?: string;
  requiredState?: string;
  remediation?: string;
  retryable?: true;
}

/** The static definition, in wire key order (this order is hashed). */
export interface StaticDefinition {
  id: string;
  name: string;
  description: string;
  category: string;
  policy: ToolPolicy;
  argumentsSchema: JsonSchema;
  resultSchema: JsonSchema;
  keywords?: string[];
  prerequisiteToolIds?: string[];
  argumentEncoding?: 'flattened-string';
  /** toolwire extension: the origin of the document that registered the tool. */
  origin?: string;
  /** toolwire extension: the tool's behaviour hints that its policy does not carry. */
  annotations?: ToolHints;
}

/**
 * toolwire extension (docs/wire.md "Tool entry by detail"): the page's `idempotentHint` and
 * `openWorldHint`, only those it set. `readOnlyHint` and `destructiveHint` are the policy.
 */
export interface ToolHints {
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface IndexEntry {
  id: string;
  name: string;
  description: string;
  category: string;
  policy: ToolPolicy;
  definitionRevision: string;
  keywords?: string[];
  prerequisiteToolIds?: string[];
  /** toolwire extension: as in StaticDefinition. */
  origin?: string;
  runtime?: RuntimeState;
  executable?: false;
}

export interface DefinitionEntry extends StaticDefinition {
  definitionRevision: string;
}

export interface FullEntry extends DefinitionEntry {
  runtime?: RuntimeState;
  executable?: false;
}

export type CatalogEntry = IndexEntry | DefinitionEntry | FullEntry;

export interface CatalogUnchangedPayload {
  schema: typeof CATALOG_SCHEMA;
  revision: string;
  unchanged: true;
}

export interface CatalogChangesPayload extends CatalogUnchangedPayload {
  availabilityRevision: string;
  evaluatedAtUtc: string;
  changes: Record<string, RuntimeState>;
}

export interface CatalogListingPayload {
  schema: typeof CATALOG_SCHEMA;
  revision: string;
  tools: CatalogEntry[];
  count: number;
  detail?: 'index' | 'definitions';
  availabilityRevision?: string;
  evaluatedAtUtc?: string;
  totalCount?: number;
  categories?: Record<string, number>;
  /** toolwire: in a paged listing, the cursor of the next page; absent on the last. */
  nextCursor?: string;
}

export type CatalogPayload =
  | CatalogUnchangedPayload
  | CatalogChangesPayload
  | CatalogListingPayload;

export interface ErrorPayload {
  code: string;
  message: string;
  retryable: boolean;
  details: JsonValue | null;
}

export interface ResultPayload {
  toolId: string;
  success: true;
  message: string | null;
  result: JsonValue | null;
  evidence: Record<string, CallOutcome> | null;
}

export interface CallSuccess {
  toolId: string;
  success: true;
  message: string | null;
  result: JsonValue | null;
  evidence: Record<string, CallOutcome> | null;
}

export interface CallFailure {
  toolId: string | null;
  success: false;
  error: ErrorPayload;
}

/** One tool call's outcome: a batch item without `index`/`callId`, or an evidence item. */
export type CallOutcome = CallSuccess | CallFailure;

export type BatchItem =
  | ({ index: number; callId: string | null } & CallSuccess)
  | ({ index: number; callId: string | null } & CallFailure);

export interface BatchResultPayload {
  success: boolean;
  completed: number;
  requested: number;
  stoppedEarly: boolean;
  results: BatchItem[];
}

/** The `$ansightEncoding` compression wrapper (docs/wire.md "Large payloads"). */
export interface EncodedPayloadWrapper {
  $ansightEncoding: 'gzip-base64-json';
  contentType: 'application/json';
  originalByteCount: number;
  compressedByteCount: number;
  data: string;
}

export type CatalogResponse = EnvelopeBase<'tool.catalog', CatalogPayload>;
export type ResultResponse = EnvelopeBase<'tool.result', ResultPayload>;
export type BatchResultResponse = EnvelopeBase<'tool.batch.result', BatchResultPayload>;
export type ErrorResponse = EnvelopeBase<'tool.error', ErrorPayload>;
/** A response with its payload decoded. */
export type ToolResponse = CatalogResponse | ResultResponse | BatchResultResponse | ErrorResponse;

/** A response as it travels: the payload may still be the compression wrapper. */
export type ResponseEnvelope = Omit<ToolResponse, 'payload'> & {
  payload: ToolResponse['payload'] | EncodedPayloadWrapper;
};

// ---- guards ---------------------------------------------------------------------------

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isRequestType(value: unknown): value is RequestType {
  return value === 'tool.query' || value === 'tool.call' || value === 'tool.batch';
}

export function isResponseType(value: unknown): value is ResponseType {
  return (
    value === 'tool.catalog' ||
    value === 'tool.result' ||
    value === 'tool.batch.result' ||
    value === 'tool.error'
  );
}

/** Absent, null, empty or `tool.exec`: the message belongs to the tool bridge. */
export function isToolCapability(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === TOOL_CAPABILITY;
}

function hasEnvelopeShape(value: unknown): value is Record<string, unknown> & { id: string } {
  return isPlainObject(value) && typeof value.id === 'string' && value.id.length > 0;
}

export function isQueryRequest(value: unknown): value is QueryRequest {
  return (
    hasEnvelopeShape(value) && value.type === 'tool.query' && isToolCapability(value.capability)
  );
}

export function isCallRequest(value: unknown): value is CallRequest {
  return (
    hasEnvelopeShape(value) &&
    value.type === 'tool.call' &&
    isToolCapability(value.capability) &&
    isPlainObject(value.payload)
  );
}

export function isBatchRequest(value: unknown): value is BatchRequest {
  return (
    hasEnvelopeShape(value) &&
    value.type === 'tool.batch' &&
    isToolCapability(value.capability) &&
    isPlainObject(value.payload) &&
    Array.isArray(value.payload.calls)
  );
}

export function isResponseEnvelope(value: unknown): value is ResponseEnvelope {
  return (
    hasEnvelopeShape(value) &&
    isResponseType(value.type) &&
    typeof value.replyTo === 'string' &&
    typeof value.payload === 'object' &&
    value.payload !== null
  );
}

export function isCatalogResponse(value: unknown): value is CatalogResponse {
  return isResponseEnvelope(value) && value.type === 'tool.catalog';
}

export function isResultResponse(value: unknown): value is ResultResponse {
  return isResponseEnvelope(value) && value.type === 'tool.result';
}

export function isBatchResultResponse(value: unknown): value is BatchResultResponse {
  return isResponseEnvelope(value) && value.type === 'tool.batch.result';
}

export function isErrorResponse(value: unknown): value is ErrorResponse {
  return (
    hasEnvelopeShape(value) &&
    value.type === 'tool.error' &&
    isPlainObject(value.payload) &&
    typeof value.payload.code === 'string'
  );
}

export function isUnchangedCatalog(payload: CatalogPayload): payload is CatalogUnchangedPayload {
  return (payload as Partial<CatalogUnchangedPayload>).unchanged === true;
}

export function isEncodedPayloadWrapper(value: unknown): value is { $ansightEncoding: unknown } {
  return (
    isPlainObject(value) &&
    value.$ansightEncoding !== undefined &&
    value.$ansightEncoding !== null &&
    value.$ansightEncoding !== ''
  );
}

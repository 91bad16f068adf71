/**
 * The demo's own message (not the polyfill's bridge): a frame tells the top page how its
 * registrations went, so the matrix can show a failed register() instead of a silent "not seen".
 * Pure vocabulary and a guard; the receiver checks `event.source` and `event.origin` first.
 */

export const FRAME_STATUS = 'toolwire-demo:frame-status';

export interface RegistrationResult {
  name: string;
  ok: boolean;
  /** `Name: message` of the rejection, when `ok` is false. */
  error?: string;
}

export interface FrameStatusMessage {
  type: typeof FRAME_STATUS;
  id: string;
  origin: string;
  results: RegistrationResult[];
}

export function isFrameStatusMessage(data: unknown): data is FrameStatusMessage {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as Partial<FrameStatusMessage>;
  return (
    message.type === FRAME_STATUS &&
    typeof message.id === 'string' &&
    typeof message.origin === 'string' &&
    Array.isArray(message.results) &&
    message.results.every(
      (result) =>
        typeof result === 'object' &&
        result !== null &&
        typeof result.name === 'string' &&
        typeof result.ok === 'boolean' &&
        (result.error === undefined || typeof result.error === 'string'),
    )
  );
}

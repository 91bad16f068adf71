/**
 * A WebSocket stand-in for endpoint unit tests: the test opens it, feeds it frames and closes it
 * from the host's side; what the page sent is kept. Every instance lands in `sockets` (one list
 * per test file: vitest gives each file its own modules).
 */
import type { SessionWelcomePayload } from '@toolwire/protocol';
import { provenWelcome } from './handshake.js';

export const sockets: FakeSocket[] = [];

export class FakeSocket {
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  closedWith: { code?: number; reason?: string } | undefined;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: (() => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;

  constructor(readonly url: string) {
    sockets.push(this);
  }

  send(data: string): void {
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  /** The host's side of a close (what the browser reports after the handshake). */
  hostCloses(code: number, reason = ''): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  receive(message: object): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }

  /**
   * The host's welcome proving it holds `key` (the page's code, credential or token) for this
   * socket's nonce; what the page must answer, and the credential a code's socket derives.
   */
  welcomeProven(key: string, payload: Partial<SessionWelcomePayload> = {}) {
    const welcome = provenWelcome(this.url, key, payload);
    this.receive(welcome.message);
    return welcome;
  }

  /** Parsed frames of one type sent so far. */
  frames(type: string): any[] {
    return this.sent.map((frame) => JSON.parse(frame)).filter((message) => message.type === type);
  }
}

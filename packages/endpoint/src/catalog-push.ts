/**
 * `tool.catalog.changed`: after the page's tools settle (debounced), the host hears the new
 * revisions and the page's guard; hosts that do not know the message ignore it.
 */
import type { BridgeSnapshot, GuardReport } from '@toolwire/protocol';
import { catalogChanged } from '@toolwire/protocol';
import type { Connection } from './connection.js';
import type { ConnectOptions } from './options.js';

const presetName = (guard: ConnectOptions['guard']): string | undefined =>
  typeof guard === 'string' ? guard : guard === undefined ? 'read-only' : undefined;

/** The guard as `session.open` and the catalog push report it. */
export function guardReport(
  snapshot: BridgeSnapshot,
  option: ConnectOptions['guard'],
): GuardReport {
  const report: GuardReport = {
    discoveryEnabled: snapshot.guard.discoveryEnabled,
    executionEnabled: snapshot.guard.executionEnabled,
    maxPolicy: snapshot.guard.maxPolicy,
    hidden: snapshot.hidden.slice(0, 1000),
  };
  const preset = presetName(option);
  if (preset) report.preset = preset;
  return report;
}

interface CatalogPushOptions {
  delayMs: number;
  guard: ConnectOptions['guard'];
  snapshot: () => Promise<BridgeSnapshot>;
  /** The connection to push on now, if any. */
  current: () => Connection | undefined;
  /** Sends on `connection`, or drops the message if it has closed meanwhile. */
  send: (connection: Connection, message: object) => void;
}

export class CatalogPush {
  #options: CatalogPushOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: CatalogPushOptions) {
    this.#options = options;
  }

  schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#push(), this.#options.delayMs);
  }

  cancel(): void {
    clearTimeout(this.#timer);
  }

  async #push(): Promise<void> {
    const connection = this.#options.current();
    if (!connection?.isOpen) return;
    let snapshot: BridgeSnapshot;
    try {
      snapshot = await this.#options.snapshot();
    } catch {
      return;
    }
    // Pushed after every settled change, even one that looks like the last push: the host may
    // have cached another state through its own queries in between (it skips what it holds).
    this.#options.send(
      connection,
      catalogChanged({
        revision: snapshot.revision,
        availabilityRevision: snapshot.availabilityRevision,
        guard: guardReport(snapshot, this.#options.guard),
      }),
    );
  }
}

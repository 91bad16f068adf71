import type { ToolPolicy } from './messages.js';

/** docs/wire.md "Authorization": policy order read < write < critical. */
export const POLICY_RANK: Readonly<Record<ToolPolicy, number>> = { read: 0, write: 1, critical: 2 };

export interface Guard {
  discoveryEnabled: boolean;
  executionEnabled: boolean;
  maxPolicy: ToolPolicy;
}

export type GuardPreset = 'disabled' | 'read-only' | 'read-write' | 'full-access';

export const GUARD_PRESETS: Readonly<Record<GuardPreset, Readonly<Guard>>> = {
  disabled: { discoveryEnabled: false, executionEnabled: false, maxPolicy: 'read' },
  'read-only': { discoveryEnabled: true, executionEnabled: true, maxPolicy: 'read' },
  'read-write': { discoveryEnabled: true, executionEnabled: true, maxPolicy: 'write' },
  'full-access': { discoveryEnabled: true, executionEnabled: true, maxPolicy: 'critical' },
};

export function isToolPolicy(value: unknown): value is ToolPolicy {
  return value === 'read' || value === 'write' || value === 'critical';
}

/** Parses a policy name case-insensitively; the legacy `delete` means `critical`. */
export function parsePolicy(value: unknown): ToolPolicy | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.trim().toLowerCase();
  if (lower === 'delete') return 'critical';
  return isToolPolicy(lower) ? lower : undefined;
}

/** Resolves a preset or guard to a fresh, validated guard (the read-only preset by default). */
export function resolveGuard(guard: GuardPreset | Guard | undefined): Guard {
  if (guard === undefined) return { ...GUARD_PRESETS['read-only'] };
  if (typeof guard === 'string') {
    const preset = GUARD_PRESETS[guard];
    if (!preset) throw new TypeError(`Unknown guard preset "${guard}".`);
    return { ...preset };
  }
  if (!isToolPolicy(guard.maxPolicy)) {
    throw new TypeError(
      `Guard maxPolicy must be read, write or critical, not "${String(guard.maxPolicy)}".`,
    );
  }
  return {
    discoveryEnabled: guard.discoveryEnabled === true,
    executionEnabled: guard.executionEnabled === true,
    maxPolicy: guard.maxPolicy,
  };
}

/** A paired client's grant can lower the effective maximum, never raise it. */
export function lowerGuard(guard: Guard, clientMax: ToolPolicy | undefined): Guard {
  if (clientMax === undefined || POLICY_RANK[clientMax] >= POLICY_RANK[guard.maxPolicy])
    return guard;
  return { ...guard, maxPolicy: clientMax };
}

export function isVisible(guard: Guard, policy: ToolPolicy): boolean {
  return guard.discoveryEnabled && POLICY_RANK[policy] <= POLICY_RANK[guard.maxPolicy];
}

export function isExecutable(guard: Guard, policy: ToolPolicy): boolean {
  return guard.executionEnabled && POLICY_RANK[policy] <= POLICY_RANK[guard.maxPolicy];
}

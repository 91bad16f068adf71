/**
 * Is this document allowed to use the `tools` feature (permissions policy, default 'self')?
 * Read once per document (docs/performance.md: the peer looked it up on every call at 3.5 us each).
 * Browsers that do not know the feature report false for it, so it is trusted only when the
 * policy API lists it. Frames add the parent's vouching for cross-origin children.
 */
interface PolicyApi {
  allowsFeature(feature: string): boolean;
  features?(): string[];
  allowedFeatures?(): string[];
}

/** The policy API's own answer for `tools`, or undefined when this browser does not know it. */
export function policyAnswer(doc: Document | undefined): boolean | undefined {
  if (!doc) return undefined;
  const policy = ((doc as unknown as { permissionsPolicy?: PolicyApi }).permissionsPolicy ??
    (doc as unknown as { featurePolicy?: PolicyApi }).featurePolicy) as PolicyApi | undefined;
  if (!policy || typeof policy.allowsFeature !== 'function') return undefined;
  try {
    const known = policy.features?.() ?? [];
    if (!known.includes('tools')) return undefined;
    return policy.allowsFeature('tools');
  } catch {
    return undefined;
  }
}

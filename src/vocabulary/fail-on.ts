/**
 * SADAD_FAIL_ON: which outcome makes the exit code non-zero besides a run that does not certify.
 * `fail` (default): only that; `verdict`: also a verdict changed, a case added or removed, or a rule
 * changed since SADAD_COMPARE; `behaviour` (and its older name `change`): also what the target does;
 * `any`: also availability (fault kinds, the gateway's refusals, outages) and the fingerprint.
 */
export const FAIL_ON_VALUES = ['fail', 'verdict', 'behaviour', 'any', 'change'] as const;
export type FailOn = (typeof FAIL_ON_VALUES)[number];

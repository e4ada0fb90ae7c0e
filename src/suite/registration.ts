import { operations } from '../contract/catalogue.js';
import type { Settings } from '../config/settings.js';
import type { Limits } from '../vocabulary/plan.js';
import type { Profile } from '../vocabulary/profile.js';

/**
 * What the definitions of the cases depend on besides the code: the profile (the smoke profile sends
 * fewer bursts), and the limits and their shape (a rate-limit case plans one call over the limit,
 * two for a spaced one). A run takes its own (registrationOf its settings); a re-judge the profile
 * the evidence records.
 */
export interface Registration { profile: Profile; limits: Pick<Limits, 'perOperation'>; shape: 'burst' | 'spaced' }

/** A run's registration, from its settings. */
export const registrationOf = (settings: Settings): Registration => ({ profile: settings.run.profile, limits: settings.run.limits, shape: settings.suite.rateShape });

/** The catalogue's own limits (the document's sandbox limits), for a registration that only reads the definitions' checks (a re-judge). */
export const registrationWith = (profile: Profile): Registration => ({ profile, limits: { perOperation: Object.fromEntries(operations.map((op) => [op.id, op.defaultRateLimit])) }, shape: 'burst' });


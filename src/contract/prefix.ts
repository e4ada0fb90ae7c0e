/**
 * Prefixes of the message root tags and of the reference-id header (design.md §5). The spec writes
 * both as `Svc`; a real deployment uses two different ones (e.g. tags `OSV...`, header `SVReferenceID`).
 */
export const SPEC_PREFIX = 'Svc';

export class ConfigError extends Error {
  constructor(public readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Renames a spec-written tag (`SvcSadad...`) to the deployment's prefix. */
export function withTagPrefix(specTag: string, tagPrefix: string): string {
  return specTag.startsWith(SPEC_PREFIX + 'Sadad') ? tagPrefix + specTag.slice(SPEC_PREFIX.length) : specTag;
}

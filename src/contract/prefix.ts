/**
 * Prefixes of the message root tags and of the reference-id header (design.md §5). The spec writes
 * both as `Svc`; a real deployment uses two different ones (e.g. tags `OSV...`, header `SVReferenceID`).
 */
export const SPEC_PREFIX = 'Svc';
const PREFIX_SHAPE = /^[A-Za-z][A-Za-z0-9]{0,15}$/;

export class ConfigError extends Error {
  constructor(public readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

function prefixFrom(variable: string, env: NodeJS.ProcessEnv): string {
  const value = env[variable];
  if (value === undefined || value === '') return SPEC_PREFIX;
  if (!PREFIX_SHAPE.test(value)) throw new ConfigError(variable, `must be 1-16 letters or digits starting with a letter, got ${JSON.stringify(value)}`);
  return value;
}

export const tagPrefixFrom = (env: NodeJS.ProcessEnv = process.env) => prefixFrom('SADAD_TAG_PREFIX', env);
export const headerPrefixFrom = (env: NodeJS.ProcessEnv = process.env) => prefixFrom('SADAD_HEADER_PREFIX', env);

/** Renames a spec-written tag (`SvcSadad...`) to the deployment's prefix. */
export function withTagPrefix(specTag: string, tagPrefix: string): string {
  return specTag.startsWith(SPEC_PREFIX + 'Sadad') ? tagPrefix + specTag.slice(SPEC_PREFIX.length) : specTag;
}

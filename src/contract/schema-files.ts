/** Where each message's schema lives; the names are a published contract (issue 2). */
export type Profile = 'request' | 'lenient' | 'strict';

export const SCHEMA_BASE = 'https://sadad-conformance.example/schemas/';
export const COMMON_SCHEMA = 'common.schema.json';

export function schemaFileName(opId: string, profile: Profile): string {
  if (profile === 'request') return `${opId}.request.schema.json`;
  return profile === 'strict' ? `${opId}.response.strict.schema.json` : `${opId}.response.schema.json`;
}

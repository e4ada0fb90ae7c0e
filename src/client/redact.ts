/**
 * Masking of secrets in everything the suite records: header values by name, and every known
 * secret value (configured ones and tokens fetched at run time) wherever it appears in text.
 */
export const MASK = '«masked»';

/** Headers whose values are secrets whatever they hold. Signer-specific names are added at run time. */
const secretHeaderNames = new Set(['authorization', 'proxy-authorization', 'clientsecret', 'client-secret', 'x-signature', 'signature', 'cookie', 'set-cookie', 'x-api-key']);
const secretValues = new Set<string>();
const SECRET_JSON_KEYS = /^(access_token|refresh_token|id_token|client_secret|client_code|password|clientsecret|signature)$/i;

export function registerSecretHeader(name: string): void {
  secretHeaderNames.add(name.toLowerCase());
}

/** Remembers a secret value so it is masked wherever it shows up later (short values are ignored: they would mask ordinary text). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secretValues.add(value);
}

export function isSecretHeader(name: string): boolean {
  return secretHeaderNames.has(name.toLowerCase());
}

export function maskText(text: string): string {
  let out = text;
  // longest first, so a secret containing another is masked whole
  for (const s of [...secretValues].sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  // a bearer credential in free text (e.g. an echoed header) is masked even if it was never registered;
  // a challenge's parameters (`Bearer realm="api", error=invalid_token`, RFC 6750) are no credential
  return out.replace(/(Bearer\s+)(?![!#$%&'*+.^_`|~A-Za-z0-9-]+\s*=\s*["!#$%&'*+.^_`|~A-Za-z0-9-])[A-Za-z0-9\-._~+/]+=*/g, `$1${MASK}`);
}

export function maskHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = isSecretHeader(k) ? (k.toLowerCase() === 'authorization' && /^\S+\s/.test(v) ? `${v.split(/\s/)[0]} ${MASK}` : MASK) : maskText(v);
  }
  return out;
}

/** Masks secret-named keys in a JSON text (token responses, error bodies echoing credentials), then known values. */
export function maskBody(text: string): string {
  try {
    const masked = JSON.stringify(JSON.parse(text), (k, v) => (SECRET_JSON_KEYS.test(k) && typeof v === 'string' ? MASK : v));
    return maskText(masked === undefined ? text : masked);
  } catch {
    return maskText(text);
  }
}

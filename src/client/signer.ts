/**
 * Request signing. The spec requires a signature but does not say how (§5 rule 3); the default is
 * the scheme of a real deployment (domain notes): RSA-SHA256 over the serialized `Message` object,
 * Base64, in header `X-Signature`. SADAD_SIGNER names a module that replaces it.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { nodeForge } from '../base/forge.js';
import { ConfigError } from '../contract/prefix.js';
import { registerSecretHeader } from './redact.js';

export interface SignInput {
  /** The exact request body text that will be sent. */
  bodyText: string;
  /** The parsed body (undefined when the body is not JSON, e.g. robustness cases). */
  body: unknown;
  headers: Record<string, string>;
}

export interface Signer {
  name: string;
  /** Header names this signer writes: they are masked in every record and tested by the signature cases. */
  headerNames: string[];
  sign(input: SignInput): Record<string, string>;
}

/** What a SADAD_SIGNER module exports as default: a factory given the key file path and passphrase. */
export type SignerFactory = (options: { keyFile: string | undefined; passphrase: string | undefined }) => Signer | Promise<Signer>;

export const SIGNATURE_HEADER = 'X-Signature';

function loadPrivateKey(file: string, passphrase: string | undefined): KeyObject {
  const data = readFileSync(file);
  if (/\.(p12|pfx)$/i.test(file)) return privateKeyFromPkcs12(data, passphrase);
  try {
    return createPrivateKey({ key: data, format: 'pem', passphrase });
  } catch (e) {
    throw new ConfigError('SADAD_SIGNING_KEY', `cannot read a PEM private key from ${file}: ${(e as Error).message}`);
  }
}

/** Node's crypto cannot open PKCS#12; node-forge does, and hands the key over as PEM. */
function privateKeyFromPkcs12(data: Buffer, passphrase: string | undefined): KeyObject {
  const forge = nodeForge();
  try {
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(data.toString('binary')), passphrase ?? '');
    const bags = p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? p12.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? [];
    const key = bags[0]?.key;
    if (!key) throw new Error('no private key inside');
    return createPrivateKey(forge.pki.privateKeyToPem(key));
  } catch (e) {
    throw new ConfigError('SADAD_SIGNING_KEY', `cannot read a private key from the PKCS#12 file (check SADAD_SIGNING_KEY_PASSPHRASE): ${(e as Error).message}`);
  }
}

export function rsaSha256MessageSigner(key: KeyObject): Signer {
  return {
    name: 'RSA-SHA256 over Message',
    headerNames: [SIGNATURE_HEADER],
    sign({ body }) {
      const message = (body as { Message?: unknown } | null)?.Message;
      const payload = Buffer.from(JSON.stringify(message ?? null));
      return { [SIGNATURE_HEADER]: sign('sha256', payload, key).toString('base64') };
    },
  };
}

/** The configured signer, or undefined when no key and no module is configured (unsigned requests). */
export async function loadSigner(options: { signer?: string | undefined; signingKey?: string | undefined; passphrase?: string | undefined }): Promise<Signer | undefined> {
  let signer: Signer | undefined;
  if (options.signer) {
    let mod: { default?: SignerFactory };
    try { mod = await import(pathToFileURL(options.signer).href); } catch (e) { throw new ConfigError('SADAD_SIGNER', `cannot load ${options.signer}: ${(e as Error).message}`); }
    if (typeof mod.default !== 'function') throw new ConfigError('SADAD_SIGNER', 'the module must export a default factory ({ keyFile, passphrase }) => Signer');
    signer = await mod.default({ keyFile: options.signingKey, passphrase: options.passphrase });
  } else if (options.signingKey) {
    signer = rsaSha256MessageSigner(loadPrivateKey(options.signingKey, options.passphrase));
  }
  for (const h of signer?.headerNames ?? []) registerSecretHeader(h);
  return signer;
}

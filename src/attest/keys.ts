/**
 * Ed25519 keys for signing a package (design.md §11): reading a private key from a PEM file (the
 * company's, SADAD_PACKAGE_KEY), a public key (the bank's copy of it), the key id, and a new pair
 * (`npm run keygen`). Format-neutral: it knows no package and no configuration variable; the
 * callers put the variable's name in front of a KeyError's text.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class KeyError extends Error {}

function readPem(file: string): string {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new KeyError(`cannot read ${JSON.stringify(file)}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message}`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) throw new KeyError(`${JSON.stringify(file)} is not a PEM file (no -----BEGIN ...----- line)`);
  return text;
}

/** An unencrypted Ed25519 private key from a PEM file (PKCS#8, as `npm run keygen` and `openssl genpkey -algorithm ed25519` write it). */
export function readPrivateKey(file: string): KeyObject {
  const pem = readPem(file);
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem)) {
    throw new KeyError(`${JSON.stringify(file)} is encrypted: the package key is read without a passphrase; keep it unencrypted and protect it as a secret (file mode 0600, a CI secret)`);
  }
  if (!/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) {
    throw new KeyError(`${JSON.stringify(file)} holds no private key${/PUBLIC KEY/.test(pem) ? ' (it is a public key: give the private one, the .key file of `npm run keygen`)' : /CERTIFICATE/.test(pem) ? ' (it is a certificate)' : ''}`);
  }
  let key: KeyObject;
  try { key = createPrivateKey({ key: pem, format: 'pem' }); } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_MISSING_PASSPHRASE') throw new KeyError(`${JSON.stringify(file)} is encrypted: the package key is read without a passphrase`);
    throw new KeyError(`${JSON.stringify(file)} is not a readable private key: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyError(`${JSON.stringify(file)} is an ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519: make one with \`npm run keygen\``);
  return key;
}

/** An Ed25519 public key from a PEM file (SPKI, `-----BEGIN PUBLIC KEY-----`). A private key is refused: whoever checks never needs it. */
export function readPublicKey(file: string): KeyObject {
  const pem = readPem(file);
  if (/PRIVATE KEY-----/.test(pem)) throw new KeyError(`${JSON.stringify(file)} is a private key: a package is checked with the public key alone (the .pub file of \`npm run keygen\`); keep the private key with its owner`);
  let key: KeyObject;
  try { key = createPublicKey({ key: pem, format: 'pem' }); } catch (e) {
    throw new KeyError(`${JSON.stringify(file)} is not a readable public key: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyError(`${JSON.stringify(file)} is an ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

/** The DER of the public key's SubjectPublicKeyInfo (of a private key: of its public half). */
export function spkiDer(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

/** The key id: sha256 of the public key's SubjectPublicKeyInfo DER, lower-case hex (`openssl pkey -pubin -in k.pub -outform DER | sha256sum`). */
export function keyIdOf(key: KeyObject): string {
  return createHash('sha256').update(spkiDer(key)).digest('hex');
}

/** A new Ed25519 pair as PEM: the private key PKCS#8 (unencrypted), the public key SPKI. */
export function newKeyPair(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    keyId: keyIdOf(publicKey),
  };
}

/**
 * `npm run keygen -- --out <path>`: a new Ed25519 key pair for signing certification packages
 * (docs/verifying-packages.md): `<path>.key`, the private key (PKCS#8 PEM, unencrypted, mode 0600:
 * SADAD_PACKAGE_KEY points at it; keep it as a CI secret), and `<path>.pub`, the public key (SPKI
 * PEM) to register with the bank. It never overwrites: a pair that exists already is refused.
 * Not SADAD_SIGNING_KEY's key (the RSA key that signs requests): that one comes from the bank's process.
 */
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newKeyPair } from '../attest/keys.js';

const USAGE = 'usage: npm run keygen -- --out <path>   (writes <path>.key, the private key, mode 0600, and <path>.pub, the public key)';

export function keygen(args: string[]): { code: number; message: string } {
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--out') out = args[++i];
    else if (a.startsWith('--out=')) out = a.slice('--out='.length);
    else if (a === '--help' || a === '-h') return { code: 0, message: USAGE };
    else return { code: 2, message: `keygen: unknown argument ${JSON.stringify(a)}\n${USAGE}` };
  }
  if (!out || out.startsWith('-')) return { code: 2, message: `keygen: --out <path> is required\n${USAGE}` };
  const base = resolve(out.replace(/\.(key|pub)$/, ''));
  const privateFile = `${base}.key`;
  const publicFile = `${base}.pub`;
  const existing = [privateFile, publicFile].filter((f) => existsSync(f));
  if (existing.length) return { code: 2, message: `keygen: ${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}: nothing was written (a key pair is never overwritten; choose another --out, or remove the old pair yourself)` };
  const pair = newKeyPair();
  mkdirSync(dirname(base), { recursive: true });
  // `wx`: fail rather than replace a file that appeared meanwhile; the private key is never readable by others
  writeFileSync(privateFile, pair.privatePem, { mode: 0o600, flag: 'wx' });
  try {
    writeFileSync(publicFile, pair.publicPem, { mode: 0o644, flag: 'wx' });
  } catch (e) {
    rmSync(privateFile, { force: true });
    throw e;
  }
  return {
    code: 0,
    message: [
      `private key: ${privateFile} (mode 0600): set SADAD_PACKAGE_KEY=${privateFile} to sign the package; keep it secret (a CI secret), never commit it`,
      `public key:  ${publicFile}: give it to the bank, which checks packages with \`npm run verify-package -- <package> --key ${publicFile}\``,
      `key id:      ${pair.keyId} (sha256 of the public key's SubjectPublicKeyInfo DER)`,
    ].join('\n'),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const { code, message } = keygen(process.argv.slice(2));
  (code === 0 ? console.log : console.error)(message);
  process.exit(code);
}

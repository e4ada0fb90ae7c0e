/**
 * TLS material for outbound calls (design.md §10): a private CA bundle added to the default roots
 * (SADAD_CA_FILE), and a client certificate, PEM (SADAD_TLS_CERT + SADAD_TLS_KEY) or PKCS#12
 * (SADAD_TLS_PFX), with SADAD_TLS_PASSPHRASE. Everything is read and checked here, before the
 * first call: a file that cannot be read, a wrong passphrase, a key that does not belong to its
 * certificate or a certificate outside its validity stops the run with a ConfigError naming the
 * variable to change. A failed handshake halfway through a 46-minute run would say much less.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type Forge from 'node-forge';
import { nodeForge } from '../base/forge.js';
import { ConfigError } from '../contract/prefix.js';

/** What a report may say about a certificate: never the key, never the passphrase. */
export interface CertInfo {
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  /** Whole days from `now` until notAfter (negative: expired). */
  daysLeft: number;
  fingerprint256: string;
  /** Host names and addresses the certificate is for (subjectAltName), when it names any. */
  altNames?: string;
}

export interface CaBundle { file: string; pems: string[]; certs: CertInfo[] }

export interface ClientCertificate {
  /** Where it came from: `pem` (SADAD_TLS_CERT + SADAD_TLS_KEY) or `pfx` (SADAD_TLS_PFX). */
  source: 'pem' | 'pfx';
  /** The variable to name when the server refuses it. */
  variable: 'SADAD_TLS_CERT' | 'SADAD_TLS_PFX';
  files: string[];
  /** PEM: the leaf first, then any chain certificates the file carried. */
  certPem: string;
  /** Unencrypted PEM of the private key (kept in memory only; nothing records it). */
  keyPem: string;
  info: CertInfo;
}

export interface TlsMaterial { ca: CaBundle | null; client: ClientCertificate | null }

type Env = Readonly<Record<string, string | undefined>>;
const DAY_MS = 86_400_000;
const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const value = (env: Env, name: string) => { const v = env[name]; return v === undefined || v.trim() === '' ? undefined : v.trim(); };

function readVariableFile(env: Env, name: string): { file: string; data: Buffer } | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const file = resolve(raw);
  try {
    return { file, data: readFileSync(file) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read: ${(e as Error).message}`;
    throw new ConfigError(name, `file ${JSON.stringify(raw)} ${why}`);
  }
}

/** The parts of a certificate a person checks, and how long it has left. */
export function certInfo(cert: X509Certificate, now = Date.now()): CertInfo {
  const notAfter = new Date(cert.validTo);
  return {
    subject: oneLine(cert.subject),
    issuer: oneLine(cert.issuer),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: notAfter.toISOString(),
    daysLeft: Math.floor((notAfter.getTime() - now) / DAY_MS),
    fingerprint256: cert.fingerprint256,
    ...(cert.subjectAltName ? { altNames: cert.subjectAltName } : {}),
  };
}

/** `CN=sandbox.bank.example, O=Bank` rather than Node's one field per line. */
const oneLine = (dn: string) => dn.split('\n').filter(Boolean).join(', ');

function pemCertificates(text: string, variable: string, file: string): { pem: string; cert: X509Certificate }[] {
  const pems = text.match(PEM_CERT) ?? [];
  if (!pems.length) throw new ConfigError(variable, `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----); a DER file converts with: openssl x509 -inform der -in <file> -out <file>.pem`);
  return pems.map((pem, i) => {
    try {
      return { pem, cert: new X509Certificate(pem) };
    } catch (e) {
      throw new ConfigError(variable, `certificate ${i + 1} in ${file} cannot be read: ${(e as Error).message}`);
    }
  });
}

function checkValidity(cert: X509Certificate, variable: string, what: string, now: number): void {
  if (Date.parse(cert.validTo) <= now) throw new ConfigError(variable, `${what} (${oneLine(cert.subject)}) expired on ${new Date(cert.validTo).toISOString()}: ask for a new one`);
  if (Date.parse(cert.validFrom) > now) throw new ConfigError(variable, `${what} (${oneLine(cert.subject)}) is not valid before ${new Date(cert.validFrom).toISOString()}: check this machine's clock`);
}

function loadCa(env: Env, now: number): CaBundle | null {
  const read = readVariableFile(env, 'SADAD_CA_FILE');
  if (!read) return null;
  const certs = pemCertificates(read.data.toString('utf8'), 'SADAD_CA_FILE', read.file);
  return { file: read.file, pems: certs.map((c) => c.pem), certs: certs.map((c) => certInfo(c.cert, now)) };
}

function privateKeyOf(pem: Buffer, passphrase: string | undefined): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(passphrase ? { passphrase } : {}) });
  } catch (e) {
    const msg = (e as Error).message;
    // OpenSSL says "bad decrypt" for a wrong passphrase and asks for one when none was given
    if (/bad decrypt|passphrase|interrupted or cancelled/i.test(msg)) {
      throw new ConfigError('SADAD_TLS_PASSPHRASE', passphrase ? 'does not decrypt the key in SADAD_TLS_KEY (wrong passphrase)' : 'is required: the key in SADAD_TLS_KEY is encrypted');
    }
    throw new ConfigError('SADAD_TLS_KEY', `holds no PEM private key: ${msg}`);
  }
}

function matchOrStop(cert: X509Certificate, key: KeyObject, variable: string, source: string): void {
  if (!cert.checkPrivateKey(key)) throw new ConfigError(variable, `the private key does not belong to the certificate ${oneLine(cert.subject)} (${source}): the server would refuse the handshake`);
}

function loadPemClient(env: Env, now: number): ClientCertificate {
  const certFile = readVariableFile(env, 'SADAD_TLS_CERT');
  const keyFile = readVariableFile(env, 'SADAD_TLS_KEY');
  if (!certFile) throw new ConfigError('SADAD_TLS_CERT', 'is required with SADAD_TLS_KEY (the client certificate, PEM)');
  if (!keyFile) throw new ConfigError('SADAD_TLS_KEY', 'is required with SADAD_TLS_CERT (the private key of the client certificate, PEM)');
  const chain = pemCertificates(certFile.data.toString('utf8'), 'SADAD_TLS_CERT', certFile.file);
  const leaf = chain[0]!.cert;
  const key = privateKeyOf(keyFile.data, value(env, 'SADAD_TLS_PASSPHRASE'));
  matchOrStop(leaf, key, 'SADAD_TLS_KEY', `${certFile.file} and ${keyFile.file}`);
  checkValidity(leaf, 'SADAD_TLS_CERT', 'the client certificate', now);
  return {
    source: 'pem', variable: 'SADAD_TLS_CERT', files: [certFile.file, keyFile.file],
    certPem: chain.map((c) => c.pem).join('\n'), keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    info: certInfo(leaf, now),
  };
}

/**
 * Node's crypto cannot open PKCS#12, and OpenSSL 3 refuses the legacy ciphers many exported .p12
 * files still use; node-forge opens both, so the file becomes PEM here and the TLS layer never sees
 * a PKCS#12 at all.
 */
function loadPfxClient(env: Env, now: number): ClientCertificate {
  const read = readVariableFile(env, 'SADAD_TLS_PFX')!;
  const passphrase = value(env, 'SADAD_TLS_PASSPHRASE') ?? '';
  const forge = nodeForge();
  let p12: Forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(read.data.toString('binary')), passphrase);
  } catch (e) {
    const msg = (e as Error).message;
    if (/mac|password|invalid|decrypt/i.test(msg)) throw new ConfigError('SADAD_TLS_PASSPHRASE', `${passphrase ? 'does not open' : 'is required to open'} the PKCS#12 file in SADAD_TLS_PFX (${msg})`);
    throw new ConfigError('SADAD_TLS_PFX', `${read.file} is not a PKCS#12 file: ${msg}`);
  }
  const keyBags = p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? [];
  const plainKeys = p12.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? [];
  const forgeKey = [...keyBags, ...plainKeys][0]?.key;
  if (!forgeKey) throw new ConfigError('SADAD_TLS_PFX', `${read.file} holds no private key`);
  const certBags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  const pems = certBags.flatMap((b) => (b.cert ? [forge.pki.certificateToPem(b.cert)] : []));
  if (!pems.length) throw new ConfigError('SADAD_TLS_PFX', `${read.file} holds no certificate`);
  const key = createPrivateKey(forge.pki.privateKeyToPem(forgeKey));
  const certs = pems.map((p) => new X509Certificate(p));
  // the leaf is the certificate the key belongs to; the others are its chain
  const leafIndex = certs.findIndex((c) => c.checkPrivateKey(key));
  if (leafIndex < 0) throw new ConfigError('SADAD_TLS_PFX', `the private key in ${read.file} belongs to none of its ${certs.length} certificate(s)`);
  const leaf = certs[leafIndex]!;
  checkValidity(leaf, 'SADAD_TLS_PFX', 'the client certificate', now);
  const ordered = [pems[leafIndex]!, ...pems.filter((_, i) => i !== leafIndex)];
  return {
    source: 'pfx', variable: 'SADAD_TLS_PFX', files: [read.file],
    certPem: ordered.join('\n'), keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(), info: certInfo(leaf, now),
  };
}

export function tlsMaterialFromEnv(env: Env, now = Date.now()): TlsMaterial {
  const ca = loadCa(env, now);
  const pem = value(env, 'SADAD_TLS_CERT') !== undefined || value(env, 'SADAD_TLS_KEY') !== undefined;
  const pfx = value(env, 'SADAD_TLS_PFX') !== undefined;
  if (pem && pfx) throw new ConfigError('SADAD_TLS_PFX', 'set either SADAD_TLS_PFX or SADAD_TLS_CERT with SADAD_TLS_KEY, not both');
  if (!pem && !pfx && value(env, 'SADAD_TLS_PASSPHRASE') !== undefined) throw new ConfigError('SADAD_TLS_PASSPHRASE', 'is set but there is no client certificate to open (SADAD_TLS_PFX, or SADAD_TLS_CERT with SADAD_TLS_KEY)');
  return { ca, client: pem ? loadPemClient(env, now) : pfx ? loadPfxClient(env, now) : null };
}

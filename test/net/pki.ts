/**
 * A private PKI for the network tests, made once per test process: a CA the machine does not trust,
 * a server certificate from it for localhost and 127.0.0.1 (the mock's URL names the address), a
 * client certificate from it (PEM, encrypted PEM and PKCS#12), and the certificates a server must
 * refuse or the suite must stop on: one from another CA, and an expired one. Keys come from
 * node:crypto (fast, native); certificates and the PKCS#12 from node-forge, which every machine
 * that ran `npm install` has (the openssl CLI is not promised on a fresh CI image).
 */
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';

export interface Pki {
  dir: string;
  /** The passphrase of `clientPfx` and `clientKeyEncrypted`: random per process, so a scan for it cannot match anything by chance. */
  passphrase: string;
  /** PEM, the private CA (what SADAD_CA_FILE and MOCK_TLS_CLIENT_CA name). */
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  clientKeyEncrypted: string;
  /** PKCS#12: the client certificate, its key and the CA certificate. */
  clientPfx: string;
  /** A client certificate and key from another CA, which the mTLS mock must refuse. */
  otherClientCert: string;
  otherClientKey: string;
  /** The client key's certificate, expired yesterday; and the same as PKCS#12 (passphrase `passphrase`). */
  expiredClientCert: string;
  expiredPfx: string;
  /** The CA certificate in DER: a file with no PEM certificate in it. */
  caDer: string;
  /** PEM text (the mock's options take text, not files). */
  pem: { caCert: string; serverCert: string; serverKey: string };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const forgeKey = (k: KeyObject) => forge.pki.privateKeyFromPem(k.export({ type: 'pkcs1', format: 'pem' }).toString());
const forgePublic = (k: KeyObject) => forge.pki.publicKeyFromPem(createPublicKey(k).export({ type: 'spki', format: 'pem' }).toString()) as forge.pki.rsa.PublicKey;

interface Issued { cert: forge.pki.Certificate; key: KeyObject }

function issue(o: { cn: string; key: KeyObject; issuer?: Issued; ca?: boolean; from: number; to: number; usage?: 'server' | 'client'; altNames?: { type: number; value?: string; ip?: string }[] }): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forgePublic(o.key);
  // a positive serial (a leading 00 bit): OpenSSL refuses negative ones
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(o.from);
  cert.validity.notAfter = new Date(o.to);
  const subject = [{ name: 'commonName', value: o.cn }, { name: 'organizationName', value: 'sadad-conformance tests' }];
  cert.setSubject(subject);
  cert.setIssuer(o.issuer ? o.issuer.cert.subject.attributes : subject);
  const ext: object[] = [
    { name: 'basicConstraints', cA: !!o.ca, critical: true },
    o.ca ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true } : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ];
  if (o.usage) ext.push({ name: 'extKeyUsage', serverAuth: o.usage === 'server', clientAuth: o.usage === 'client' });
  if (o.altNames) ext.push({ name: 'subjectAltName', altNames: o.altNames });
  if (o.issuer) ext.push({ name: 'authorityKeyIdentifier', keyIdentifier: o.issuer.cert.generateSubjectKeyIdentifier().getBytes() });
  cert.setExtensions(ext);
  cert.sign(forgeKey(o.issuer?.key ?? o.key), forge.md.sha256.create());
  return cert;
}

let made: Pki | undefined;

export function pki(): Pki {
  if (made) return made;
  const now = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sadad-pki-'));
  // the keys are test-only, but a folder of private keys is still not left behind
  process.once('exit', () => { try { rmSync(dir, { recursive: true, force: true }); } catch { /* best effort */ } });
  const passphrase = `pp-${randomBytes(12).toString('base64url')}`;
  const toPem = (c: forge.pki.Certificate) => forge.pki.certificateToPem(c);
  const keyPem = (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }).toString();

  const caKey = rsaKey();
  const ca: Issued = { key: caKey, cert: issue({ cn: 'Test Sandbox Root CA', key: caKey, ca: true, from: now - HOUR, to: now + 365 * DAY }) };
  const otherCaKey = rsaKey();
  const otherCa: Issued = { key: otherCaKey, cert: issue({ cn: 'Some Other CA', key: otherCaKey, ca: true, from: now - HOUR, to: now + 365 * DAY }) };
  const serverKey = rsaKey();
  const server = issue({ cn: 'localhost', key: serverKey, issuer: ca, usage: 'server', from: now - HOUR, to: now + 30 * DAY, altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] });
  const clientKey = rsaKey();
  const client = issue({ cn: 'MYCOMPANY client', key: clientKey, issuer: ca, usage: 'client', from: now - HOUR, to: now + 30 * DAY });
  const otherKey = rsaKey();
  const other = issue({ cn: 'MYCOMPANY client (other CA)', key: otherKey, issuer: otherCa, usage: 'client', from: now - HOUR, to: now + 30 * DAY });
  const expired = issue({ cn: 'MYCOMPANY client (expired)', key: clientKey, issuer: ca, usage: 'client', from: now - 30 * DAY, to: now - DAY });

  // 3DES, as most exported .p12 files are; node-forge's default (AES) would do as well
  const p12 = (leaf: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(forgeKey(clientKey), [leaf, ca.cert], passphrase, { algorithm: '3des', friendlyName: 'client' })).getBytes(), 'binary');

  const files: Record<string, string | Buffer> = {
    'ca.pem': toPem(ca.cert),
    'ca.der': Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(ca.cert)).getBytes(), 'binary'),
    'server.pem': toPem(server),
    'server-key.pem': keyPem(serverKey),
    'client.pem': toPem(client),
    'client-key.pem': keyPem(clientKey),
    'client-key-encrypted.pem': clientKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString(),
    'client.p12': p12(client),
    'expired-client.p12': p12(expired),
    'other-client.pem': toPem(other),
    'other-client-key.pem': keyPem(otherKey),
    'expired-client.pem': toPem(expired),
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data, { mode: 0o600 });
  const at = (name: string) => join(dir, name);
  made = {
    dir, passphrase,
    caCert: at('ca.pem'), serverCert: at('server.pem'), serverKey: at('server-key.pem'),
    clientCert: at('client.pem'), clientKey: at('client-key.pem'), clientKeyEncrypted: at('client-key-encrypted.pem'), clientPfx: at('client.p12'),
    otherClientCert: at('other-client.pem'), otherClientKey: at('other-client-key.pem'), expiredClientCert: at('expired-client.pem'), expiredPfx: at('expired-client.p12'), caDer: at('ca.der'),
    pem: { caCert: files['ca.pem'] as string, serverCert: files['server.pem'] as string, serverKey: files['server-key.pem'] as string },
  };
  return made;
}

/** The mock's `tls` option for this PKI: HTTPS, and with `mutual`, a client certificate from the private CA required. */
export function mockTls(mutual: boolean) {
  const p = pki();
  return { cert: p.pem.serverCert, key: p.pem.serverKey, ...(mutual ? { clientCa: p.pem.caCert } : {}) };
}

/**
 * `npm run verify-package -- <dir|zip>... [--key <public key PEM or folder>]... [--sandbox-log <file>] [--csv <file>]`:
 * the bank's check of certification packages (docs/verifying-packages.md, src/verify). Sends nothing.
 * One line per package: `<path>: VALID, CERTIFIES`, `<path>: VALID, DOES NOT CERTIFY (<why>)` or
 * `<path>: INVALID: <what, which file or case>`. Exit 0 when every package is VALID, 1 when one is
 * not, 2 on a usage error (a key or log that cannot be read: nothing was checked).
 */
import { realpathSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { KeyError } from '../attest/keys.js';
import type { TrustedKey } from '../attest/dsse.js';
import { GatewayLogError, readGatewayLog, type GatewayEntry } from '../verify/gateway-log.js';
import { loadTrustedKeys, resultLine, verifyPackage, type PackageVerification } from '../verify/index.js';
import { renderCsv } from '../verify/csv.js';

const USAGE = 'usage: npm run verify-package -- <package folder or .zip>... [--key <public key .pub, or a folder of them>]... [--sandbox-log <gateway log, JSON Lines>] [--csv <file>] [--verbose]';

export interface VerifyArgs { packages: string[]; keys: string[]; sandboxLog: string | null; csv: string | null; verbose: boolean }

export function parseArgs(args: string[]): VerifyArgs | { error: string } {
  const out: VerifyArgs = { packages: [], keys: [], sandboxLog: null, csv: null, verbose: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (name: string) => {
      const eq = a.startsWith(`${name}=`) ? a.slice(name.length + 1) : null;
      if (eq !== null) return eq;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) return null;
      i++;
      return next;
    };
    if (a === '--key' || a.startsWith('--key=')) { const v = value('--key'); if (!v) return { error: '--key needs a public key file (or a folder of them)' }; out.keys.push(v); }
    else if (a === '--sandbox-log' || a.startsWith('--sandbox-log=')) { const v = value('--sandbox-log'); if (!v) return { error: '--sandbox-log needs the gateway log file' }; out.sandboxLog = v; }
    else if (a === '--csv' || a.startsWith('--csv=')) { const v = value('--csv'); if (!v) return { error: '--csv needs a file to write' }; out.csv = v; }
    else if (a === '--verbose' || a === '-v') out.verbose = true;
    else if (a === '--help' || a === '-h') return { error: '' };
    else if (a.startsWith('-')) return { error: `unknown option ${a}` };
    else out.packages.push(a);
  }
  if (!out.packages.length) return { error: 'name at least one package: a reports folder or a certification.zip' };
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if ('error' in args) {
    console.error(args.error ? `verify-package: ${args.error}\n${USAGE}` : USAGE);
    return args.error ? 2 : 0;
  }
  let keys: TrustedKey[] = [];
  let gatewayLog: GatewayEntry[] | null = null;
  try {
    keys = loadTrustedKeys(args.keys);
    if (args.sandboxLog) gatewayLog = readGatewayLog(args.sandboxLog);
  } catch (e) {
    if (!(e instanceof KeyError) && !(e instanceof GatewayLogError)) throw e;
    console.error(`verify-package: ${e instanceof KeyError ? `--key: ${e.message}` : e.message}\nNothing was checked.`);
    return 2;
  }
  const results: PackageVerification[] = [];
  for (const p of args.packages) {
    const v = await verifyPackage(p, { keys, gatewayLog });
    results.push(v);
    console.log(resultLine(v));
    if (args.verbose) {
      for (const c of v.checks) console.log(`  ${c.status === 'ok' ? '✔' : c.status === 'failed' ? '✘' : '-'} ${c.name}: ${c.detail}`);
      for (const pr of v.problems) console.log(`    ${pr.check}: ${pr.text}`);
    }
  }
  if (args.csv) writeFileSync(args.csv, renderCsv(results));
  const invalid = results.filter((v) => !v.valid).length;
  if (results.length > 1) console.log(`${results.length} packages: ${results.length - invalid} valid (${results.filter((v) => v.certifies).length} certify), ${invalid} invalid${args.csv ? `; ${args.csv}` : ''}`);
  return invalid ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e: unknown) => { console.error(e); process.exit(2); });
}

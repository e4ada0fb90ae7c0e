/**
 * The files of a certification package (design.md §4a), in one table: what writes each, whether
 * `certification.sha256` covers it (and so the signature and the zip), and whether `--resume`
 * keeps it aside in `previous/`. The writer (package.ts), the checksums (checksum.ts), the resume
 * (resume.ts), the re-judge (replay/package.ts) and verify-package read it, so a file added here is
 * rendered, checksummed, kept and cleared alike.
 *
 * The names of the report, the page, junit.xml, pacing.json, outages.json, the checksums, the
 * statement and the zip are defined here (package.ts, checksum.ts and attestation.ts read this
 * table, so it cannot import their names from them; they export them as before); the others come
 * from the module that owns them.
 */
import { maskText } from '../client/redact.js';
import { EVIDENCE_DIR, type ExchangeRecord } from '../evidence/record.js';
import { PREFLIGHT_FILE } from '../preflight/model.js';
import { CTRF_FILE, renderCtrf } from './ctrf.js';
import { buildHar, HAR_FILE, renderHar } from './har.js';
import { renderHtml } from './html.js';
import { RUN_FILE } from './journal.js';
import { renderJunit } from './junit.js';
import type { CertificationReport } from './model.js';

export const PACKAGE_FILE = 'certification.json';
export const HTML_FILE = 'certification.html';
export const JUNIT_FILE = 'junit.xml';
export const PACING_FILE = 'pacing.json';
export const OUTAGES_FILE = 'outages.json';
export const CHECKSUM_FILE = 'certification.sha256';
export const ENVELOPE_FILE = 'certification.intoto.json';
export const ZIP_FILE = 'certification.zip';

/** What the package's files are rendered from: the package built from the run journal (package.ts). */
export interface PackageContent {
  report: CertificationReport;
  /** Every case's exchanges (PASS included, carried cases from their run), masked: for exchanges.har. */
  exchanges: { case: string; exchanges: ExchangeRecord[] }[];
}

export interface PackageFile {
  /** Its path in the reports folder; a folder's ends in `/`. */
  file: string;
  /** How writePackage renders it from the built package, in order; null: another module writes it (its row says which). */
  render: ((built: PackageContent) => string) | null;
  /** Listed in certification.sha256 when it is there (a folder: each `.json` file in it), in this order. */
  checksummed: boolean;
  /** Copied to `previous/` when a resume keeps the package aside (resume.ts). */
  keptOnResume: boolean;
}

/**
 * The package's files. The rendered ones are written atomically, then the checksums, last of the
 * files they cover, so a package whose checksums verify is whole; then what covers the checksums.
 */
export const PACKAGE_FILES: readonly PackageFile[] = [
  // the report as data; every string was masked on its way in, the whole text once more for secrets only known now
  { file: PACKAGE_FILE, render: (b) => maskText(JSON.stringify(b.report, null, 2)) + '\n', checksummed: true, keptOnResume: true },
  // the report for people
  { file: HTML_FILE, render: (b) => maskText(renderHtml(b.report)), checksummed: true, keptOnResume: true },
  // from the merged package, so a resumed run's junit.xml holds every case, not only the rerun ones
  { file: JUNIT_FILE, render: (b) => maskText(renderJunit(b.report)), checksummed: true, keptOnResume: true },
  // the cases as CTRF; not kept aside by a resume (the resumed run writes it anew from the merged package)
  { file: CTRF_FILE, render: (b) => maskText(renderCtrf(b.report)), checksummed: true, keptOnResume: false },
  // every call once (the preflight's too), from exchanges masked as they were recorded
  { file: HAR_FILE, render: (b) => renderHar(buildHar(b.report, b.exchanges)), checksummed: true, keptOnResume: true },
  // the pacer's budgets and the over-limit answers, written by the global setup as the run ends
  { file: PACING_FILE, render: null, checksummed: true, keptOnResume: true },
  // the run's manifest (journal.ts), written as its cases start
  { file: RUN_FILE, render: null, checksummed: true, keptOnResume: true },
  // each case's evidence (evidence/store.ts), those carried from an earlier run copied by writePackage
  { file: `${EVIDENCE_DIR}/`, render: null, checksummed: true, keptOnResume: true },
  // the checksums of the files above (checksum.ts)
  { file: CHECKSUM_FILE, render: null, checksummed: false, keptOnResume: true },
  // the signed statement over the checksummed files, with SADAD_PACKAGE_KEY (attestation.ts)
  { file: ENVELOPE_FILE, render: null, checksummed: false, keptOnResume: false },
  // the checksummed files, the checksums and the statement, zipped (attestation.ts)
  { file: ZIP_FILE, render: null, checksummed: false, keptOnResume: false },
  // the outages the coordinator met, as they happened, and the preflight (global setup): read into certification.json
  { file: OUTAGES_FILE, render: null, checksummed: false, keptOnResume: false },
  { file: PREFLIGHT_FILE, render: null, checksummed: false, keptOnResume: false },
];

export const isFolder = (f: PackageFile) => f.file.endsWith('/');

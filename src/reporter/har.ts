/**
 * `reports/exchanges.har`: every call of the package (all verdicts, the cases a resumed package
 * carries from earlier runs, and the preflight's calls) as HAR 1.2
 * (http://www.softwareishard.com/blog/har-12-spec/), so a browser's network panel or any HAR viewer
 * can show them. Built from the masked records of the evidence and masked once more on the way out,
 * as the rest of the package.
 *
 * One entry per call, not per record: the accepted answer the response rules of an operation share
 * is written into the evidence of every case that read it, and listing it once per case made the
 * file claim more calls than the target got (554 entries for 534 calls in a full run). Records of
 * one call are recognised by what only that call has (callKey); the entry names every case that
 * used it in `_cases`, the first of them in `_case` as before. The preflight's calls, which no case
 * records, come from the package's connection section, marked `_preflight`.
 *
 * What the record does not hold, HAR gets as "unknown" where the format has one (-1 sizes), and as
 * the obvious value where it has none: HTTP/1.1 (undici speaks nothing else to a target), timings
 * all in `wait` (the suite measures one duration per exchange). A request that got no answer has
 * status 0 and its error in `_error` and `comment`, as browsers record a failed request.
 */
import { STATUS_CODES } from 'node:http';
import { clippedBody } from '../client/curl.js';
import { maskHeaders, maskText } from '../client/redact.js';
import type { CertificationReport } from './model.js';
import type { ExchangeRecord } from '../evidence/record.js';

export const HAR_FILE = 'exchanges.har';

export interface HarHeader { name: string; value: string }
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string; url: string; httpVersion: string; headers: HarHeader[]; queryString: HarHeader[]; cookies: never[];
    headersSize: number; bodySize: number; postData?: { mimeType: string; text: string };
  };
  response: {
    status: number; statusText: string; httpVersion: string; headers: HarHeader[]; cookies: never[];
    content: { size: number; mimeType: string; text?: string }; redirectURL: string; headersSize: number; bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment: string;
  /**
   * The case the exchange belongs to (the first, in the package's order, when several cases read
   * it; null for a preflight call), its verdict, and the exchange's label within it.
   */
  _case: string | null;
  /** Every case that used the call: one for most, each of an operation's response rules for their shared accepted answer; none for the preflight's. */
  _cases: string[];
  /** A call of the preflight (the package's Connection section), made before the first case. */
  _preflight?: true;
  _verdict: string | null;
  _label: string;
  _operation?: string;
  /** Why no answer came (status 0), as browsers record a failed request. */
  _error?: string;
}
export interface Har { log: { version: '1.2'; creator: { name: string; version: string; comment?: string }; comment: string; pages: never[]; entries: HarEntry[] } }

const HTTP = 'HTTP/1.1';

const headerList = (h: Record<string, string> | undefined): HarHeader[] => Object.entries(maskHeaders(h ?? {})).map(([name, value]) => ({ name, value }));
const headerValue = (h: Record<string, string> | undefined, name: string) => Object.entries(h ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
/** A recorded body cut short by the evidence: its size is not known in bytes. */
const sizeOf = (body: string) => (clippedBody(body) ? -1 : Buffer.byteLength(body, 'utf8'));

function queryOf(url: string): HarHeader[] {
  try { return [...new URL(url).searchParams].map(([name, value]) => ({ name, value })); } catch { return []; }
}

/**
 * What tells one call from every other: its start, its label and operation, and the request with
 * its answer (a request carries its own reference id and the time it was sent). The copies of a
 * shared exchange in several evidence files are the same record, so they give the same key; the
 * curl command is left out, as only a case that is not PASS carries one.
 */
export function callKey(ex: ExchangeRecord): string {
  return JSON.stringify([ex.startedAt ?? null, ex.durationMs ?? null, ex.label, ex.op ?? null, ex.request.method, ex.request.url, ex.request.headers, ex.request.body,
    ex.response?.status ?? null, ex.response?.body ?? null, ex.error?.kind ?? null, ex.error?.message ?? null]);
}

/**
 * One entry per exchange, oldest first; `fallbackTime` for an exchange recorded without its start.
 * `caseId` may name several cases (a shared exchange: the first is `_case`), or none (a preflight call).
 */
export function harEntry(caseId: string | string[] | null, verdict: string | null, ex: ExchangeRecord, fallbackTime: string, options: { preflight?: boolean } = {}): HarEntry {
  const cases = caseId === null ? [] : Array.isArray(caseId) ? caseId : [caseId];
  const who = options.preflight ? (/^preflight\b/.test(ex.label) ? '' : 'preflight: ') : cases.length ? `${cases.join(', ')}: ` : '';
  const req = ex.request;
  const method = String(req.method || 'GET');
  const sendsBody = method !== 'GET' && method !== 'HEAD';
  const time = typeof ex.durationMs === 'number' && ex.durationMs >= 0 ? ex.durationMs : 0;
  const res = ex.response;
  const entry: HarEntry = {
    startedDateTime: ex.startedAt && !Number.isNaN(Date.parse(ex.startedAt)) ? ex.startedAt : fallbackTime,
    time,
    request: {
      method, url: maskText(req.url), httpVersion: HTTP, headers: headerList(req.headers), queryString: queryOf(req.url), cookies: [],
      headersSize: -1, bodySize: sendsBody ? sizeOf(req.body) : 0,
      ...(sendsBody ? { postData: { mimeType: headerValue(req.headers, 'content-type') ?? '', text: maskText(req.body) } } : {}),
    },
    response: res
      ? {
          status: res.status, statusText: STATUS_CODES[res.status] ?? '', httpVersion: HTTP, headers: headerList(res.headers), cookies: [],
          content: { size: sizeOf(res.body), mimeType: headerValue(res.headers, 'content-type') ?? '', text: maskText(res.body) },
          redirectURL: headerValue(res.headers, 'location') ?? '', headersSize: -1, bodySize: sizeOf(res.body),
        }
      : { status: 0, statusText: '', httpVersion: '', headers: [], cookies: [], content: { size: 0, mimeType: '' }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    comment: maskText(`${who}${ex.label}${ex.error ? ` (no answer: ${ex.error.kind}: ${ex.error.message})` : ''}`),
    _case: cases[0] ?? null,
    _cases: cases,
    ...(options.preflight ? { _preflight: true as const } : {}),
    _verdict: verdict,
    _label: maskText(ex.label),
    ...(ex.op ? { _operation: ex.op } : {}),
    ...(ex.error ? { _error: maskText(`${ex.error.kind}: ${ex.error.message}`) } : {}),
  };
  return entry;
}

/**
 * The HAR of a package: `exchanges` holds every case's exchanges (PASS included), as buildPackage
 * gathered them; the report's `connection` (the preflight) gives the calls made before the cases.
 * Each call is one entry, whatever number of cases recorded it.
 */
export function buildHar(report: Pick<CertificationReport, 'cases' | 'fingerprint'> & { connection?: { exchanges: ExchangeRecord[] } | null }, exchanges: { case: string; exchanges: ExchangeRecord[] }[]): Har {
  const verdicts = new Map(report.cases.map((c) => [c.id, c.verdict]));
  const fallback = report.fingerprint.startedAt;
  // the preflight's first: its calls precede the cases', and keep that place among calls of the same millisecond
  const preflight = (report.connection?.exchanges ?? []).map((ex) => harEntry(null, null, ex, fallback, { preflight: true }));
  const calls = new Map<string, { ex: ExchangeRecord; cases: string[] }>();
  for (const c of exchanges) {
    for (const ex of c.exchanges) {
      const key = callKey(ex);
      const call = calls.get(key);
      if (!call) calls.set(key, { ex, cases: [c.case] });
      else if (!call.cases.includes(c.case)) call.cases.push(c.case);
    }
  }
  const entries = [...preflight, ...[...calls.values()].map(({ ex, cases }) => harEntry(cases, verdicts.get(cases[0]!) ?? null, ex, fallback))];
  // a stable sort: exchanges that started in the same millisecond keep the order of their cases
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  return {
    log: {
      version: '1.2',
      creator: { name: report.fingerprint.suite.name, version: report.fingerprint.suite.version },
      comment: 'Every call of the certification package once, the preflight\'s included, secrets masked as «masked». Each entry names the cases that used it in _cases and comment (the first also in _case, with its verdict in _verdict); a preflight call has _preflight true and no case.',
      pages: [],
      entries,
    },
  };
}

export const renderHar = (har: Har) => maskText(JSON.stringify(har, null, 2)) + '\n';

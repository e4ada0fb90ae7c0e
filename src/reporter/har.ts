/**
 * `reports/exchanges.har`: every exchange of the run (all verdicts, and the cases a resumed package
 * carries from earlier runs) as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), so a
 * browser's network panel or any HAR viewer can show them. Built from the masked records of the
 * evidence and masked once more on the way out, as the rest of the package.
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
  /** The case the exchange belongs to, its verdict, and the exchange's label within it. */
  _case: string;
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

/** One entry per exchange, oldest first; `fallbackTime` for an exchange recorded without its start. */
export function harEntry(caseId: string, verdict: string | null, ex: ExchangeRecord, fallbackTime: string): HarEntry {
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
    comment: maskText(`${caseId}: ${ex.label}${ex.error ? ` (no answer: ${ex.error.kind}: ${ex.error.message})` : ''}`),
    _case: caseId,
    _verdict: verdict,
    _label: maskText(ex.label),
    ...(ex.op ? { _operation: ex.op } : {}),
    ...(ex.error ? { _error: maskText(`${ex.error.kind}: ${ex.error.message}`) } : {}),
  };
  return entry;
}

/** The HAR of a package: `exchanges` holds every case's exchanges (PASS included), as buildPackage gathered them. */
export function buildHar(report: Pick<CertificationReport, 'cases' | 'fingerprint'>, exchanges: { case: string; exchanges: ExchangeRecord[] }[]): Har {
  const verdicts = new Map(report.cases.map((c) => [c.id, c.verdict]));
  const fallback = report.fingerprint.startedAt;
  const entries = exchanges.flatMap((c) => c.exchanges.map((ex) => harEntry(c.case, verdicts.get(c.case) ?? null, ex, fallback)));
  // a stable sort: exchanges that started in the same millisecond keep the order of their cases
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  return {
    log: {
      version: '1.2',
      creator: { name: report.fingerprint.suite.name, version: report.fingerprint.suite.version },
      comment: 'Every exchange of the certification run, secrets masked as «masked». Each entry names its case in _case and comment.',
      pages: [],
      entries,
    },
  };
}

export const renderHar = (har: Har) => maskText(JSON.stringify(har, null, 2)) + '\n';

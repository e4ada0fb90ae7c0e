/**
 * A tiny round-robin HTTP load balancer for tests and benches: mock replicas behind one address.
 *
 * Per request (not per connection) the next upstream in turn gets it: method, path, headers and
 * body are forwarded with undici (one keep-alive agent for all upstreams), and the upstream's
 * status, headers and body are copied back. Hop-by-hop headers (RFC 9110 §7.6.1: `Connection` and
 * the headers it names, `Keep-Alive`, `Transfer-Encoding`, `TE`, `Trailer`, `Upgrade`,
 * `Proxy-*`) are not forwarded either way; each side keeps its own connections alive. An upstream
 * that cannot be reached or drops the connection before answering gives the client a 502 with a
 * small JSON body (no retry on another upstream: a balancer cannot know whether a POST took
 * effect). `counts[i]` is how many requests were sent to upstream `i`. `hold`, when given, says how
 * long to keep each upstream answer before passing it on (ms, from its path): an answer that comes
 * late, the call itself having reached the upstream on time.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

export interface Balancer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
  /** Requests sent to each upstream so far, in the order of `upstreams`. */
  counts: number[];
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The end-to-end headers: hop-by-hop ones and those `Connection` names dropped (and `Content-Length`, which is set again from the body). */
function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, dropLength: boolean): Record<string, string | string[]> {
  const named = new Set(String(headers.connection ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== ''));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const k = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(k) || named.has(k) || (dropLength && k === 'content-length')) continue;
    out[k] = value;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function badGateway(res: ServerResponse, upstream: string, err: unknown): void {
  if (res.headersSent) { res.destroy(); return; }
  const code = (err as { code?: string }).code ?? (err instanceof Error ? err.name : 'error');
  const body = JSON.stringify({ error: 'bad gateway', upstream, cause: code });
  res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export async function startBalancer(upstreams: string[], options: { hold?: (path: string) => number } = {}): Promise<Balancer> {
  if (upstreams.length === 0) throw new Error('startBalancer: no upstreams');
  const bases = upstreams.map((u) => u.replace(/\/+$/, ''));
  const counts = bases.map(() => 0);
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128 });
  let next = 0;

  const server = createServer((req, res) => {
    const i = next;
    next = (next + 1) % bases.length;
    counts[i]! += 1;
    const base = bases[i]!;
    const abort = new AbortController();
    // the client went away before its answer was written: stop waiting for the upstream
    res.once('close', () => { if (!res.writableFinished) abort.abort(); });
    void (async () => {
      try {
        const body = await readBody(req);
        const upstream = await request(`${base}${req.url ?? '/'}`, {
          method: req.method as 'POST',
          headers: endToEnd(req.headers, true),
          body: body.length > 0 ? body : undefined,
          dispatcher: agent,
          signal: abort.signal,
        });
        const hold = options.hold?.(req.url ?? '/') ?? 0;
        if (hold > 0) await new Promise((r) => setTimeout(r, hold));
        res.writeHead(upstream.statusCode, endToEnd(upstream.headers, false));
        for await (const chunk of upstream.body) res.write(chunk);
        res.end();
      } catch (err) {
        if (abort.signal.aborted) { res.destroy(); return; }
        badGateway(res, base, err);
      }
    })();
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () => (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await agent.close().catch(() => agent.destroy());
    })()),
  };
}

/**
 * Requests released together, as close as Node allows: one keep-alive socket per request is opened
 * first (a GET each, `warm`: by default to the requests' own path with their headers, answered 405),
 * then every request is written in one synchronous loop, one per socket. What the exactly-once and
 * replica tests and `bench:mock --replicas` race a mock (or a set of replicas) with.
 */
import http from 'node:http';

export interface BurstAnswer { status: number; headers: Headers; body: any }
export interface Burst {
  answers: BurstAnswer[];
  /** Requests fully written before the first answer came back: how much the burst really overlapped. */
  inFlightAtFirstAnswer: number;
}

export async function sendTogether(url: string, path: string, requests: { headers: Record<string, string>; body: unknown }[], warm?: { path: string; headers: Record<string, string> }): Promise<Burst> {
  const n = requests.length;
  const agent = new http.Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });
  const u = new URL(url);
  const send = (method: string, to: string, headers: Record<string, string>, body?: Buffer, onWritten?: () => void) => new Promise<BurstAnswer>((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: to, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try { json = text === '' ? undefined : JSON.parse(text); } catch { /* keep the text */ }
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (onWritten) req.on('finish', onWritten);
    req.end(body);
  });
  try {
    await Promise.all(requests.map((r) => (warm ? send('GET', warm.path, warm.headers) : send('GET', path, r.headers))));
    const payloads = requests.map((r) => Buffer.from(JSON.stringify(r.body)));
    let written = 0;
    let inFlightAtFirstAnswer = -1;
    const pending = payloads.map((p, i) => send('POST', path, { ...requests[i]!.headers, 'Content-Length': String(p.length) }, p, () => { written += 1; }).then((a) => {
      if (inFlightAtFirstAnswer < 0) inFlightAtFirstAnswer = written;
      return a;
    }));
    return { answers: await Promise.all(pending), inFlightAtFirstAnswer };
  } finally {
    agent.destroy();
  }
}

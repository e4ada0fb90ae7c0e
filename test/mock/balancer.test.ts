/**
 * The tests' load balancer (test/support/balancer.ts): round robin per request, everything of a
 * call forwarded both ways, hop-by-hop headers dropped, 502 for an upstream that is down.
 */
import http from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { startMock } from '../../src/mock/index.js';
import { startBalancer } from '../support/balancer.js';
import { MockClient, UNLIMITED } from './helpers.js';

test('round robin per request over keep-alive connections, calls answered as by the mock itself', async () => {
  const mocks = await Promise.all([startMock({ port: 0, ...UNLIMITED }), startMock({ port: 0, ...UNLIMITED })]);
  const lb = await startBalancer(mocks.map((m) => m.url));
  try {
    const c = new MockClient({ ...mocks[0]!, url: lb.url });
    for (let i = 0; i < 4; i++) {
      const a = await c.post('bill-enquiry', c.build('bill-enquiry'));
      expect(a.status).toBe(200);
      expect(a.headers.get('content-type')).toContain('application/json');
      expect(a.headers.get('x-correlation-id')).toBeTruthy();
      expect(c.entries('bill-enquiry', a)).toHaveLength(1);
    }
    expect(lb.counts).toEqual([2, 2]);
    // a 4xx, an empty body, another method: status and body copied back
    const bad = await c.post('bill-enquiry', undefined, { raw: '{"Message":' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBeTruthy();
    expect((await c.post('bill-enquiry', undefined, { raw: '' })).status).toBe(400);
    const get = await c.post('bill-enquiry', undefined, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(lb.counts).toEqual([4, 3]);
  } finally {
    await lb.close();
    await Promise.all(mocks.map((m) => m.close()));
  }
});

test('hop-by-hop headers stay on their hop; an upstream that is down answers 502 with JSON', async () => {
  let seen: http.IncomingHttpHeaders = {};
  const upstream = createServer((req, res) => {
    seen = req.headers;
    req.resume();
    req.on('end', () => res.writeHead(201, { 'x-up': 'yes', 'keep-alive': 'timeout=99', 'content-type': 'text/plain' }).end('hello'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // a port nothing listens on
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  const down = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise<void>((r) => gone.close(() => r()));

  const lb = await startBalancer([up, down]);
  try {
    // node:http, not fetch: fetch refuses to send a Connection header
    const res = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = http.request(`${lb.url}/a/b?c=1`, { method: 'PUT', headers: { 'x-drop': '1', connection: 'keep-alive, x-drop', te: 'trailers', 'x-keep': 'k' } }, (r) => {
        let text = '';
        r.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, text }));
      });
      req.on('error', reject);
      req.end('payload');
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('hello');
    expect(res.headers['x-up']).toBe('yes');
    expect(res.headers['keep-alive']).not.toBe('timeout=99');
    expect(seen.host).toBe(new URL(lb.url).host);
    expect(seen['x-keep']).toBe('k');
    expect(seen['x-drop']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['content-length']).toBe('7');

    const bad = await fetch(`${lb.url}/x`, { method: 'POST', body: '{}' });
    expect(bad.status).toBe(502);
    expect(await bad.json()).toMatchObject({ error: 'bad gateway', upstream: down });
    expect(lb.counts).toEqual([1, 1]);
  } finally {
    await lb.close();
    await new Promise<void>((r) => upstream.close(() => r()));
  }
});

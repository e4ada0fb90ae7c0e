/**
 * A mock in its own process for the soak test (soak.test.ts), so that its resident memory is its
 * own. Started with `node --expose-gc --import tsx` and an IPC channel; argv[2] is JSON
 * `{ options, limits }` (MockOptions and StateLimits, partial). It sends `{ port }` once listening
 * and answers each `'stats'` message, after full garbage collections, with
 * `{ rss, heapUsed, state }`; `'close'` closes it.
 */
import { buildMockServer, resolveMockOptions, type MockOptions } from '../../src/mock/index.js';
import type { StateLimits } from '../../src/mock/state.js';

const { options, limits } = JSON.parse(process.argv[2] ?? '{}') as { options?: Partial<MockOptions>; limits?: Partial<StateLimits> };
const resolved = resolveMockOptions({ ...options, port: 0 });
const { app, state } = await buildMockServer(resolved);
if (limits) state.configure(limits);
await app.listen({ host: resolved.host, port: 0 });
const address = app.server.address();
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (m: unknown) => {
  if (m === 'stats') {
    // collect, let the allocator hand freed pages back, collect again: a settled figure, not a moment's
    gc?.();
    setTimeout(() => {
      gc?.();
      setTimeout(() => {
        const { rss, heapUsed } = process.memoryUsage();
        process.send?.({ rss, heapUsed, gc: gc !== undefined, state: state.stats() });
      }, 200);
    }, 200);
  } else if (m === 'close') {
    void app.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });

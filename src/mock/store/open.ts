/**
 * The store a mock serves from, chosen by its options: Redis when MOCK_REDIS_URL names one (any
 * number of replicas share one sandbox), else memory (one process, the embedded mock's speed).
 * The only module that names the two kinds: the rest of the mock knows a MockStore.
 */
import type { MockOptions } from '../options.js';
import { MockState } from '../state.js';
import type { MockStore } from './index.js';
import { MemoryStore } from './memory.js';

/**
 * Opens the store; `state` is what a memory store keeps its bills and payments in (unused with Redis).
 * The Redis store (and ioredis) is loaded only when asked for: every run against the embedded mock
 * starts one in its runner, and the project's tests start a few dozen runs.
 */
export async function openStore(options: Pick<MockOptions, 'redisUrl' | 'redisPrefix'>, state: MockState = new MockState()): Promise<MockStore> {
  if (options.redisUrl === undefined) return new MemoryStore(state);
  const { RedisStore } = await import('./redis.js');
  return RedisStore.connect({ url: options.redisUrl, ...(options.redisPrefix !== undefined ? { prefix: options.redisPrefix } : {}) });
}

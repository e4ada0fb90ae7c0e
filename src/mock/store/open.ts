/**
 * The store a mock serves from, chosen by its options: Redis when MOCK_REDIS_URL names one (any
 * number of replicas share one sandbox), else memory (one process, the embedded mock's speed).
 * The only module that names the two kinds: the rest of the mock knows a MockStore.
 */
import type { MockOptions } from '../options.js';
import { MockState } from '../state.js';
import type { MockStore } from './index.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';

/** Opens the store; `state` is what a memory store keeps its bills and payments in (unused with Redis). */
export async function openStore(options: Pick<MockOptions, 'redisUrl' | 'redisPrefix'>, state: MockState = new MockState()): Promise<MockStore> {
  return options.redisUrl !== undefined
    ? await RedisStore.connect({ url: options.redisUrl, ...(options.redisPrefix !== undefined ? { prefix: options.redisPrefix } : {}) })
    : new MemoryStore(state);
}

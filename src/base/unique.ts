/**
 * Identifiers that must never repeat (SequenceNumber, TransactionReferenceNumber, reference-id
 * header): unique across runs and processes even with the same SADAD_SEED, so they come from the
 * clock, a per-process random tag and a counter, never from the seeded faker.
 */
import { randomBytes } from 'node:crypto';

const PROCESS_TAG = BigInt(`0x${randomBytes(5).toString('hex')}`).toString(36).padStart(8, '0').slice(-8).toUpperCase();
let counter = 0;
let lastMs = 0;

/** 20 upper-case alphanumerics: 9 of time (ms), 8 of process tag, 3 of counter within the same ms. */
export function uniqueId(prefix = ''): string {
  let now = Date.now();
  if (now !== lastMs) { lastMs = now; counter = 0; }
  if (counter >= 36 ** 3) {
    while ((now = Date.now()) === lastMs) { /* 46k ids in one ms: wait for the next ms */ }
    lastMs = now; counter = 0;
  }
  const time = now.toString(36).toUpperCase().padStart(9, '0');
  const seq = (counter++).toString(36).toUpperCase().padStart(3, '0');
  return `${prefix}${time}${PROCESS_TAG}${seq}`;
}

/** A short unique id for headers limited in length (e.g. 16 alphanumerics for `<prefix>ReferenceID`). */
export function shortUniqueId(length = 16): string {
  const id = uniqueId();
  // keep the fast-changing tail (time low digits, process tag, counter)
  return id.slice(id.length - length);
}

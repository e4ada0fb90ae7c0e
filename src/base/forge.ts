/**
 * node-forge, loaded when first used: only a PKCS#12 file (SADAD_TLS_PFX, SADAD_SIGNING_KEY) needs
 * it, and loading it costs every process that imports the client or the TLS material (a run's runner
 * and each of its workers) some 30 ms of CPU, which the project's tests pay a few hundred times.
 */
import { createRequire } from 'node:module';
import type Forge from 'node-forge';

let loaded: typeof Forge | undefined;

export function nodeForge(): typeof Forge {
  return (loaded ??= createRequire(import.meta.url)('node-forge') as typeof Forge);
}

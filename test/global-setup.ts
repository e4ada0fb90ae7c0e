/**
 * The global setup of the project's own tests: names this `playwright test` (its workers inherit
 * the variable), so that the shared run (test/support/shared-run.ts) is made once per invocation.
 */
import { randomBytes } from 'node:crypto';
import { INVOCATION_ENV } from './support/shared-run.js';

export default function globalSetup(): void {
  process.env[INVOCATION_ENV] = `${new Date().toISOString()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

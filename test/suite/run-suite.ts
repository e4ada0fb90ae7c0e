export { counts, runSuite as runSuiteIn, type SuiteRun } from '../../src/prove/run-suite.js';
import { runSuite as run } from '../../src/prove/run-suite.js';

/** A suite run for the project's tests: extra Playwright arguments only. */
export const runSuite = (env: Record<string, string>, args: string[] = []) => run(env, { args });

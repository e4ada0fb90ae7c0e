/**
 * The preflight room (design.md §10): the path to the target checked before the first case, and
 * alone as `npm run doctor`. Above the network, the client and the pacer; below the suite, which
 * runs it from its global setup, and the reporter, which renders it as the package's Connection.
 */
export * from './model.js';
export * from './run.js';
export * from './format.js';
export { diagnoseProbes, prefixHints, clockSkew, type Probe } from './diagnose.js';

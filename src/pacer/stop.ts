/**
 * "The run is stopping", said in the runner's process: the certification reporter says it when
 * Playwright reports the first test it interrupted (Ctrl-C, a SIGTERM passed on as SIGINT, an outage
 * past SADAD_MAX_OUTAGE_SECONDS), and the run's pacing coordinator, listening here, grants nothing
 * more (Coordinator.stop). Not a SIGINT listener of its own: the reporter's SIGTERM handling reads
 * whether Playwright's is there by counting them. No state: only the listeners of the moment hear it.
 */
const listeners = new Set<() => void>();

/** Calls `fn` when the run is said to be stopping; returns how to stop listening. */
export function onRunStopping(fn: () => void): () => void {
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

export function runStopping(): void {
  for (const fn of [...listeners]) fn();
}

/**
 * Readers of environment values, shared by the suite's configuration and the mock's: each returns
 * the fallback when the variable is unset or blank, and throws a ConfigError naming the variable
 * when the value is malformed.
 */
import { ConfigError } from '../contract/prefix.js';

/** The environment's variables, as settings are read from them. */
export type Variables = Readonly<Record<string, string | undefined>>;

export const unset = (v: string | undefined): v is undefined => v === undefined || v.trim() === '';

export function positiveNumber(env: Variables, variable: string, fallback: number): number {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  const n = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(n > 0) || !Number.isFinite(n)) throw new ConfigError(variable, `must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

export function positiveInteger(env: Variables, variable: string, fallback: number): number {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  if (!/^\s*\d{1,9}\s*$/.test(raw) || Number(raw) < 1) throw new ConfigError(variable, `must be a positive integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function nonNegativeInteger(env: Variables, variable: string, fallback: number): number {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  if (!/^\s*\d{1,9}\s*$/.test(raw)) throw new ConfigError(variable, `must be a whole number 0 or more, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function port(env: Variables, variable: string, fallback: number): number {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  if (!/^\s*\d{1,5}\s*$/.test(raw) || Number(raw) > 65535) throw new ConfigError(variable, `must be a port number 0-65535, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function oneOf<T extends string>(env: Variables, variable: string, allowed: readonly T[], fallback: T): T {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  const value = raw.trim() as T;
  if (!allowed.includes(value)) throw new ConfigError(variable, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  return value;
}

export function flag(env: Variables, variable: string): boolean {
  const raw = env[variable];
  if (unset(raw)) return false;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(v)) return true;
  if (['0', 'false', 'no'].includes(v)) return false;
  throw new ConfigError(variable, `must be 1 or 0, got ${JSON.stringify(raw)}`);
}

export function text(env: Variables, variable: string, fallback: string): string {
  const raw = env[variable];
  if (unset(raw)) return fallback;
  if (/[\s]/.test(raw.trim()) || /[\r\n]/.test(raw)) throw new ConfigError(variable, 'must not contain white space');
  return raw.trim();
}

export function list(env: Variables, variable: string): string[] {
  const names = (env[variable] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = names.find((n) => /\s/.test(n));
  if (bad !== undefined) throw new ConfigError(variable, `must be a comma-separated list without spaces inside names, got ${JSON.stringify(bad)}`);
  return names;
}


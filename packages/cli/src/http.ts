/**
 * How CLI commands talk to a gateway: with an API key, over HTTP, through
 * the SDK. Operator commands keep talking to the database; every command
 * that acts as a tenant (search, sessions, tools, and later policy, logs,
 * webhooks) builds its client here, so they share one way of finding the
 * gateway and one way of reporting its refusals.
 *
 * The gateway and key come from `ROTA_URL` and `ROTA_API_KEY`, or else from
 * the profile `rota login` saved (`ROTA_PROFILE` picks one; the file lives in
 * `ROTA_CONFIG_DIR`, default `~/.config/rota`).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Rota, RotaError } from '@rota/sdk';
import { CliError, EXIT, type CliIo } from './io';

export { EXIT, Rota, RotaError };

/** Where the gateway answers when nothing says otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface Profile {
  url: string;
  api_key: string;
}

interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

function configPath(io: CliIo): string {
  const dir =
    io.env.ROTA_CONFIG_DIR || join(io.env.XDG_CONFIG_HOME || join(io.env.HOME || homedir(), '.config'), 'rota');
  return join(dir, 'config.json');
}

function readConfig(io: CliIo): ConfigFile {
  try {
    const parsed = JSON.parse(readFileSync(configPath(io), 'utf8')) as ConfigFile;
    return { current: parsed.current, profiles: parsed.profiles ?? {} };
  } catch {
    return { profiles: {} };
  }
}

/** Saves a profile (the file is readable by its owner only: it holds a key) and makes it current. */
export function saveProfile(io: CliIo, name: string, profile: Profile): string {
  const path = configPath(io);
  const config = readConfig(io);
  config.profiles[name] = profile;
  config.current = name;
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** The profile `rota login` saved that commands would use now (`ROTA_PROFILE`, else the current one), or null. */
export function savedProfile(io: CliIo): { name: string; profile: Profile } | null {
  const config = readConfig(io);
  const name = io.env.ROTA_PROFILE || config.current || 'default';
  const profile = config.profiles[name];
  return profile ? { name, profile } : null;
}

/** The gateway and key a command should use; `CliError` when there is no key anywhere. */
export function resolveConnection(io: CliIo): Profile {
  const config = readConfig(io);
  const name = io.env.ROTA_PROFILE || config.current || 'default';
  const saved = config.profiles[name];
  if (io.env.ROTA_PROFILE && !saved)
    throw new CliError(`no profile named ${name} (run \`rota login --profile ${name}\`)`);
  const apiKey = io.env.ROTA_API_KEY || saved?.api_key;
  if (!apiKey) throw new CliError('no API key: set ROTA_API_KEY (and ROTA_URL), or run `rota login`');
  return { url: io.env.ROTA_URL || saved?.url || DEFAULT_URL, api_key: apiKey };
}

/** An SDK client for the resolved gateway and key. */
export function rotaClient(io: CliIo, opts: { timeoutMs?: number } = {}): Rota {
  const c = resolveConnection(io);
  return new Rota({
    apiKey: c.api_key,
    baseUrl: c.url,
    timeoutMs: opts.timeoutMs ?? Number(io.env.ROTA_TIMEOUT_MS || 30_000),
    retries: 2,
  });
}

/** 2 for a server-side failure or no answer at all, 1 for a refusal. */
export function exitCodeFor(err: RotaError): number {
  return err.status === 0 || err.status >= 500 ? EXIT.serverError : EXIT.refused;
}

/**
 * One line for a refusal: its code, message, the `detail` a 424 carries,
 * the status and the request id to quote when asking for help.
 */
export function formatRotaError(err: RotaError): string {
  const body = err.body as { detail?: unknown } | undefined;
  const detail = typeof body?.detail === 'string' && body.detail !== err.message ? ` (${body.detail})` : '';
  const where = err.status === 0 ? '' : ` [HTTP ${err.status}${err.requestId ? `, request ${err.requestId}` : ''}]`;
  return `${err.code}: ${err.message}${detail}${where}`.replace(/\s*\n\s*/g, ' ');
}

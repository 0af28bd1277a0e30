// The CLI as a client of the HTTP API. Where to connect comes from, in order: --url/--token, the
// PARAPET_URL/PARAPET_TOKEN environment, then a named profile (--profile, default `default`) in
// the profile file: $PARAPET_PROFILE_FILE, else $XDG_CONFIG_HOME/parapet/profiles.json, else
// ~/.config/parapet/profiles.json. `parapet login` writes a profile (mode 0600: it holds a token).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';

export interface Profile {
  url: string;
  token: string;
}

interface ProfileFile {
  profiles: Record<string, Profile>;
}

export interface ConnectionOptions {
  url?: string;
  token?: string;
  profile?: string;
}

/** An API answer that was not 2xx, with the problem the gateway sent. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: Array<{ field: string; message: string }> } | null,
  ) {
    const detail = problem?.detail ?? problem?.title ?? 'no details';
    const fields = problem?.errors?.map((error) => `${error.field}: ${error.message}`).join('; ');
    super(`HTTP ${status}: ${detail}${fields ? ` (${fields})` : ''}`);
    this.name = 'ApiError';
  }
}

export function profileFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PARAPET_PROFILE_FILE) return env.PARAPET_PROFILE_FILE;
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'parapet', 'profiles.json');
}

function readProfiles(file: string): ProfileFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { profiles: {} };
  }
  const parsed = JSON.parse(text) as Partial<ProfileFile>;
  return { profiles: parsed.profiles ?? {} };
}

export function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const file = profileFilePath(env);
  const profiles = readProfiles(file);
  profiles.profiles[name] = profile;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** Resolves where to connect; throws with a message that says how to configure it. */
export function resolveConnection(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Profile {
  const name = options.profile ?? env.PARAPET_PROFILE ?? 'default';
  const saved = readProfiles(profileFilePath(env)).profiles[name];
  const url = options.url ?? env.PARAPET_URL ?? saved?.url;
  const token = options.token ?? env.PARAPET_TOKEN ?? saved?.token;
  if (url === undefined || token === undefined) {
    throw new Error(
      `no gateway URL and token: pass --url and --token, set PARAPET_URL and PARAPET_TOKEN, or run \`parapet login --url URL --token TOKEN\` (profile ${name})`,
    );
  }
  return { url: url.replace(/\/+$/, ''), token };
}

export class ApiClient {
  constructor(private readonly connection: Profile) {}

  async request(method: string, pathname: string, body?: unknown): Promise<Response> {
    const response = await fetch(this.connection.url + pathname, {
      method,
      headers: {
        authorization: `Bearer ${this.connection.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 400) {
      const text = await response.text();
      let problem: ApiError['problem'] = null;
      try {
        problem = JSON.parse(text) as ApiError['problem'];
      } catch {
        problem = { detail: text.slice(0, 500) };
      }
      throw new ApiError(response.status, problem);
    }
    return response;
  }

  async json<T = unknown>(method: string, pathname: string, body?: unknown): Promise<T> {
    return (await (await this.request(method, pathname, body)).json()) as T;
  }
}

/** Adds --url, --token and --profile to a command that talks to the API. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'gateway base URL (default: PARAPET_URL or the profile)')
    .option('--token <token>', 'operator token (default: PARAPET_TOKEN or the profile)')
    .option('--profile <name>', 'profile in the profile file (default: PARAPET_PROFILE or "default")');
}

export function clientFor(options: ConnectionOptions): ApiClient {
  return new ApiClient(resolveConnection(options));
}

/** `parapet login`: checks the token against the gateway and saves it as a profile. */
export function registerLoginCommand(program: Command): void {
  program
    .command('login')
    .description('save a gateway URL and operator token as a profile (the file is mode 0600)')
    .requiredOption('--url <url>', 'gateway base URL')
    .requiredOption('--token <token>', 'operator token')
    .option('--profile <name>', 'profile name', 'default')
    .action(async (options: { url: string; token: string; profile: string }) => {
      const connection = { url: options.url.replace(/\/+$/, ''), token: options.token };
      const me = await new ApiClient(connection).json<{ kind?: string; role?: string; owner?: string }>('GET', '/api/me');
      const file = saveProfile(options.profile, connection);
      process.stdout.write(`profile ${options.profile} saved in ${file} (${me.kind ?? 'operator'} ${me.role ?? ''} ${me.owner ?? ''})\n`.replace(/ +\)/, ')'));
    });
}

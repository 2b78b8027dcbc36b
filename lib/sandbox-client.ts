/**
 * The sandbox as the developer-loop commands (`trigger`, `events resend`, `listen`, in scripts/loop/)
 * and the go-live check (certify/) see it:
 * the common options (`--base-url`, `--api-key`, or PAYLATER_BASE_URL / PAYLATER_API_KEY)
 * and one JSON call that turns an error answer into a readable line.
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface SandboxTarget {
  baseUrl: string;
  apiKey: string;
}

/** Splits `argv` into `--name value` / `--name=value` options and positionals; `flags` take no value. */
export function parseOptions(
  argv: string[],
  known: readonly string[],
  flags: readonly string[] = [],
): { options: Map<string, string>; positionals: string[] } {
  const options = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (flags.includes(name)) {
      options.set(name, 'true');
      continue;
    }
    if (!known.includes(name)) throw new CliError(`unknown option --${name}`, 2);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value.startsWith('--')) throw new CliError(`--${name} needs a value`, 2);
    options.set(name, value);
  }
  return { options, positionals };
}

/** `--base-url` and `--api-key` (or their environment variables); the key must be a test key. */
export function targetOf(options: Map<string, string>, env: NodeJS.ProcessEnv = process.env): SandboxTarget {
  const baseUrl = (options.get('base-url') ?? env.PAYLATER_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/$/, '');
  const apiKey = options.get('api-key') ?? env.PAYLATER_API_KEY;
  if (!apiKey) throw new CliError('--api-key (or PAYLATER_API_KEY) is required: a test key (sk_test_…)', 2);
  if (!/^https?:\/\//.test(baseUrl)) throw new CliError(`--base-url must be an http(s) URL, got "${baseUrl}"`, 2);
  return { baseUrl, apiKey };
}

type Json = Record<string, unknown>;

/** One API call with the key in `header`; resolves with the JSON body of a 2xx, throws a CliError naming the error otherwise. */
export async function callApi(t: SandboxTarget, method: string, path: string, body?: unknown, header = 'X-API-Key'): Promise<Json> {
  let res: Response;
  try {
    res = await fetch(`${t.baseUrl}${path}`, {
      method,
      headers: { [header]: t.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    throw new CliError(`cannot reach ${t.baseUrl}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    throw new CliError(`${method} ${path} answered ${res.status}${err ? ` ${err.code}: ${err.message}` : ''}`);
  }
  return (json ?? {}) as Json;
}

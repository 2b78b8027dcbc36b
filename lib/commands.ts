/** What the paylater commands share: exit codes, the request timeout, option parsing. */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** The exit codes of `paylater conform` (as its --help documents them), and of `paylater judge`. */
export const EXIT = { clean: 0, findings: 1, setup: 2, incomplete: 3, sigint: 130, sigterm: 143 } as const;

/** How long a request may go unanswered before the command calls it a finding (ms): the suite's requests, a replay's. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export type Values = Record<string, string | boolean | undefined>;

/**
 * A command's arguments parsed strictly, or the exit code it ends with: `--help` printed (clean), an
 * unknown or malformed option refused on one line with the usage (setup). `fail` refuses later
 * checks the same way.
 */
export function parseCommand(
  command: string,
  argv: string[],
  o: { options: ParseArgsOptionsConfig; usage: string; help: string; positionals: boolean },
  out: (s: string) => void,
  err: (s: string) => void,
): { values: Values; positionals: string[]; fail: (msg: string) => number } | number {
  let parsed: { values: Values; positionals: string[] };
  try {
    // every option a command declares is single (no `multiple`): a value is a string or a boolean
    parsed = parseArgs({ args: argv, options: o.options, strict: true, allowPositionals: o.positionals }) as typeof parsed;
  } catch (e) {
    err(`${command}: ${(e as Error).message}. ${o.usage}`);
    return EXIT.setup;
  }
  if (parsed.values.help) {
    out(o.help);
    return EXIT.clean;
  }
  const fail = (msg: string): number => {
    err(`${command}: ${msg}`);
    return EXIT.setup;
  };
  return { ...parsed, fail };
}

/** The integer options among `values`, each at least its minimum; or the message refusing the first that is not. */
export function integers(values: Values, spec: readonly (readonly [string, number])[]): Record<string, number | undefined> | string {
  const out: Record<string, number | undefined> = {};
  for (const [name, min] of spec) {
    const v = values[name];
    if (v !== undefined && (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min))
      return `--${name} must be an integer of at least ${min}`;
    out[name] = v === undefined ? undefined : Number(v);
  }
  return out;
}

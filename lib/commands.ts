/** What the paylater commands that talk to a server share (`paylater conform`, `paylater judge`). */

/** The exit codes of `paylater conform` (as its --help documents them), and of `paylater judge`. */
export const EXIT = { clean: 0, findings: 1, setup: 2, incomplete: 3, sigint: 130, sigterm: 143 } as const;

/** How long a request may go unanswered before the command calls it a finding (ms): the suite's requests, a replay's. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

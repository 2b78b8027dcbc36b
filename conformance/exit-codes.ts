/** The exit codes of `paylater conform`, as its --help documents them. */
export const EXIT = { clean: 0, findings: 1, setup: 2, incomplete: 3, sigint: 130, sigterm: 143 } as const;

/**
 * `paylater <command>`: `serve` runs the reference server (the merchant sandbox),
 * `conform` runs the conformance suite against any server, `trigger`, `events` and `listen` drive a
 * sandbox (scripts/loop/). Each command lives with its
 * feature; this file only dispatches. Returns the process exit code.
 */
const USAGE = `Usage: paylater <command> [options]

Commands:
  serve     Run the reference server (the merchant sandbox). paylater serve --help
  conform   Check any implementation against the contract.  paylater conform --help
  trigger   Make the sandbox produce an event.              paylater trigger --help
  events    Resend a recorded webhook delivery.              paylater events --help
  listen    Forward the sandbox's events to a local URL.     paylater listen --help
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { runServe } = await import('../reference-server/cli.ts');
      return runServe(rest);
    }
    case 'conform': {
      const { runConform } = await import('../conformance/cli.ts');
      return runConform(rest);
    }
    case 'trigger':
    case 'events':
    case 'listen': {
      const { CliError } = await import('./loop/sandbox-client.ts');
      try {
        if (command === 'trigger') return await (await import('./loop/trigger.ts')).runTrigger(rest);
        if (command === 'listen') return await (await import('./loop/listen.ts')).runListen(rest);
        return await (await import('./loop/events.ts')).runEvents(rest);
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        process.stderr.write(`paylater ${command}: ${e.message}\n`);
        return e.exitCode;
      }
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`paylater: unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}

/**
 * `paylater <command>`: `serve` runs the reference server (the merchant sandbox),
 * `conform` runs the conformance suite against any server, `proxy` judges live traffic, `judge` recorded traffic (HAR), `diff` rates the contract's changes
 * against a git ref, `migrate` applies the PostgreSQL store's migrations, `trigger`, `events` and
 * `listen` drive a sandbox (scripts/loop/), `init server` scaffolds a server on the contract router. Each command lives with its feature; this file only
 * dispatches. Returns the process exit code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../lib/package-root.ts';
import { unsupportedNode } from '../lib/node-gate.ts';

const USAGE = `Usage: paylater <command> [options]

Commands:
  serve     Run the reference server (the merchant sandbox). paylater serve --help
  conform   Check any implementation against the contract.  paylater conform --help
  proxy     Judge live traffic (and its state) on the way.   paylater proxy --help
  judge     Judge recorded traffic (HAR), or replay it.      paylater judge --help
  diff      Rate the contract's changes against a git ref.  paylater diff --help
  migrate   Apply the PostgreSQL store's migrations.         paylater migrate --help
  trigger   Make the sandbox produce an event.              paylater trigger --help
  events    Resend a recorded webhook delivery.              paylater events --help
  listen    Forward the sandbox's events to a local URL.     paylater listen --help
  certify   Run the go-live checklist against the sandbox.   paylater certify --help
  init      Scaffold a server built on the contract.         paylater init --help
`;

export async function main(argv: string[]): Promise<number> {
  // Every command, however it is started (the bin checks before importing this file; tsx does not).
  const refused = unsupportedNode();
  if (refused !== null) {
    process.stderr.write(`${refused}\n`);
    return 2;
  }
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
    case 'proxy': {
      const { runProxy } = await import('../proxy/cli.ts');
      return runProxy(rest);
    }
    case 'judge': {
      const { runJudge } = await import('../recorded/judge-cli.ts');
      return runJudge(rest);
    }
    case 'diff': {
      // The diff reads spec/ sources and git history: a checkout of this repository, not the
      // installed package (which ships the bundled documents only, and not Redocly).
      const root = packageRoot();
      if (!existsSync(path.join(root, 'spec', 'openapi.v1.yaml'))) {
        process.stderr.write(
          'paylater diff compares the contract sources (spec/) with a git ref: run it in a checkout of the paylater-contract repository (npm run diff)\n',
        );
        return 2;
      }
      // The compiled bin (dist/js/) finds its files beside itself: in a checkout the diff runs from
      // the sources, where spec/, redocly.yaml and the git history are.
      if (import.meta.url.endsWith('.js')) {
        const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'cli.ts'), 'diff', ...rest], {
          cwd: root,
          stdio: 'inherit',
        });
        return run.status ?? 2;
      }
      const { runDiff } = await import('./diff/cli.ts');
      return runDiff(rest);
    }
    case 'init': {
      const { runInit } = await import('./init/server.ts');
      return runInit(rest);
    }
    case 'migrate': {
      const { runMigrate } = await import('../reference-server/store/postgres/migrate.ts');
      return runMigrate(rest);
    }
    case 'trigger':
    case 'events':
    case 'listen': {
      const { CliError } = await import('../lib/sandbox-client.ts');
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
    case 'certify': {
      const { CliError } = await import('../lib/sandbox-client.ts');
      try {
        return await (await import('../certify/certify.ts')).runCertifyCli(rest);
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        process.stderr.write(`paylater certify: ${e.message}\n`);
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

/**
 * `paylater …` run from the sources (through tsx) in a process of its own, for tests that need
 * the real command: its standard output and error collected together, in arrival order.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './paths.ts';

export interface PaylaterProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far (stdout and stderr). */
  output: () => string;
}

/** Starts `paylater <args>` in the package root (`env` added to this process's), as the user `as` says (root may start it as another). */
export function spawnPaylater(args: string[], env: NodeJS.ProcessEnv = {}, as: { uid?: number; gid?: number } = {}): PaylaterProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'paylater.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    ...as,
  });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  return { child, output: () => text };
}

/** A `paylater proxy` (or a process that prints as it does) started in a process of its own, for tests and the bench. */
import { spawn } from 'node:child_process';
import { ROOT } from '../../scripts/lib/paths.ts';

export interface ListeningProcess {
  /** What it printed in its `paylater proxy: URL ->` line. */
  url: string;
  pid: number | undefined;
  /** Ends it with `signal`: its exit code and all it wrote to stdout and stderr. */
  stop(signal?: 'SIGTERM' | 'SIGINT'): Promise<{ code: number | null; out: string }>;
}

/**
 * Runs node with `args` (from the package's root) and waits for the `paylater proxy: URL ->` line
 * it prints once it listens; rejects with its output when it exits first. The node process is the
 * child itself, never a wrapper, so the signal `stop` sends reaches it directly.
 */
export async function spawnListening(args: string[]): Promise<ListeningProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /paylater proxy: (http:\/\/127\.0\.0\.1:\d+) ->/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]!);
      }
    }, 50);
    child.once('exit', () => {
      clearInterval(t);
      reject(new Error(`the process exited before it listened: ${out}`));
    });
  });
  return {
    url,
    pid: child.pid,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve({ code: child.exitCode, out });
        child.once('exit', (code) => resolve({ code, out }));
        child.kill(signal);
      }),
  };
}

/** What `paylater --help` prints: the commands, one line each. */
import { main } from '../../scripts/cli.ts';

export async function paylaterUsage(): Promise<string> {
  const write = process.stdout.write.bind(process.stdout);
  let usage = '';
  process.stdout.write = (s: string) => ((usage += s), true);
  try {
    await main(['--help']);
  } finally {
    process.stdout.write = write;
  }
  return usage;
}

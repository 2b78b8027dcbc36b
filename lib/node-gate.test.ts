/**
 * The Node-version gate: `engines.node` is the real floor (node:sqlite loads without a flag from
 * 22.13.0 and 23.4.0), and on an older Node every `paylater` command prints one line naming the
 * Node it needs and the one it found, and exits 2, with no stack trace. Run on the machine's own
 * older Node (/usr/bin/node: Debian's, which .ci/run installs when missing) against the built bin.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/lib/paths.ts';
import { nodeRange, satisfies, unsupportedNode } from './node-gate.ts';

const run = promisify(execFile);
const OLD_NODE = '/usr/bin/node';
const BIN = path.join(ROOT, 'dist/js/scripts/paylater.js');

describe('the floor in engines.node', () => {
  it.each([
    ['20.20.2', false],
    ['22.5.0', false],
    ['22.12.0', false],
    ['22.13.0', true],
    ['22.22.1', true],
    ['23.0.0', false],
    ['23.3.0', false],
    ['23.4.0', true],
    ['24.21.0', true],
  ])('Node %s: %s', (version, ok) => {
    expect(satisfies(version, nodeRange())).toBe(ok);
    expect(unsupportedNode(version) === null).toBe(ok);
  });

  it('names the range and the Node found', () => {
    expect(unsupportedNode('22.12.0')).toBe(
      `paylater-contract needs Node ${nodeRange()} (node:sqlite without a flag); this is Node v22.12.0 (${process.execPath})`,
    );
  });
});

describe(`every paylater command on the machine's older Node (${OLD_NODE})`, () => {
  it('is an older Node', async () => {
    expect(existsSync(OLD_NODE), `${OLD_NODE} missing: .ci/run installs Debian's nodejs`).toBe(true);
    const { stdout } = await run(OLD_NODE, ['--version']);
    expect(satisfies(stdout.trim(), nodeRange()), stdout).toBe(false);
  });

  it.each([
    [],
    ['serve'],
    ['serve', '--memory'],
    ['conform', '--help'],
    ['proxy'],
    ['diff'],
    ['migrate'],
    ['trigger'],
    ['events'],
    ['listen'],
    ['certify'],
    ['init', 'server', 'x', '--variant', '1'],
    ['--help'],
  ])('paylater %s: one line, exit 2', async (...args) => {
    expect(existsSync(BIN), 'run npm run build (npm test does)').toBe(true);
    const r = await run(OLD_NODE, [BIN, ...args], { cwd: ROOT }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const { stdout: version } = await run(OLD_NODE, ['--version']);
    expect(r.stderr).toBe(
      `paylater-contract needs Node ${nodeRange()} (node:sqlite without a flag); this is Node ${version.trim()} (${OLD_NODE})\n`,
    );
  });
});

describe(`the package's entry points on the machine's older Node (${OLD_NODE})`, () => {
  // paylater-contract/reference-server needs node:sqlite: its gate (reference-server/node-check.ts)
  // runs before any module of the server, and node:sqlite is loaded only when a database opens.
  it('paylater-contract/reference-server: one line, exit 2', async () => {
    const entry = path.join(ROOT, 'dist/js/reference-server/index.js');
    expect(existsSync(entry), 'run npm run build (npm test does)').toBe(true);
    const r = await run(OLD_NODE, ['--input-type=module', '-e', `await import(${JSON.stringify(entry)}); console.log('loaded')`], {
      cwd: ROOT,
    }).then(
      (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    const { stdout: version } = await run(OLD_NODE, ['--version']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `paylater-contract needs Node ${nodeRange()} (node:sqlite without a flag); this is Node ${version.trim()} (${OLD_NODE})\n`,
    );
  });
});

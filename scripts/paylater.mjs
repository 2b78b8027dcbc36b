#!/usr/bin/env node
// The `paylater` command. The package is written in TypeScript and runs through tsx,
// so the command registers tsx's loader and hands over to scripts/cli.ts.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
/**
 * The `paylater` command (package.json `bin`): runs compiled, as dist/js/scripts/paylater.js
 * (`npm run build`). In this repository `npm start` runs scripts/cli.ts through tsx instead.
 */
import { main } from './cli.ts';

process.exitCode = await main(process.argv.slice(2));

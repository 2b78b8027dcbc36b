/**
 * Imported first by the package entry `paylater-contract/reference-server` (index.ts): ESM runs
 * an entry's imports in order, so on a Node older than package.json `engines` this prints the one
 * line of lib/node-gate.ts and exits 2 before any module of the server runs.
 */
import { exitOnUnsupportedNode } from '../lib/node-gate.ts';

exitOnUnsupportedNode();

import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Absolute path of the package root, whatever the working directory. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_DIR = path.join(ROOT, 'spec');
export const GENERATED_DIR = path.join(ROOT, 'generated');
export const REDOCLY_CONFIG = path.join(ROOT, 'redocly.yaml');
export const ASYNCAPI_FILE = path.join(SPEC_DIR, 'asyncapi.yaml');

/**
 * Bundle entry: esbuild wraps this module as an IIFE whose exports become the global
 * `Service` (globalName), i.e. `Service.Payments`, `Service.init`, `Service.renderButton`,
 * `Service.on`, `Service.version`.
 */
export { Payments, init, renderButton, on, VERSION as version } from './index.ts';

/**
 * Runs express middlewares in order, with express's middleware contract: a thrown error, a
 * rejected returned promise or `next(err)` ends the run with that error; `next('route' |
 * 'router')` ends it early without one. The same calls an `express.Router()` holding these
 * middlewares would make, without its per-layer path matching on every request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Told of an error passed to a `next` after its run ended. */
export type Late = (err: unknown, req: IncomingMessage, res: ServerResponse) => void;

export type Middleware = (req: never, res: never, next: (err?: unknown) => void) => unknown;

interface ChainRun {
  chain: readonly Middleware[];
  req: IncomingMessage;
  res: ServerResponse;
  i: number;
  settled: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
  /** An error passed to a `next` after the run ended (a response hook failing when the body is sent). */
  late: Late;
  next: (err?: unknown) => void;
}

/**
 * Resolves when every middleware called `next()`, rejects with the first error. A middleware may
 * keep its `next` and call it later with an error (express-openapi-validator's response check
 * does, when the body is sent): that goes to `late`, with the run's request and response (one
 * function for every run, not a closure per request).
 */
export function runChain(chain: readonly Middleware[], req: IncomingMessage, res: ServerResponse, late: Late): Promise<void> {
  return new Promise((resolve, reject) => {
    const run: ChainRun = { chain, req, res, i: 0, settled: false, resolve, reject, late, next: undefined as never };
    run.next = step.bind(run);
    run.next();
  });
}

function settle(run: ChainRun, err?: unknown): void {
  if (run.settled) {
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') run.late(err, run.req, run.res);
    return;
  }
  run.settled = true;
  if (err !== undefined && err !== null && err !== 'route' && err !== 'router') run.reject(err);
  else run.resolve();
}

// A bound top-level function rather than a closure per request.
function step(this: ChainRun, err?: unknown): void {
  if (this.settled || (err !== undefined && err !== null)) {
    settle(this, err);
    return;
  }
  const mw = this.chain[this.i++];
  if (!mw) {
    settle(this);
    return;
  }
  try {
    const r = (mw as (req: unknown, res: unknown, next: (err?: unknown) => void) => unknown)(this.req, this.res, this.next) as
      { then?: unknown } | undefined;
    if (r && typeof r.then === 'function') {
      (r as Promise<unknown>).then(undefined, (e: unknown) => settle(this, e ?? new Error('Rejected promise')));
    }
  } catch (e) {
    settle(this, e);
  }
}

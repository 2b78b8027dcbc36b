/** The HTTP side of the suite: every exchange is recorded and every response checked against the contract. */
import type { Contract } from './spec.ts';

export interface Exchange {
  opId: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseText: string;
  json: unknown;
  sentAt: number;
  receivedAt: number;
}

/** A contract violation: the operation, the JSON path, what was expected and what came. */
export class ConformanceError extends Error {
  constructor(
    readonly operation: string,
    readonly jsonPath: string,
    message: string,
    readonly expected?: unknown,
    readonly actual?: unknown,
  ) {
    super(`${operation} ${jsonPath}: ${message}`);
    this.name = 'ConformanceError';
  }
}

export class SetupError extends Error {}

export interface RequestInit2 {
  pathParams?: Record<string, string>;
  /** Query parameters, appended to the path. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export class Client {
  transcript: Exchange[] = [];
  checks = 0;
  requests = 0;
  /** Requests sent per operation id. */
  readonly sent = new Map<string, number>();
  constructor(
    readonly baseUrl: string,
    readonly contract: Contract,
    private readonly fetchImpl: typeof fetch = fetch,
    /** Sees every exchange (e.g. the bench's recorder). */
    private readonly onExchange?: (ex: Exchange) => void | Promise<void>,
  ) {}

  check(ok: boolean, operation: string, jsonPath: string, message: string, expected?: unknown, actual?: unknown): void {
    this.checks++;
    if (!ok) throw new ConformanceError(operation, jsonPath, message, expected, actual);
  }

  async call(opId: string, init: RequestInit2 = {}): Promise<Exchange> {
    const ex = await this.send(opId, init);
    this.checkResponse(ex);
    return ex;
  }

  /** Sends one request and records the exchange, without judging the answer. */
  async send(opId: string, init: RequestInit2 = {}): Promise<Exchange> {
    const op = this.contract.op(opId);
    return this.sendTo(opId, op.method, op.path, init);
  }

  /** Sends to a method and path template (also one outside this variant's contract), recording the exchange. */
  async sendTo(opId: string, method: string, pathTemplate: string, init: RequestInit2 = {}): Promise<Exchange> {
    let path = pathTemplate;
    for (const [k, v] of Object.entries(init.pathParams ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const query = init.query ? new URLSearchParams(init.query).toString() : '';
    const url = this.baseUrl.replace(/\/$/, '') + path + (query ? `?${query}` : '');
    this.sent.set(opId, (this.sent.get(opId) ?? 0) + 1);
    return this.sendRaw(opId, method, url, headers, body);
  }

  /**
   * Sends one request as given (also one the contract's operations cannot describe: HEAD, a method
   * a path does not serve) and records the exchange under `label`, so a finding's curl replays it.
   */
  async sendRaw(label: string, method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Exchange> {
    const sentAt = performance.now();
    this.requests++;
    const res = await this.fetchImpl(url, { method, headers, body });
    const text = await res.text();
    const receivedAt = performance.now();
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => (responseHeaders[k] = v));
    let json: unknown;
    try {
      json = text.length ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const ex: Exchange = {
      opId: label,
      method,
      url,
      headers,
      body,
      status: res.status,
      responseHeaders,
      responseText: text,
      json,
      sentAt,
      receivedAt,
    };
    this.transcript.push(ex);
    if (this.onExchange) await this.onExchange(ex);
    return ex;
  }

  /**
   * Status declared, content type, body schema, header schemas, error code allowed for the status.
   * @checks error-shape, ADR-001
   */
  checkResponse(ex: Exchange): void {
    judgeResponse(this.contract, ex, this);
  }
}

/** What a judge reports to: its count of checks, and `check`, which throws a ConformanceError on a failed one (Client is one). */
export interface Judge {
  checks: number;
  check(ok: boolean, operation: string, jsonPath: string, message: string, expected?: unknown, actual?: unknown): void;
}

/**
 * Judges one answer against its operation's declared response: status declared, content type, body
 * schema, header schemas, error code allowed for the status. The suite's client and `paylater proxy`
 * both judge with it.
 */
export function judgeResponse(contract: Contract, ex: Exchange, judge: Judge): void {
  const { opId, status } = ex;
  const spec = contract.response(opId, status);
  const req = requestLine(ex);
  judge.check(
    spec !== null,
    opId,
    '$',
    `${req} answered ${status}, a status not declared for ${opId} (body: ${ex.responseText.slice(0, 200)})`,
    'a declared status',
    status,
  );
  if (!spec) return;
  if (spec.contentTypes.length) {
    const ct = (ex.responseHeaders['content-type'] ?? '').split(';')[0]!.trim();
    judge.check(
      spec.contentTypes.includes(ct),
      opId,
      '$',
      `${req}: content type ${JSON.stringify(ct)} of ${status} is not declared`,
      spec.contentTypes,
      ct,
    );
    judge.check(ex.json !== undefined, opId, '$', `${req}: ${status} body is not JSON: ${ex.responseText.slice(0, 200)}`);
    const validate = spec.validate.get(ct);
    if (validate && !validate(ex.json)) {
      const e = validate.errors![0]!;
      judge.check(
        false,
        opId,
        `$${e.instancePath.replace(/\//g, '.')}`,
        `${req}: ${status} body: ${e.message} (${JSON.stringify(e.params)})`,
        e.schemaPath,
        valueAt(ex.json, e.instancePath),
      );
    }
    judge.checks++;
  }
  for (const h of spec.headers) {
    const raw = ex.responseHeaders[h.name.toLowerCase()];
    if (raw === undefined) {
      judge.check(!h.required, opId, `header ${h.name}`, `${req}: required header ${h.name} missing on ${status}`);
      continue;
    }
    const value = h.type === 'integer' || h.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw) : raw;
    judge.check(
      h.validate(value) === true,
      opId,
      `header ${h.name}`,
      `${req}: header ${h.name}=${JSON.stringify(raw)}: ${h.validate.errors?.[0]?.message ?? ''}`,
    );
  }
  if (status >= 400) {
    const code = (ex.json as { error?: { code?: string } } | undefined)?.error?.code;
    const allowed = contract.op(opId).errors[String(status)] ?? [];
    judge.check(
      code !== undefined && allowed.includes(code),
      opId,
      '$.error.code',
      `${req} answered ${status} with code ${code}, not one allowed with ${status}`,
      allowed,
      code,
    );
  }
}

/** `METHOD /path` of an exchange, for messages: the request whose answer broke a rule. */
export function requestLine(ex: Pick<Exchange, 'method' | 'url'>): string {
  return `${ex.method} ${new URL(ex.url).pathname}`;
}

function valueAt(json: unknown, pointer: string): unknown {
  let cur = json;
  for (const p of pointer.split('/').slice(1)) cur = (cur as Record<string, unknown> | undefined)?.[p];
  return cur;
}

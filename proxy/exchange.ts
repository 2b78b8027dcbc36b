/**
 * One forwarded exchange: its state from the request head to the answer's last byte (./forward.ts
 * reads the request, ./upstream.ts the answer), the copies of its bodies, and its hand-over to the
 * judging side, from a bounded queue drained once the event loop has written every answer it had.
 */
import { ChunkedReader, type BodyKind, type ChunkSink, type Head } from './http1.ts';

/** An exchange whose answer has ended, as the judging side receives it. */
export interface Forwarded {
  seq: number;
  method: string;
  /** The request target as the client sent it (origin form). */
  url: string;
  /** The request's header fields as received: name, value, … */
  requestHeaders: string[];
  /** The request body (its chunks' data when chunked); null when longer than the capture limit. */
  requestBody: Buffer | null;
  status: number;
  responseHeaders: string[];
  /** The answer's body as it came (content-coded, without its chunks' framing); null when longer than the capture limit. */
  responseBody: Buffer | null;
  /** When the request's head had been read, and when the answer's last byte had been written (performance.now()). */
  sentAt: number;
  receivedAt: number;
}

/** A body copied up to a limit: the chunks the sockets read, kept as they are (no copy). */
export class Capture {
  chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  constructor(readonly limit: number) {}
  add(buf: Buffer, start: number, end: number): void {
    if (this.truncated || end === start) return;
    if (this.size + end - start > this.limit) {
      this.truncated = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(start === 0 && end === buf.length ? buf : buf.subarray(start, end));
    this.size += end - start;
  }
  /** The copy, or null when cut. */
  bytes(): Buffer | null {
    if (this.truncated) return null;
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }
}

/** Where the data of an answer that goes on without its chunks' framing is sent (an HTTP/1.0 client's connection). */
export interface DataSink {
  send(ex: Exchange, buf: Buffer, start: number, end: number): void;
}

/** One exchange, from its request head to its answer's last byte. */
export class Exchange implements ChunkSink {
  readonly sentAt = performance.now();
  readonly request: Capture;
  readonly answer: Capture;
  /** The request head as sent upstream (sent again on a retry). */
  upstreamHead = '';
  requestLeft: number;
  requestChunks: ChunkedReader | null;
  requestDone: boolean;
  response: Head | null = null;
  responseBody: BodyKind = 'none';
  responseLeft = 0;
  responseChunks: ChunkedReader | null = null;
  /** A response head not yet written: it leaves with the first bytes of the body. */
  pendingHead: string | null = null;
  headSent = false;
  /** The answer goes on without its chunks' framing (to an HTTP/1.0 client), its data through `sink`. */
  dechunk = false;
  /** Answer bytes received for this exchange on its upstream connection. */
  answerBytes = 0;
  /** The client's connection ends with this answer. */
  closeClient: boolean;
  retried = false;
  done = false;

  constructor(
    readonly sink: DataSink,
    readonly seq: number,
    readonly head: Head,
    readonly url: string,
    capture: number,
  ) {
    this.request = new Capture(capture);
    this.answer = new Capture(capture);
    this.requestLeft = head.body === 'length' ? head.length : 0;
    this.requestChunks = head.body === 'chunked' ? new ChunkedReader() : null;
    this.requestDone = head.body === 'none';
    this.closeClient = head.close;
  }

  /** A chunked body's data: the request's while it is being read, then the answer's. */
  chunkData(buf: Buffer, start: number, end: number): void {
    if (!this.requestDone) {
      this.request.add(buf, start, end);
      return;
    }
    this.answer.add(buf, start, end);
    if (this.dechunk) this.sink.send(this, buf, start, end);
  }

  /** The exchange as the judging side receives it, its answer ended at `receivedAt`. */
  forwarded(receivedAt: number): Forwarded {
    return {
      seq: this.seq,
      method: this.head.method,
      url: this.url,
      requestHeaders: this.head.fields,
      requestBody: this.request.bytes(),
      status: this.response!.status,
      responseHeaders: this.response!.fields,
      responseBody: this.answer.bytes(),
      sentAt: this.sentAt,
      receivedAt,
    };
  }
}

/** The judging queue's bound, in exchanges and in copied bytes: at it, the oldest is judged at once. */
export const JUDGE_QUEUE_EXCHANGES = 1000;
export const JUDGE_QUEUE_BYTES = 64 * 1024 * 1024;

/**
 * Ended exchanges waiting to be judged. An exchange is queued once its answer's last byte has been
 * written to the client; the queue is drained by `setImmediate`, after the event loop has handled
 * every socket that was ready, so that no answer waits for the judging of another. The queue holds
 * at most JUDGE_QUEUE_EXCHANGES exchanges and JUDGE_QUEUE_BYTES copied bytes: at the bound the
 * oldest is judged at once (counted by `full`), so nothing is dropped and memory stays bounded.
 */
export class JudgeQueue {
  private readonly waiting: Forwarded[] = [];
  private bytes = 0;
  private scheduled = false;
  private readonly drainSoon = (): void => this.drain();

  constructor(
    private readonly judge: (f: Forwarded) => void,
    private readonly failed: (f: Forwarded, why: string) => void,
    private readonly full: () => void,
  ) {}

  push(f: Forwarded): void {
    const size = sizeOf(f);
    while (this.waiting.length >= JUDGE_QUEUE_EXCHANGES || (this.waiting.length > 0 && this.bytes + size > JUDGE_QUEUE_BYTES)) {
      this.full();
      this.hand(this.waiting.shift()!);
    }
    this.waiting.push(f);
    this.bytes += size;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drainSoon);
    }
  }

  /** Every queued exchange judged now, in the order their answers ended. */
  drain(): void {
    this.scheduled = false;
    const all = this.waiting.splice(0);
    for (const f of all) this.hand(f);
  }

  private hand(f: Forwarded): void {
    this.bytes -= sizeOf(f);
    try {
      this.judge(f);
    } catch (e) {
      this.failed(f, `the proxy could not judge this exchange: ${(e as Error).message}`);
    }
  }
}

const sizeOf = (f: Forwarded): number => (f.requestBody?.length ?? 0) + (f.responseBody?.length ?? 0);

/**
 * One forwarded exchange: its state from the request head to the answer's last byte (./forward.ts
 * reads the request, ./upstream.ts the answer), the copies of its bodies, and the queue that hands
 * it, ended, to the judging side, which reads it as it is: its heads (`head`, `response`), its
 * copies (`request.bytes()`, `answer.bytes()`: content-coded as it came, unchunked), its instants.
 */
import { isSafeMethod } from '../judge/exchange.ts';
import { ChunkedReader, type BodyKind, type ChunkSink, type Head } from './http1.ts';

const NO_BYTES = Buffer.alloc(0);

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
      this.size = 0;
      return;
    }
    this.chunks.push(start === 0 && end === buf.length ? buf : buf.subarray(start, end));
    this.size += end - start;
  }
  /** The copy, or null when cut (joined here, on the judging side); a body of no bytes is one shared empty buffer. */
  bytes(): Buffer | null {
    if (this.truncated) return null;
    const n = this.chunks.length;
    return n === 1 ? this.chunks[0]! : n === 0 ? NO_BYTES : Buffer.concat(this.chunks, this.size);
  }
}

/** One exchange, from its request head to its answer's last byte. */
export class Exchange implements ChunkSink {
  /** When the request's head had been read, and when the answer's last byte had been written (performance.now()). */
  readonly sentAt = performance.now();
  receivedAt = 0;
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
  /** Another exchange of a method that may change something was open when this one's answer ended (`Exchange.othersOpen` of the judge). */
  othersOpen = true;
  /** Its method may change something (not GET, HEAD, OPTIONS). */
  readonly unsafe: boolean;

  constructor(
    /** Where the data of an answer that goes on without its chunks' framing is sent (an HTTP/1.0 client's connection). */
    readonly sink: { send(ex: Exchange, buf: Buffer, start: number, end: number): void },
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
    this.unsafe = !isSafeMethod(head.method);
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
}

/** The judging queue's bound, in exchanges and in copied bytes: at it, the oldest is judged at once (`full`), nothing dropped. */
const JUDGE_QUEUE_EXCHANGES = 1000;
const JUDGE_QUEUE_BYTES = 64 * 1024 * 1024;
/**
 * How long an ended exchange waits for the others that end meanwhile, to be judged with them in one
 * batch. Judged on each turn of the event loop (`setImmediate`: one to three exchanges a turn under
 * load), the proxy's main thread spent 171 µs per B2 request; judged in batches every 1, 2 or 5 ms,
 * 126–136 µs (the judge's code and memory stay warm for a batch; alternating rounds through proxies
 * in one run, docs/history.md). Nothing reads the findings without draining the queue first.
 */
export const JUDGE_BATCH_MS = 2;

/**
 * Ended exchanges waiting to be judged, each queued once its answer's last byte has been written;
 * drained in a batch JUDGE_BATCH_MS after the first of them ended, between answers, so that no
 * answer waits for the judging of another; drained at once by `drain()` (the report, a webhook
 * delivery, the sweep, the recorder's readers, close).
 */
export class JudgeQueue {
  private readonly waiting: Exchange[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly drainSoon = (): void => this.drain();

  constructor(
    private readonly judge: (ex: Exchange) => void,
    private readonly failed: (ex: Exchange, why: string) => void,
    private readonly full: () => void,
  ) {}

  push(ex: Exchange): void {
    const size = sizeOf(ex);
    while (this.waiting.length >= JUDGE_QUEUE_EXCHANGES || (this.waiting.length > 0 && this.bytes + size > JUDGE_QUEUE_BYTES)) {
      this.full();
      this.hand(this.waiting.shift()!);
    }
    this.waiting.push(ex);
    this.bytes += size;
    // unref'd: a queued exchange never keeps the process alive (close drains the queue)
    this.timer ??= setTimeout(this.drainSoon, JUDGE_BATCH_MS).unref();
  }

  /** Every queued exchange judged now, in the order their answers ended. */
  drain(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const all = this.waiting.splice(0);
    for (const ex of all) this.hand(ex);
  }

  private hand(ex: Exchange): void {
    this.bytes -= sizeOf(ex);
    try {
      this.judge(ex);
    } catch (e) {
      this.failed(ex, `the proxy could not judge this exchange: ${(e as Error).message}`);
    }
  }
}

const sizeOf = (ex: Exchange): number => ex.request.size + ex.answer.size;

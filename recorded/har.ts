/**
 * HAR 1.2 (the HTTP Archive format) read into exchanges (proxy/har.ts writes it), as browsers'
 * devtools ("Save all as HAR with content"), Playwright's `recordHar` (embedded bodies, bodies
 * attached beside the file or in its `.zip`), mitmproxy's HAR export, k6 Studio's recordings and
 * `paylater proxy --har` write it: header names in any case and HTTP/2 pseudo-headers (`:authority`)
 * left out, bodies in `postData.text` / `content.text` (base64 when `encoding` says so), entries in
 * any order (sorted by `startedDateTime`; a time with more than milliseconds keeps them). Masked
 * credentials (`MASKED_…`) are kept as they are: a masked key still tells merchants apart.
 * A damaged or foreign file is refused with a HarError naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { instant } from '../judge/clock.ts';
import type { Delivery, Exchange } from '../judge/index.ts';
import { isJson } from '../lib/json.ts';

export class HarError extends Error {}

/** An exchange as a HAR holds it: a request body it did not keep has its size (`request.bodySize`), when known. */
export interface HarExchange extends Exchange {
  requestBytes?: number;
}

/** A webhook delivery a recording holds (a request with Standard Webhooks' headers): where it was sent, and the receiver's answer. */
export interface HarDelivery extends Delivery {
  url: string;
  status: number;
}

export interface HarRead {
  /** The answered entries, numbered 1… in the order they started (deliveries among them). */
  exchanges: HarExchange[];
  deliveries: HarDelivery[];
  /** Entries without an answer (status 0: failed, blocked or cancelled): not judged, their requests told to the judge (`Judge.unjudged`). */
  unanswered: { method: string; url: string; headers: Record<string, string> }[];
  creator: string;
}

/** The files of a zip archive (stored or deflated, as Playwright's `.zip` HAR holds them), by name. */
function unzip(buf: Buffer): Map<string, Buffer> {
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557) && end < 0; i--) if (buf.readUInt32LE(i) === 0x06054b50) end = i;
  if (end < 0) throw new Error('a zip file without its central directory');
  const files = new Map<string, Buffer>();
  let p = buf.readUInt32LE(end + 16);
  for (let k = buf.readUInt16LE(end + 10); k > 0; k--) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('a damaged zip directory');
    const [method, size, nameLength, local] = [
      buf.readUInt16LE(p + 10),
      buf.readUInt32LE(p + 20),
      buf.readUInt16LE(p + 28),
      buf.readUInt32LE(p + 42),
    ];
    const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
    p += 46 + nameLength + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    if (method !== 0 && method !== 8) throw new Error(`${name} is compressed with method ${method} (stored and deflate are read)`);
    files.set(name, method === 8 ? inflateRawSync(data) : data);
  }
  return files;
}

/** Header objects as one record: names lower-case, pseudo-headers left out, a repeated header's values joined. */
function headerRecord(list: unknown, where: string): Record<string, string> {
  if (list === undefined) return {};
  if (!Array.isArray(list)) throw new Error(`${where} is not an array`);
  const out: Record<string, string> = {};
  for (const h of list) {
    if (!isJson(h) || typeof h.name !== 'string' || typeof h.value !== 'string')
      throw new Error(`${where} holds a header without a name and value`);
    const k = h.name.toLowerCase();
    if (k.startsWith(':')) continue;
    out[k] = k in out ? `${out[k]}, ${h.value}` : h.value;
  }
  return out;
}

/**
 * A body: its text (decoded when base64), an attached file (`_file`), form parameters; undefined
 * when the recording holds none (`known` false: it was not recorded, so it is judged on status only).
 */
function body(o: unknown, attached: (name: string) => Buffer | undefined): { text: string | undefined; known: boolean } {
  if (!isJson(o)) return { text: undefined, known: o === undefined };
  const file = typeof o._file === 'string' ? attached(o._file) : undefined;
  if (file) return { text: file.toString('utf8'), known: true };
  if (typeof o.text === 'string' && (o.text !== '' || o._file === undefined))
    return { text: o.encoding === 'base64' ? Buffer.from(o.text, 'base64').toString('utf8') : o.text, known: true };
  if (Array.isArray(o.params) && o.params.length)
    return {
      text: new URLSearchParams((o.params as { name: string; value?: string }[]).map((x) => [x.name, x.value ?? ''])).toString(),
      known: true,
    };
  return { text: undefined, known: o.size === 0 };
}

/** A HAR file's text (or a zip holding one), read into exchanges; throws HarError naming `file`. */
export function parseHar(data: Buffer, file: string): HarRead {
  const refuse = (why: string): HarError => new HarError(`${file}: ${why}`);
  let files: Map<string, Buffer> | undefined;
  let text: string;
  try {
    if (data.length >= 4 && data.readUInt32LE(0) === 0x04034b50) {
      files = unzip(data);
      const har = [...files.keys()].find((n) => n.endsWith('.har'));
      if (!har) throw new Error('a zip file holding no .har file');
      text = files.get(har)!.toString('utf8');
    } else text = data.toString('utf8');
  } catch (e) {
    throw refuse(e instanceof RangeError ? 'a damaged zip file' : (e as Error).message);
  }
  let har: unknown;
  try {
    har = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw refuse(`not JSON (${(e as Error).message}), so not a HAR file`);
  }
  const log = isJson(har) ? har.log : undefined;
  if (!isJson(log) || !Array.isArray(log.entries)) throw refuse('not a HAR file: no log.entries');
  const version = log.version === undefined || log.version === '' ? '1.1' : log.version;
  if (version !== '1.1' && version !== '1.2') throw refuse(`a HAR of version ${JSON.stringify(version)}; versions 1.1 and 1.2 are read`);
  const dir = path.dirname(file);
  const attached = (name: string): Buffer | undefined => {
    if (files) return files.get(name);
    try {
      return readFileSync(path.join(dir, path.basename(name)));
    } catch {
      return undefined;
    }
  };
  // each entry read, with its place in the file (the order of entries that started together)
  const read: { at: number; sentAt: number; delivery?: HarDelivery; exchange?: HarExchange }[] = [];
  const unanswered: HarRead['unanswered'] = [];
  for (const [i, e] of (log.entries as unknown[]).entries()) {
    const where = `entry ${i + 1}`;
    try {
      if (!isJson(e) || !isJson(e.request)) throw new Error('has no request');
      if (!isJson(e.response)) throw new Error('has no response');
      const { request: rq, response: rs } = e;
      if (typeof rq.method !== 'string' || typeof rq.url !== 'string' || !URL.canParse(rq.url))
        throw new Error('has no method and absolute URL');
      if (typeof rs.status !== 'number') throw new Error('has no response status');
      const sentAt = instant(e.startedDateTime);
      if (sentAt === undefined) throw new Error(`has no ISO 8601 startedDateTime (${JSON.stringify(e.startedDateTime)})`);
      const sent = body(rq.postData, attached);
      const headers = headerRecord(rq.headers, 'request.headers');
      if (headers['webhook-id'] !== undefined && headers['webhook-signature'] !== undefined) {
        read.push({
          at: i,
          sentAt,
          delivery: {
            seq: 0,
            url: rq.url,
            status: rs.status,
            receivedAt: sentAt,
            headers,
            body: sent.text ?? '',
            truncated: !sent.known || undefined,
          },
        });
        continue;
      }
      if (rs.status === 0) {
        unanswered.push({ method: rq.method.toUpperCase(), url: rq.url, headers });
        continue;
      }
      const answer = body(rs.content, attached);
      const exchange: HarExchange = {
        seq: 0,
        method: rq.method.toUpperCase(),
        url: rq.url,
        headers,
        body: sent.text === '' ? undefined : sent.text,
        requestTruncated: !sent.known || undefined,
        requestBytes: !sent.known && typeof rq.bodySize === 'number' && rq.bodySize > 0 ? rq.bodySize : undefined,
        status: rs.status,
        responseHeaders: headerRecord(rs.headers, 'response.headers'),
        responseText: answer.text ?? '',
        responseTruncated: !answer.known || undefined,
        sentAt,
        receivedAt: sentAt + (typeof e.time === 'number' && e.time > 0 ? e.time : 0),
      };
      read.push({ at: i, sentAt, exchange });
    } catch (x) {
      throw refuse(`${where} ${(x as Error).message}`);
    }
  }
  read.sort((a, b) => a.sentAt - b.sentAt || a.at - b.at);
  read.forEach((r, i) => ((r.exchange ?? r.delivery)!.seq = i + 1));
  const exchanges = read.flatMap((r) => (r.exchange ? [r.exchange] : []));
  const deliveries = read.flatMap((r) => (r.delivery ? [r.delivery] : []));
  const creator = isJson(log.creator) ? [log.creator.name, log.creator.version].filter((x) => typeof x === 'string').join(' ') : 'unknown';
  return { exchanges, deliveries, unanswered, creator };
}

export function readHar(file: string): HarRead {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (e) {
    throw new HarError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseHar(data, file);
}

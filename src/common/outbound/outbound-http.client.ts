import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { Agent as HttpAgent, IncomingHttpHeaders, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppConfig } from '../../config/app-config';
import { isPublicAddress } from './address-policy';
import { OutboundError } from './outbound-error';

export interface OutboundRequest {
  url: string;
  /** Largest body accepted, after decompression (a small gzip cannot expand past it). */
  maxBytes: number;
  /** Cancels the request, e.g. when a whole import runs out of time. */
  signal?: AbortSignal;
  accept?: string;
  maxRedirects?: number;
  /** GET by default. Redirects are followed for GET and HEAD only; other methods get the 3xx answer. */
  method?: string;
  /** Extra request headers (integration scripts, webhooks, tunnels); the guard's own headers win. */
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** Media type without parameters, lower case (`text/html`), or '' when absent. */
  contentType: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'QuireImporter/1.0';

/**
 * The one way Quire calls other servers. Every connection, including each redirect hop, is
 * checked on the address it actually connects to (a custom DNS lookup, plus IP literals, which
 * Node connects to without a lookup), so a public name that resolves to a private address, or a
 * public page that redirects to one, is refused unless `OUTBOUND_ALLOW_PRIVATE=true`.
 */
@Injectable()
export class OutboundHttpClient implements OnApplicationShutdown {
  private readonly allowPrivate: boolean;
  private readonly timeoutMs: number;
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;

  /** `addressAllowed` is the guard's rule; tests narrow it to tell loopback addresses apart. */
  constructor(
    config: Pick<AppConfig, 'outbound'>,
    private readonly addressAllowed: (address: string) => boolean = isPublicAddress,
  ) {
    this.allowPrivate = config.outbound.allowPrivate;
    this.timeoutMs = config.outbound.timeoutMs;
    // Keep-alive pays off when an import fetches hundreds of pages from one host; the guard
    // still ran when each pooled socket was first connected.
    this.httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 32 });
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 32 });
  }

  /** After the HTTP server has closed (unlike onModuleDestroy), so imports in flight keep their sockets. */
  onApplicationShutdown(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** Sends `request` (GET unless `method` says otherwise) and reads the whole answer. */
  async get(request: OutboundRequest): Promise<OutboundResponse> {
    const maxRedirects = request.maxRedirects ?? 5;
    let url = this.parse(request.url, request.url);
    for (let hop = 0; ; hop++) {
      const response = await this.send(url, request);
      const location = response.headers.location;
      const method = (request.method ?? 'GET').toUpperCase();
      if (REDIRECTS.has(response.statusCode ?? 0) && location && (method === 'GET' || method === 'HEAD')) {
        response.resume();
        if (hop >= maxRedirects) throw new OutboundError('too-many-redirects', `more than ${maxRedirects} redirects`, request.url);
        url = this.parse(location, url.toString(), url);
        continue;
      }
      const body = await this.readBody(response, url.toString(), request);
      return {
        url: url.toString(),
        status: response.statusCode ?? 0,
        contentType: String(response.headers['content-type'] ?? '')
          .split(';')[0]
          .trim()
          .toLowerCase(),
        headers: response.headers,
        body,
      };
    }
  }

  private parse(raw: string, original: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new OutboundError('bad-url', `not a valid URL: ${raw.slice(0, 200)}`, original);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundError('bad-url', `only http and https URLs can be fetched, not ${url.protocol}`, original);
    }
    url.hash = '';
    return url;
  }

  private send(url: URL, request: OutboundRequest): Promise<IncomingMessage> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.allowPrivate && !this.addressAllowed(host)) {
      return Promise.reject(new OutboundError('blocked', `refused to connect to the private address ${host}`, url.toString()));
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const https = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(url, {
        method: request.method ?? 'GET',
        agent: https ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup as never,
        signal,
        headers: {
          'user-agent': USER_AGENT,
          accept: request.accept ?? '*/*',
          ...request.headers,
          'accept-encoding': 'gzip, deflate, br',
          ...(request.body ? { 'content-length': String(request.body.length) } : {}),
        },
      });
      req.on('response', (response) => {
        // A slow body must still end when the time is up.
        signal.addEventListener('abort', () => response.destroy(this.abortError(url, timeout.aborted)), { once: true });
        resolve(response);
      });
      req.on('error', (error) => reject(this.describe(error, url, timeout)));
      req.end(request.body);
    });
  }

  /** dns.lookup, refusing names that resolve to any non-public address (all of them are checked, not just the first). */
  private readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as LookupAddress[];
      const refused = this.allowPrivate ? undefined : list.find((entry) => !this.addressAllowed(entry.address));
      if (refused) {
        return callback(new OutboundError('blocked', `refused to connect to ${hostname}: it resolves to the private address ${refused.address}`, hostname), '');
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };

  private async readBody(response: IncomingMessage, url: string, request: OutboundRequest): Promise<Buffer> {
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > request.maxBytes) {
      response.destroy();
      throw new OutboundError('too-large', `the response is larger than ${request.maxBytes} bytes`, url);
    }
    let stream: Readable = response;
    const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
    if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(createGunzip());
    else if (encoding === 'deflate') stream = response.pipe(createInflate());
    else if (encoding === 'br') stream = response.pipe(createBrotliDecompress());
    if (stream !== response) response.on('error', (error) => stream.destroy(error));

    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream) {
        total += (chunk as Buffer).length;
        if (total > request.maxBytes) {
          response.destroy();
          throw new OutboundError('too-large', `the response is larger than ${request.maxBytes} bytes`, url);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof OutboundError) throw error;
      throw this.describe(error as Error, new URL(url));
    }
    return Buffer.concat(chunks);
  }

  private abortError(url: URL, timedOut: boolean): OutboundError {
    return timedOut
      ? new OutboundError('timeout', `no complete answer within ${this.timeoutMs} ms`, url.toString())
      : new OutboundError('aborted', 'the request was cancelled', url.toString());
  }

  private describe(error: Error, url: URL, timeout?: AbortSignal): OutboundError {
    if (error instanceof OutboundError) return error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OutboundError) return cause;
    if (error.name === 'AbortError' || timeout?.aborted) return this.abortError(url, timeout?.aborted ?? false);
    const code = (error as NodeJS.ErrnoException).code;
    return new OutboundError('network', `could not reach ${url.host}${code ? ` (${code})` : ''}`, url.toString());
  }
}

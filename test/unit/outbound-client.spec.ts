import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { isPublicAddress } from '../../src/common/outbound/address-policy';
import { OutboundError } from '../../src/common/outbound/outbound-error';
import { OutboundHttpClient } from '../../src/common/outbound/outbound-http.client';

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.1.2.3', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['[::1]', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['not-an-ip', false],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['::ffff:8.8.8.8', true],
    ['2606:4700::1111', true],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('OutboundHttpClient', () => {
  let server: Server;
  let base: string;
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const handler = routes.get(req.url ?? '');
      if (handler) return handler(req, res);
      res.writeHead(404).end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set('/hello', (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>hello</p>'));
    routes.set('/ua', (req, res) => res.writeHead(200).end(req.headers['user-agent']));
    routes.set('/gzip', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync('unzipped body')));
    routes.set('/bomb', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(100_000))));
    routes.set('/big', (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000)));
    routes.set('/chunked-big', (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
      res.end();
    });
    routes.set('/redirect', (_req, res) => res.writeHead(302, { location: '/hello' }).end());
    routes.set('/loop', (_req, res) => res.writeHead(301, { location: '/loop' }).end());
    routes.set('/to-other-loopback', (_req, res) => res.writeHead(302, { location: base.replace('127.0.0.1', '127.0.0.2') + '/hello' }).end());
    routes.set('/to-file', (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    routes.set('/slow', () => undefined);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const client = (allowPrivate: boolean, addressAllowed?: (address: string) => boolean, timeoutMs = 2000) => {
    const instance = new OutboundHttpClient({ outbound: { allowPrivate, timeoutMs } }, addressAllowed);
    clients.push(instance);
    return instance;
  };
  const clients: OutboundHttpClient[] = [];
  afterAll(() => clients.forEach((instance) => instance.onApplicationShutdown()));

  const failure = async (promise: Promise<unknown>): Promise<OutboundError> => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(OutboundError);
    return error as OutboundError;
  };

  it('refuses a loopback IP literal when private targets are not allowed', async () => {
    const error = await failure(client(false).get({ url: `${base}/hello`, maxBytes: 1000 }));
    expect(error.reason).toBe('blocked');
  });

  it('refuses a host name that resolves to loopback (checked on the resolved address)', async () => {
    const error = await failure(client(false).get({ url: base.replace('127.0.0.1', 'localhost') + '/hello', maxBytes: 1000 }));
    expect(error.reason).toBe('blocked');
    expect(error.message).toMatch(/localhost.*resolves to the private address/);
  });

  it('fetches when private targets are allowed, with its own user agent', async () => {
    const res = await client(true).get({ url: `${base}/hello`, maxBytes: 1000 });
    expect(res).toMatchObject({ status: 200, contentType: 'text/html', url: `${base}/hello` });
    expect(res.body.toString()).toBe('<p>hello</p>');
    expect((await client(true).get({ url: `${base}/ua`, maxBytes: 1000 })).body.toString()).toMatch(/^QuireImporter/);
  });

  it('follows redirects and reports the final URL', async () => {
    const res = await client(true).get({ url: `${base}/redirect`, maxBytes: 1000 });
    expect(res.url).toBe(`${base}/hello`);
    expect(res.body.toString()).toBe('<p>hello</p>');
  });

  it('checks the address of every redirect hop', async () => {
    const onlyFirstLoopback = (address: string) => address === '127.0.0.1';
    const guarded = client(false, onlyFirstLoopback);
    expect((await guarded.get({ url: `${base}/hello`, maxBytes: 1000 })).status).toBe(200);
    const error = await failure(guarded.get({ url: `${base}/to-other-loopback`, maxBytes: 1000 }));
    expect(error).toMatchObject({ reason: 'blocked', message: expect.stringContaining('127.0.0.2') });
  });

  it('checks every address a name resolves to', async () => {
    // `localhost` resolves to 127.0.0.1 and, on most machines, ::1: allowing only ::1 must still refuse it.
    const error = await failure(client(false, (address) => address === '::1').get({ url: base.replace('127.0.0.1', 'localhost') + '/hello', maxBytes: 1000 }));
    expect(error.reason).toBe('blocked');
  });

  it('stops a redirect loop', async () => {
    expect((await failure(client(true).get({ url: `${base}/loop`, maxBytes: 1000 }))).reason).toBe('too-many-redirects');
  });

  it('refuses a redirect to another scheme', async () => {
    expect((await failure(client(true).get({ url: `${base}/to-file`, maxBytes: 1000 }))).reason).toBe('bad-url');
  });

  it('refuses URLs that are not http(s)', async () => {
    expect((await failure(client(true).get({ url: 'ftp://127.0.0.1/x', maxBytes: 1000 }))).reason).toBe('bad-url');
    expect((await failure(client(true).get({ url: 'not a url', maxBytes: 1000 }))).reason).toBe('bad-url');
  });

  it('decompresses gzip bodies, and applies the size limit after decompression', async () => {
    expect((await client(true).get({ url: `${base}/gzip`, maxBytes: 1000 })).body.toString()).toBe('unzipped body');
    expect((await failure(client(true).get({ url: `${base}/bomb`, maxBytes: 10_000 }))).reason).toBe('too-large');
  });

  it('refuses bodies over the limit, declared or streamed', async () => {
    expect((await failure(client(true).get({ url: `${base}/big`, maxBytes: 4999 }))).reason).toBe('too-large');
    expect((await client(true).get({ url: `${base}/big`, maxBytes: 5000 })).body.length).toBe(5000);
    expect((await failure(client(true).get({ url: `${base}/chunked-big`, maxBytes: 9999 }))).reason).toBe('too-large');
  });

  it('gives up on a server that does not answer in time', async () => {
    expect((await failure(client(true, undefined, 150).get({ url: `${base}/slow`, maxBytes: 1000 }))).reason).toBe('timeout');
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const pending = client(true).get({ url: `${base}/slow`, maxBytes: 1000, signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).reason).toBe('aborted');
  });
});

import express from 'express';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { JsonReplyAdapter, weakEtag } from '../../src/common/http/json-reply.adapter';
import { SecurityHeaders } from '../../src/common/http/security-headers';
import pino from 'pino';
import { createLogger, isoTimeOncePerMillisecond } from '../../src/common/logging/logger';
import { RequestLog } from '../../src/common/logging/request-logging';

/**
 * The hot path's shortcuts answer exactly what the general code answers: the ETag express
 * computes, the headers helmet sets, the bytes `res.json()` writes (docs/scaling.md, "The hot path").
 */
describe('hot path', () => {
  it("the log line's time is pino's isoTime, formatted again only when the millisecond changes", () => {
    let clock = Date.UTC(2026, 10, 27, 7, 30, 0, 123);
    const time = isoTimeOncePerMillisecond(() => clock);
    const realNow = Date.now;
    try {
      for (const step of [0, 0, 1, 999, 0, 86_400_000]) {
        clock += step;
        Date.now = () => clock;
        expect(time()).toBe(pino.stdTimeFunctions.isoTime());
      }
    } finally {
      Date.now = realNow;
    }
    expect(time()).toBe(`,"time":"${new Date(clock).toISOString()}"`);
  });

  it('the request log line is, byte for byte, the line pino writes for the same fields', () => {
    const realNow = Date.now;
    Date.now = () => Date.UTC(2026, 10, 27, 7, 30, 0, 123);
    try {
      const cases = [
        { req: { method: 'GET', url: '/v1/user' }, res: { writableFinished: true, statusCode: 200 }, id: '6fad718a-6320-428e-9ce1-a907c5631c42', ms: 2.5 },
        {
          req: { method: 'POST', originalUrl: '/v1/orgs/x/"sp\\aces"?q=1', url: '/' },
          res: { writableFinished: true, statusCode: 409, locals: { errorCode: 'SPACE_CONFLICT' } },
          id: 'a.b:c-d',
          ms: 0.4,
        },
        { req: { method: 'GET', url: '/v1/caf\u00e9\u0001' }, res: { writableFinished: true, statusCode: 503 }, id: 'x', ms: 12 },
        { req: { method: 'DELETE', url: '/v1/spaces/1' }, res: { writableFinished: false, statusCode: 200 }, id: 'y', ms: 1000.6 },
      ];
      // The stock logger (the direct line) and one with a mixin (pino writes the line itself): each against pino.
      for (const options of [{}, { mixin: () => ({ extra: 1 }) }]) {
        const written: string[] = [];
        const logger = Object.keys(options).length
          ? pino({ ...options, base: { service: 'quire' }, timestamp: isoTimeOncePerMillisecond() }, { write: (line: string) => written.push(line) })
          : createLogger('info', { write: (line: string) => void written.push(line) });
        const log = new RequestLog(logger);
        const plain = logger.child({}, { redact: [] });
        for (const { req, res, id, ms } of cases) {
          log.write(req as never, res as never, id, ms);
          const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
          const line: Record<string, unknown> = {
            req: { id, method: req.method, path: url.split('?')[0] },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(ms),
          };
          if ((res as { locals?: { errorCode?: string } }).locals?.errorCode) line.errorCode = (res as { locals: { errorCode: string } }).locals.errorCode;
          plain[!res.writableFinished || res.statusCode >= 500 ? 'error' : 'info'](line, res.writableFinished ? 'request completed' : 'request aborted');
          const [ours, pinos] = written.splice(0, 2);
          expect(ours).toBe(pinos);
        }
      }
    } finally {
      Date.now = realNow;
    }
  });

  it("weakEtag is express's weak ETag, for text and bytes", () => {
    const app = express();
    const expressEtag = app.get('etag fn') as (body: string | Buffer, encoding?: BufferEncoding) => string;
    for (const body of ['', '{}', '{"title":"Grüße, 世界 🚀"}', 'x'.repeat(5000)]) {
      expect(weakEtag(body, 'utf8')).toBe(expressEtag(body, 'utf8'));
      expect(weakEtag(Buffer.from(body))).toBe(expressEtag(Buffer.from(body)));
    }
    expect(weakEtag('ÿé', 'latin1')).toBe(expressEtag('ÿé', 'latin1'));
  });

  it('SecurityHeaders sets what helmet sets, over HTTP and over HTTPS', () => {
    const scripts = { 'script-src': ["'self'", "'unsafe-inline'"] };
    const cases = [
      {
        secure: false,
        middleware: helmet({ contentSecurityPolicy: { directives: { ...scripts, 'upgrade-insecure-requests': null } }, strictTransportSecurity: false }),
      },
      { secure: true, middleware: helmet({ contentSecurityPolicy: { directives: scripts } }) },
    ];
    for (const { secure, middleware } of cases) {
      const fromHelmet = new Map<string, string>();
      middleware(
        {} as never,
        { setHeader: (name: string, value: string) => fromHelmet.set(name, value), removeHeader: (name: string) => fromHelmet.delete(name) } as never,
        () => undefined,
      );
      const set = new Map<string, string>();
      const req = { socket: { encrypted: secure }, headers: {} } as unknown as IncomingMessage;
      new SecurityHeaders().apply(req, { setHeader: (name: string, value: string) => set.set(name, value) } as unknown as ServerResponse);
      expect([...set]).toEqual([...fromHelmet]);
      expect(set.has('Strict-Transport-Security')).toBe(secure);
    }
  });

  describe('JsonReplyAdapter', () => {
    const body = { object: 'space', id: '01J', title: 'Grüße 🚀', list: [1, null, { a: true }] };
    const adapter = new JsonReplyAdapter();
    const app = express();
    app.get('/json', (_req, res) => void res.json(body));
    app.get('/reply', (_req, res) => void adapter.reply(res, body));
    app.post('/json', (_req, res) => void res.status(201).json(body));
    app.post('/reply', (_req, res) => void adapter.reply(res, body, 201));

    const comparable = (res: request.Response) => {
      const headers = { ...res.headers };
      delete headers.date;
      return { status: res.status, headers, text: res.text, order: Object.keys(headers) };
    };

    it('answers what res.json() answers: status, headers (and their order), ETag and body', async () => {
      for (const method of ['get', 'post'] as const) {
        const expected = comparable(await request(app)[method]('/json'));
        const actual = comparable(await request(app)[method]('/reply'));
        expect(actual).toEqual(expected);
        expect(actual.headers.etag).toMatch(/^W\/"/);
      }
    });

    it('leaves HEAD and conditional requests to express: a matching ETag still gets 304', async () => {
      const first = await request(app).get('/reply');
      const again = await request(app).get('/reply').set('If-None-Match', first.headers.etag);
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      const head = await request(app).head('/reply');
      expect(comparable(head)).toEqual(comparable(await request(app).head('/json')));
    });
  });
});

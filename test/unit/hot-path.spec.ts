import express from 'express';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { JsonReplyAdapter, weakEtag } from '../../src/common/http/json-reply.adapter';
import { SecurityHeaders } from '../../src/common/http/security-headers';
import pino from 'pino';
import { isoTimeOncePerMillisecond } from '../../src/common/logging/logger';

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

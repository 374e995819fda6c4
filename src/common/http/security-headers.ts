import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import helmet from 'helmet';

/** A header helmet sets, as a name and its value. */
type Header = readonly [name: string, value: string];

/**
 * helmet's headers, fitted to the transport. Over HTTPS (the connection itself, or a trusted proxy's
 * `X-Forwarded-Proto: https`): HSTS and `upgrade-insecure-requests`. Over plain HTTP neither: they would
 * send a browser to an HTTPS port that does not exist, and the docs page would load without its scripts.
 * The docs page loads Swagger UI's own script and styles; the rest is helmet's defaults.
 *
 * helmet's headers do not depend on the request, so its middlewares (a dozen, each a `setHeader`
 * behind a `next`) run once here, on a stand-in response, and every request gets the headers they
 * set from one list: the same names and values, without the chain (docs/scaling.md, "The hot path").
 */
export class SecurityHeaders {
  private readonly overHttps: readonly Header[];
  private readonly overHttp: readonly Header[];

  constructor() {
    const scripts = { 'script-src': ["'self'", "'unsafe-inline'"] };
    this.overHttps = headersOf(helmet({ contentSecurityPolicy: { directives: scripts } }));
    this.overHttp = headersOf(
      helmet({
        contentSecurityPolicy: { directives: { ...scripts, 'upgrade-insecure-requests': null } },
        strictTransportSecurity: false,
      }),
    );
  }

  /** Sets the headers of the request's transport on `res`. */
  apply(req: IncomingMessage, res: ServerResponse): void {
    for (const [name, value] of isHttps(req) ? this.overHttps : this.overHttp) res.setHeader(name, value);
  }
}

/**
 * `req.secure` as express answers it, without consulting the trust-proxy list when there is no
 * `X-Forwarded-Proto` header to believe (the list is only asked about a forwarded protocol).
 */
function isHttps(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  return req.headers['x-forwarded-proto'] !== undefined && (req as Request).secure;
}

/** The headers a helmet middleware sets, taken once from a stand-in response. */
function headersOf(middleware: ReturnType<typeof helmet>): Header[] {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  let done = false;
  middleware({} as Request, response as unknown as Response, (error?: unknown) => {
    if (error) throw error;
    done = true;
  });
  // helmet's middlewares are synchronous: a change to that would leave this list incomplete.
  if (!done) throw new Error('helmet did not finish synchronously; its headers cannot be taken once');
  return [...headers];
}

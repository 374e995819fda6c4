import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers, fitted to the transport. Over HTTPS (the connection itself, or a trusted proxy's
 * `X-Forwarded-Proto: https`): HSTS and `upgrade-insecure-requests`. Over plain HTTP neither: they would
 * send a browser to an HTTPS port that does not exist, and the docs page would load without its scripts.
 * The docs page loads Swagger UI's own script and styles; the rest is helmet's defaults.
 */
export function securityHeaders(): RequestHandler {
  const scripts = { 'script-src': ["'self'", "'unsafe-inline'"] };
  const overHttps = helmet({ contentSecurityPolicy: { directives: scripts } });
  const overHttp = helmet({
    contentSecurityPolicy: { directives: { ...scripts, 'upgrade-insecure-requests': null } },
    strictTransportSecurity: false,
  });
  return (req: Request, res: Response, next: NextFunction) => (req.secure ? overHttps : overHttp)(req, res, next);
}

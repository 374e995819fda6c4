import { createIntegration } from '@gitbook/runtime';

/*
 * A visitor-auth integration for Quire's tests, written for them. The loop:
 * 1. `fetch_visitor_authentication` sends the visitor to the identity provider (`authorize_url`),
 *    with `redirect_uri` = this site installation's public endpoint + `visitor-auth/response` and
 *    the visitor's `location` as `state`;
 * 2. the identity provider sends them back with `code` (here: the user's name);
 * 3. `/visitor-auth/response` signs a JWT with the site installation's signing secret and sends the
 *    visitor to the site, at `location`, with `?jwt_token=`.
 */

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function signHS256(claims: Record<string, unknown>, secret: string): Promise<string> {
  const header = base64url(encoder.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' })));
  const payload = base64url(encoder.encode(JSON.stringify(claims)));
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${header}.${payload}`)));
  return `${header}.${payload}.${base64url(signature)}`;
}

function returnEndpoint(publicEndpoint: string): string {
  return `${publicEndpoint.replace(/\/$/, '')}/visitor-auth/response`;
}

export default createIntegration({
  fetch_visitor_authentication: async (event, context) => {
    const siteInstallation = context.environment.siteInstallation;
    if (!siteInstallation) return new Response('not installed on a site', { status: 400 });
    const configuration = siteInstallation.configuration as { authorize_url: string; site_url: string };
    if (event.action === 'logout') return Response.redirect(`${configuration.site_url}/`, 302);
    const url = new URL(configuration.authorize_url);
    url.searchParams.set('redirect_uri', returnEndpoint(siteInstallation.urls.publicEndpoint));
    url.searchParams.set('state', event.location ?? '/');
    for (const [name, value] of Object.entries(event.searchParams ?? {})) url.searchParams.set(name, value);
    console.log(`sending a visitor of site ${event.siteId} to log in`);
    return Response.redirect(url.toString(), 302);
  },

  fetch: async (request, context) => {
    const url = new URL(request.url);
    const siteInstallation = context.environment.siteInstallation;
    if (!url.pathname.endsWith('/visitor-auth/response') || !siteInstallation) return new Response('not found', { status: 404 });
    const code = url.searchParams.get('code');
    if (!code) return new Response('missing code', { status: 400 });
    const secret = context.environment.signingSecrets.siteInstallation;
    if (!secret) return new Response('no site installation secret', { status: 500 });
    const now = Math.floor(Date.now() / 1000);
    const jwt = await signHS256({ sub: code, plan: code === 'alice' ? 'pro' : 'free', iat: now, exp: now + 3600 }, secret);
    const configuration = siteInstallation.configuration as { site_url: string };
    const location = url.searchParams.get('state') ?? '/';
    const target = new URL(`${configuration.site_url}${location.startsWith('/') ? location : `/${location}`}`);
    target.searchParams.set('jwt_token', jwt);
    return Response.redirect(target.toString(), 302);
  },
});

import { createTestApp, TestApp } from '../support/test-app';

/**
 * Security headers fit the transport. Over plain HTTP, HSTS and `upgrade-insecure-requests` would
 * send a browser to an HTTPS port that does not exist (the docs page would load without its
 * scripts); over HTTPS, as a trusted proxy reports it, they are sent.
 */
describe('security headers', () => {
  let t: TestApp;
  // The test client stands for the proxy: TRUST_PROXY names it, as an operator names the load balancer.
  beforeAll(async () => (t = await createTestApp({ TRUST_PROXY: 'loopback' })));
  afterAll(() => t.close());

  it('over plain HTTP: no HSTS and no upgrade-insecure-requests, on the docs page and the API alike', async () => {
    for (const path of ['/docs', '/docs/', '/health/live', '/v1/user']) {
      const res = await t.http.get(path);
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['content-security-policy']).toBeDefined();
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('behind a trusted proxy that terminated HTTPS: HSTS and upgrade-insecure-requests', async () => {
    const res = await t.http.get('/health/live').set('X-Forwarded-Proto', 'https');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });

  it('serves the docs page with the scripts it needs from its own origin', async () => {
    const page = await t.http.get('/docs/').expect(200);
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).not.toMatch(/^https?:/); // relative: served by us over whatever scheme the page came on
      await t.http.get(`/docs/${src.replace(/^\.\//, '')}`).expect(200);
    }
  });
});

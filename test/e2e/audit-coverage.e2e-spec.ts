import { AUDITED_ROUTES } from '../../src/common/audit/audit-catalogue';
import { declaredRoutes } from '../support/route-declarations';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Route coverage of the audit log, over the application's route table. Every non-GET route is in the
 * catalogue (an action, or why it records nothing), and the catalogue names no route that is gone.
 * That each audited route's success leaves its event is checked on every e2e test of a writing
 * route: the test app runs with AUDIT_STRICT, where such a success without its event answers 500.
 */
describe('audit coverage of the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('every non-GET route declares its audit action or why it records nothing', () => {
    // Routes without a public operationId are not API operations: an integration's public endpoint (`ALL …/public`)
    // is the script's own anonymous HTTP, and what the script then changes goes through audited routes.
    const writing = declaredRoutes(t.app).filter((route) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method) && !route.operationId.includes('.'));
    expect(writing.length).toBeGreaterThan(100);
    expect(writing.filter((route) => !(route.operationId in AUDITED_ROUTES)).map((route) => `${route.method} ${route.path} (${route.operationId})`)).toEqual(
      [],
    );
    const operationIds = new Set(writing.map((route) => route.operationId));
    expect(Object.keys(AUDITED_ROUTES).filter((operationId) => !operationIds.has(operationId))).toEqual([]);
  });
});

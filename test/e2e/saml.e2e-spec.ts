import { expectRefused, itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTeam, selfSignedCertificatePem, walkList } from '../support/org-admin-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('SAML providers and SSO', () => {
  let t: TestApp;
  let certificate: string;
  beforeAll(async () => {
    t = await createTestApp();
    certificate = await selfSignedCertificatePem();
  });
  afterAll(() => t.close());

  const saml = (org: OrgFixture) => `/v1/orgs/${org.id}/saml`;
  const provider = (org: OrgFixture, id: string) => `${saml(org)}/${id}`;
  const body = (overrides: Record<string, unknown> = {}) => ({
    label: 'Okta',
    entityID: 'http://www.okta.com/exk1',
    certificate,
    ssoURL: 'https://acme.okta.com/app/sso/saml',
    ...overrides,
  });
  const create = async (org: OrgFixture, overrides: Record<string, unknown> = {}) =>
    (
      await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body(overrides))
        .expect(201)
    ).body;

  describe('POST /v1/orgs/{organizationId}/saml', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.post(saml(org)).send(body()),
      anonymous: 401,
      outsider: 404,
      member: { role: 'create', status: 403 },
    });

    it('creates an active provider, with service URLs derived from PUBLIC_URL and its id', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org, { title: 'SSO people' });
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body({ defaultTeam: team.id, defaultRole: 'read' }))
        .expect(201);
      expectContract(res, 'createOrganizationSAMLProvider');
      const id = res.body.id;
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/saml/${id}`);
      expect(res.body).toEqual({
        object: 'saml-provider',
        id,
        label: 'Okta',
        ssoURL: 'https://acme.okta.com/app/sso/saml',
        entityID: 'http://www.okta.com/exk1',
        certificate,
        defaultTeam: expect.objectContaining({ object: 'team', id: team.id, title: 'SSO people', permissions: { admin: true, view: true } }),
        defaultRole: 'read',
        createdAt: expect.any(String),
        status: 'active',
        service: {
          acsURL: `http://quire.test/saml/${id}/acs`,
          startURL: `http://quire.test/saml/${id}/start`,
          entityID: `http://quire.test/saml/${id}`,
        },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/saml/${id}` },
      });
      const guests = await create(org);
      expect(guests.defaultRole).toBeNull();
      expect(guests).not.toHaveProperty('defaultTeam');
    });

    it('creates a pending provider from a label only (section 4.15); PATCH completes it and it becomes active', async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send({ label: 'Okta' })
        .expect(201);
      expectContract(res, 'createOrganizationSAMLProvider');
      const id = res.body.id;
      expect(res.body).toEqual({
        object: 'saml-provider',
        id,
        label: 'Okta',
        ssoURL: 'about:blank',
        entityID: '',
        certificate: '',
        defaultRole: null,
        createdAt: expect.any(String),
        status: 'pending',
        service: {
          acsURL: `http://quire.test/saml/${id}/acs`,
          startURL: `http://quire.test/saml/${id}/start`,
          entityID: `http://quire.test/saml/${id}`,
        },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/saml/${id}` },
      });
      // Nobody can sign in with it yet: the sign-in list leaves it out.
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}/sso`)
            .set(...reader.auth)
            .expect(200)
        ).body,
      ).toEqual({ items: [] });

      const partly = await t.http
        .patch(provider(org, id))
        .set(...org.admin.auth)
        .send({ entityID: 'http://www.okta.com/exk1', ssoURL: 'https://acme.okta.com/app/sso/saml' })
        .expect(200);
      expectContract(partly, 'updateOrganizationSAMLProvider');
      expect(partly.body).toMatchObject({ status: 'pending', entityID: 'http://www.okta.com/exk1', certificate: '' });
      const done = await t.http
        .patch(provider(org, id))
        .set(...org.admin.auth)
        .send({ certificate })
        .expect(200);
      expectContract(done, 'updateOrganizationSAMLProvider');
      expect(done.body).toMatchObject({ status: 'active', ssoURL: 'https://acme.okta.com/app/sso/saml', entityID: 'http://www.okta.com/exk1', certificate });
      expect(
        (
          await t.http
            .get(`/v1/orgs/${org.id}/sso`)
            .set(...reader.auth)
            .expect(200)
        ).body,
      ).toEqual({
        items: [{ id, label: 'Okta', startURL: `http://quire.test/saml/${id}/start` }],
      });
    });

    it.each([
      ['a null entityID', { entityID: null }, /entityID/],
      ['a null certificate', { certificate: null }, /certificate/],
      ['a null ssoURL', { ssoURL: null }, /ssoURL/],
      ['an empty entityID', { entityID: '' }, /entityID/],
    ])('with a label only, still refuses %s with 400', async (_case, extra, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send({ label: 'Okta', ...extra }),
        400,
        field,
      );
    });

    it('accepts the limits at their edge: label 30, entityID 1024, ssoURL 2048', async () => {
      const org = await createOrganization(t);
      const ssoURL = `https://idp.test/${'p'.repeat(2048 - 'https://idp.test/'.length)}`;
      const res = await t.http
        .post(saml(org))
        .set(...org.admin.auth)
        .send(body({ label: 'l'.repeat(30), entityID: 'e'.repeat(1024), ssoURL }))
        .expect(201);
      expect(res.body).toMatchObject({ label: 'l'.repeat(30), entityID: 'e'.repeat(1024), ssoURL });
    });

    it.each([
      ['a label of 31 characters', { label: 'l'.repeat(31) }, /label/],
      ['an empty label', { label: '' }, /label/],
      ['a missing label', { label: undefined }, /label/],
      ['an entityID of 1025 characters', { entityID: 'e'.repeat(1025) }, /entityID/],
      ['an ssoURL of 2049 characters', { ssoURL: `https://idp.test/${'p'.repeat(2049 - 'https://idp.test/'.length)}` }, /ssoURL/],
      ['an ssoURL that is not a URL', { ssoURL: 'idp.test/sso' }, /ssoURL/],
      ['an ssoURL that is not http(s)', { ssoURL: 'ftp://idp.test/sso' }, /ssoURL/],
      ['a certificate that is not PEM', { certificate: 'MIIBFjCBvaADAgECAgEBMAoGCCqGSM49BAMC' }, /certificate/],
      [
        'a PEM block that is not a certificate',
        { certificate: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n' },
        /certificate/,
      ],
      ['a certificate of 10001 characters', { certificate: 'c'.repeat(10001) }, /certificate/],
      ['an unknown default role', { defaultRole: 'owner' }, /defaultRole/],
      ['an unknown field', { issuer: 'x' }, /issuer/],
    ])('refuses %s with 400 naming the field', async (_case, overrides, field) => {
      const org = await createOrganization(t);
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body(overrides)),
        400,
        field,
      );
    });

    it("refuses a default team that is not one of the organization's with 400", async () => {
      const org = await createOrganization(t);
      const elsewhere = await createTeam(t, await createOrganization(t));
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body({ defaultTeam: elsewhere.id })),
        400,
        /defaultTeam/,
      );
      expectErrorEnvelope(
        await t.http
          .post(saml(org))
          .set(...org.admin.auth)
          .send(body({ defaultTeam: 'nope' })),
        400,
        /defaultTeam/,
      );
    });
  });

  describe('GET /v1/orgs/{organizationId}/saml', () => {
    itChecksAccess(() => t, {
      request: (org) => t.http.get(saml(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: 'read', status: 403 },
    });

    it('walks every provider once, with their default teams', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await create(org, { label: `IdP ${i}`, defaultTeam: i % 2 ? team.id : undefined })).id);
      await create(await createOrganization(t)); // another organization's
      const walk = await walkList(t, saml(org), org.admin, { limit: 2 }, (res) => {
        expectContract(res, 'listSAMLProvidersInOrganizationById');
        for (const item of res.body.items) expect(item.defaultTeam?.id).toBe(item.label.endsWith('1') || item.label.endsWith('3') ? team.id : undefined);
      });
      expect(walk).toEqual({ ids: created, pages: 3, count: 5 });
    });
  });

  describe('GET /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.get(provider(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: "answers 404 to a caller from another organization, and for another organization's provider",
        also: async (org, created) => {
          const other = await createOrganization(t);
          await expectRefused(() => t.http.get(provider(other, created.id)), [other.admin, 404]);
          const missing = await t.http.get(provider(org, 'nope')).set(...org.admin.auth);
          expectErrorEnvelope(missing, 404);
          expectContract(missing, 'getOrganizationSAMLProviderById');
        },
      },
      member: { role: 'create', status: 403 },
    });

    it('answers the provider', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      const res = await t.http
        .get(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getOrganizationSAMLProviderById');
      expect(res.body).toEqual(created);
    });
  });

  describe('PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    const rename = (org: OrgFixture, id: string) => t.http.patch(provider(org, id)).send({ label: 'New' });
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => rename(org, created.id),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown provider',
        also: (org) => expectRefused(() => rename(org, 'nope'), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('changes only the fields given, sets and clears the default team and role', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created = await create(org, { defaultRole: 'edit' });
      const newCertificate = await selfSignedCertificatePem('idp2.test');
      const res = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({ label: 'Renamed', certificate: newCertificate, defaultTeam: team.id })
        .expect(200);
      expectContract(res, 'updateOrganizationSAMLProvider');
      expect(res.body).toMatchObject({
        label: 'Renamed',
        certificate: newCertificate,
        defaultTeam: { id: team.id },
        defaultRole: 'edit',
        entityID: created.entityID,
      });
      const cleared = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({ defaultTeam: null, defaultRole: null })
        .expect(200);
      expect(cleared.body).not.toHaveProperty('defaultTeam');
      expect(cleared.body.defaultRole).toBeNull();
      const unchanged = await t.http
        .patch(provider(org, created.id))
        .set(...org.admin.auth)
        .send({})
        .expect(200);
      expect(unchanged.body.label).toBe('Renamed');
    });

    it.each([
      ['a bad certificate', { certificate: 'not a certificate' }, /certificate/],
      ['a null label', { label: null }, /label/],
      ['a null certificate', { certificate: null }, /certificate/],
      ['a label of 31 characters', { label: 'l'.repeat(31) }, /label/],
      ['an ssoURL that is not a URL', { ssoURL: 'nope' }, /ssoURL/],
      ['a default team of another organization', { defaultTeam: 'nope' }, /defaultTeam/],
    ])('refuses %s with 400, changing nothing', async (_case, change, field) => {
      const org = await createOrganization(t);
      const created = await create(org);
      expectErrorEnvelope(
        await t.http
          .patch(provider(org, created.id))
          .set(...org.admin.auth)
          .send(change),
        400,
        field,
      );
      expect((await t.http.get(provider(org, created.id)).set(...org.admin.auth)).body).toEqual(created);
    });

    it('loses its default team when the team is deleted', async () => {
      const org = await createOrganization(t);
      const team = await createTeam(t, org);
      const created = await create(org, { defaultTeam: team.id });
      await t.http
        .delete(`/v1/orgs/${org.id}/teams/${team.id}`)
        .set(...org.admin.auth)
        .expect(204);
      const res = await t.http
        .get(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(200);
      expect(res.body).not.toHaveProperty('defaultTeam');
    });
  });

  describe('DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
    itChecksAccess(() => t, {
      given: (org) => create(org),
      request: (org, created) => t.http.delete(provider(org, created.id)),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to a caller from another organization, and for an unknown provider',
        also: (org) => expectRefused(() => t.http.delete(provider(org, 'nope')), [org.admin, 404]),
      },
      member: { role: 'create', status: 403 },
    });

    it('deletes the provider', async () => {
      const org = await createOrganization(t);
      const created = await create(org);
      const res = await t.http
        .delete(provider(org, created.id))
        .set(...org.admin.auth)
        .expect(204);
      expect(res.text).toBe('');
      expectErrorEnvelope(await t.http.get(provider(org, created.id)).set(...org.admin.auth), 404);
    });
  });

  describe('GET /v1/orgs/{organizationId}/sso', () => {
    const sso = (org: OrgFixture) => `/v1/orgs/${org.id}/sso`;

    itChecksAccess(() => t, {
      request: (org) => t.http.get(sso(org)),
      anonymous: 401,
      outsider: 404,
      member: { role: null, status: 403 },
    });

    it("lists each provider's label and start URL to any member", async () => {
      const org = await createOrganization(t);
      const reader = await addMember(t, org, 'read');
      const empty = await t.http
        .get(sso(org))
        .set(...reader.auth)
        .expect(200);
      expect(empty.body).toEqual({ items: [] });
      const okta = await create(org, { label: 'Okta' });
      const azure = await create(org, { label: 'Azure AD' });
      const res = await t.http
        .get(sso(org))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'listSSOProviderLoginsInOrganization');
      expect(res.body).toEqual({
        items: [
          { id: okta.id, label: 'Okta', startURL: okta.service.startURL },
          { id: azure.id, label: 'Azure AD', startURL: azure.service.startURL },
        ],
      });
    });
  });
});

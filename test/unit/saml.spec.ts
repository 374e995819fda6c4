import { isPemCertificate } from '../../src/modules/saml/certificate';
import { canListSsoLogins, samlProviderPermissions } from '../../src/modules/saml/saml-provider.policy';
import { presentSsoLogin, serviceProviderUrls } from '../../src/modules/saml/saml-provider.presenter';
import { SamlProvider } from '../../src/modules/saml/saml-provider.entity';
import { loadConfig } from '../../src/config/app-config';
import { selfSignedCertificatePem } from '../support/org-admin-builders';

describe('isPemCertificate', () => {
  let pem: string;
  beforeAll(async () => (pem = await selfSignedCertificatePem()));

  it('accepts a PEM X.509 certificate, with surrounding white space and CRLF line ends', () => {
    expect(isPemCertificate(pem)).toBe(true);
    expect(isPemCertificate(`\n  ${pem.replace(/\n/g, '\r\n')}\n`)).toBe(true);
  });

  it('refuses what is not exactly one parseable certificate', () => {
    const body = pem.split('\n').slice(1, -1).join('\n');
    const lines = pem.trim().split('\n');
    const truncated = [...lines.slice(0, 2), ...lines.slice(3)].join('\n'); // a base64 line missing: the DER no longer parses
    for (const bad of [
      '',
      'hello',
      body, // bare base64: no PEM armour
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      pem.replace(/CERTIFICATE/g, 'PUBLIC KEY'),
      `garbage\n${pem}`,
      `${pem}\n${pem}`,
      truncated,
      42,
      null,
    ]) {
      expect({ bad, valid: isPemCertificate(bad) }).toEqual({ bad, valid: false });
    }
  });
});

describe('SAML provider policy', () => {
  it('keeps providers to admins and the login list to non-guests', () => {
    expect(samlProviderPermissions({ role: 'admin' })).toEqual({ view: true, manage: true });
    expect(samlProviderPermissions({ role: 'create' })).toEqual({ view: false, manage: false });
    expect(canListSsoLogins({ role: 'read' })).toBe(true);
    expect(canListSsoLogins({ role: null })).toBe(false);
  });
});

describe('service provider URLs', () => {
  it('derive from PUBLIC_URL and the provider id', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://docs.example.com/' });
    expect(serviceProviderUrls({ id: 'p1' }, config)).toEqual({
      acsURL: 'https://docs.example.com/saml/p1/acs',
      startURL: 'https://docs.example.com/saml/p1/start',
      entityID: 'https://docs.example.com/saml/p1',
    });
    const provider = Object.assign(new SamlProvider(), { id: 'p1', label: 'Okta' });
    expect(presentSsoLogin(provider, config)).toEqual({ id: 'p1', label: 'Okta', startURL: 'https://docs.example.com/saml/p1/start' });
  });
});

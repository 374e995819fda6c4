// Node's own X.509 parser (OpenSSL): loading a JavaScript ASN.1 library for this one check cost about
// a tenth of the server's start-up time.
import { X509Certificate } from 'node:crypto';
import { registerDecorator } from 'class-validator';

/** One PEM block of type CERTIFICATE, and nothing else but surrounding white space. */
const PEM_CERTIFICATE = /^\s*-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*$/;

/**
 * True when `text` is exactly one PEM-encoded X.509 certificate that parses (DER structure and
 * fields), as an identity provider's signing certificate must be. Bare base64 is refused: the PEM
 * armour is what tells a certificate from other key material.
 */
export function isPemCertificate(text: unknown): boolean {
  if (typeof text !== 'string' || !PEM_CERTIFICATE.test(text)) return false;
  try {
    // OpenSSL wants the armour at the start and LF line ends; the pattern above already allowed the rest.
    new X509Certificate(text.trim().replace(/\r\n/g, '\n'));
    return true;
  } catch {
    return false;
  }
}

export function IsPemCertificate() {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isPemCertificate',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => isPemCertificate(value),
        defaultMessage: () => 'must be a PEM-encoded X.509 certificate (-----BEGIN CERTIFICATE----- ...)',
      },
    });
}

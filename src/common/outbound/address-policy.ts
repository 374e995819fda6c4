import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Whether an outbound connection may go to `address` (an IP literal). Only globally routable
 * unicast addresses pass: loopback, private, link-local, carrier-grade NAT, multicast, reserved
 * and documentation ranges are refused, and so are IPv6 forms that embed an IPv4 address
 * (mapped, NAT64, 6to4, Teredo), which could smuggle a private IPv4 target past the check.
 */
export function isPublicAddress(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '');
  if (!isIP(literal)) return false;
  let parsed = ipaddr.parse(literal);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

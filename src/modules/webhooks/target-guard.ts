import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook must not reach unless ALLOW_PRIVATE_WEBHOOK_TARGETS is set: loopback,
 * private, link-local (cloud metadata), carrier-grade NAT, documentation, multicast and reserved
 * ranges. IPv4-mapped IPv6 addresses match the IPv4 rules (net.BlockList does that).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class PrivateTargetError extends Error {
  readonly code = 'ERR_WEBHOOK_PRIVATE_TARGET';
  constructor(host: string, address: string) {
    super(
      host === address
        ? `target ${address} is a private or loopback address`
        : `target ${host} resolves to the private or loopback address ${address}`,
    );
    this.name = 'PrivateTargetError';
  }
}

/** The hostname of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * A DNS lookup for sockets that refuses private answers. It runs when the connection is made,
 * so the address checked is the address connected to (no window for DNS rebinding).
 * Every answer is checked: one private address refuses the whole name.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (blocked) return callback(new PrivateTargetError(hostname, blocked.address) as NodeJS.ErrnoException, '', 0);
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Just enough IPv4/IPv6 arithmetic for prefixes, `parent` filters and available IPs (addresses as bigints). */

export type Family = 4 | 6;

export interface IpNetwork {
  family: Family;
  /** The network address (host bits cleared). */
  first: bigint;
  /** The last address in the network. */
  last: bigint;
  length: number;
}

const BITS: Readonly<Record<Family, number>> = { 4: 32, 6: 128 };

function parseV4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseV6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): string[] | undefined => {
    if (half === undefined || half === '') return [];
    const out: string[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i += 1) {
      const part = parts[i] ?? '';
      if (part.includes('.') && i === parts.length - 1) {
        const v4 = parseV4(part);
        if (v4 === undefined) return undefined;
        out.push(((v4 >> 16n) & 0xffffn).toString(16), (v4 & 0xffffn).toString(16));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) out.push(part);
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (const group of [...head, ...Array.from({ length: missing }, () => '0'), ...tail]) value = (value << 16n) | BigInt(`0x${group}`);
  return value;
}

/** An address (no mask): its family and value, or undefined when it is not one. */
export function parseIp(text: string): { family: Family; value: bigint } | undefined {
  const v4 = parseV4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = text.includes(':') ? parseV6(text) : undefined;
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** `10.1.2.0/24`, `10.1.2.7/24` (host bits cleared, as netaddr's `.cidr`) or a bare address (a host network). */
export function parseNetwork(text: string): IpNetwork | undefined {
  const [address = '', mask, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const ip = parseIp(address);
  if (ip === undefined) return undefined;
  const bits = BITS[ip.family];
  if (mask !== undefined && !/^\d{1,3}$/.test(mask)) return undefined;
  const length = mask === undefined ? bits : Number(mask);
  if (length > bits) return undefined;
  const hostBits = BigInt(bits - length);
  const first = (ip.value >> hostBits) << hostBits;
  return { family: ip.family, first, last: first + (1n << hostBits) - 1n, length };
}

export function formatIp(family: Family, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run (two or more) of zero groups becomes '::', the first such run on a tie.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]): string => list.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** `10.1.0.0/16` */
export const formatNetwork = (network: IpNetwork): string => `${formatIp(network.family, network.first)}/${network.length}`;

/** Whether `inner` lies inside `outer` (equal included). */
export const contains = (outer: IpNetwork, inner: IpNetwork): boolean =>
  outer.family === inner.family && outer.length <= inner.length && inner.first >= outer.first && inner.last <= outer.last;

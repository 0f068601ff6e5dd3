import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { createRng } from '../prng.js';
import { parseOptions } from '../argocd/options.js';
import { buildEstate } from './build.js';
import { STRUCTURAL_PREFIXES, planEstate } from './plan.js';
import type { NetBoxEstate } from './types.js';

export interface NetBoxEstateOptions {
  seed?: number;
  sites?: number;
  devices?: number;
  interfacesPerDevice?: number;
  vlans?: number;
  prefixes?: number;
}

/** A mid-sized estate: 12 sites, 600 devices (200 at ams1), 24,000 interfaces, 400 VLANs, 240 prefixes. */
export const NETBOX_ESTATE_DEFAULTS = { seed: 20251105, sites: 12, devices: 600, interfacesPerDevice: 40, vlans: 400, prefixes: 240 } as const;

const count = (min: number, max: number) =>
  z
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max.toLocaleString('en-US')}`);

export const NetBoxEstateOptionsSchema = z.strictObject({
  seed: count(0, 2 ** 32 - 1).default(NETBOX_ESTATE_DEFAULTS.seed),
  // Site n's addresses live in 10.n.0.0/16.
  sites: count(1, 250).default(NETBOX_ESTATE_DEFAULTS.sites),
  devices: count(0, 100_000).default(NETBOX_ESTATE_DEFAULTS.devices),
  interfacesPerDevice: count(0, 500).default(NETBOX_ESTATE_DEFAULTS.interfacesPerDevice),
  vlans: count(0, 500_000).default(NETBOX_ESTATE_DEFAULTS.vlans),
  prefixes: count(0, 100_000).default(NETBOX_ESTATE_DEFAULTS.prefixes),
});

const REMEDY = 'Ask for fewer objects or more sites.';

/**
 * A deterministic NetBox v4.1 estate: the same options give byte-identical JSON on every machine (seeded
 * mulberry32 streams, fixed timestamps; nothing reads the clock). Every model is sorted by id and every
 * cross-reference agrees: cables join real interfaces, interface_count and count_ipaddresses are true counts,
 * primary IPs are the devices' own, prefix children and depths follow from the addresses.
 */
export function generateNetBoxEstate(options: NetBoxEstateOptions = {}): NetBoxEstate {
  const o = parseOptions(NetBoxEstateOptionsSchema, options, 'NetBox estate options');
  if (o.devices * o.interfacesPerDevice > 5_000_000) {
    throw new FlotillaError('config_invalid', `Invalid NetBox estate options: devices * interfacesPerDevice must be at most 5,000,000 (got ${(o.devices * o.interfacesPerDevice).toLocaleString('en-US')})`, { remedy: REMEDY });
  }
  const globalVlans = o.vlans >= 50 ? 4 : 0;
  if (Math.ceil((o.vlans - globalVlans) / o.sites) > 3_880) {
    throw new FlotillaError('config_invalid', `Invalid NetBox estate options: vlans: at most 3,880 per site (${o.sites} sites hold ${(3_880 * o.sites + globalVlans).toLocaleString('en-US')})`, { remedy: REMEDY });
  }
  if (o.prefixes > STRUCTURAL_PREFIXES(o.sites) + 256 * o.sites) {
    throw new FlotillaError('config_invalid', `Invalid NetBox estate options: prefixes: at most ${STRUCTURAL_PREFIXES(o.sites) + 256 * o.sites} for ${o.sites} sites (256 /24s each)`, { remedy: REMEDY });
  }
  const rngFor = (stream: number) => createRng((o.seed ^ Math.imul(stream, 0x9e3779b1)) >>> 0);
  return buildEstate(rngFor, planEstate(rngFor, { sites: o.sites, devices: o.devices, interfacesPerDevice: o.interfacesPerDevice, vlans: o.vlans, prefixes: o.prefixes }));
}


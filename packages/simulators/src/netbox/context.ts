import type { RoleSlug } from './catalog.js';
import type { JsonObject } from './types.js';

export interface ContextSite {
  slug: string;
  name: string;
  index: number;
  timeZone: string;
  facility: string;
  region: string;
}

const BANNER = [
  '******************************************************************',
  '* Authorised access only. Activity on this device is logged and   *',
  '* monitored; disconnect now if you are not an authorised user.    *',
  '******************************************************************',
].join('\n');

function roleSection(role: RoleSlug, site: ContextSite): JsonObject {
  const asn = 65_000 + site.index;
  switch (role) {
    case 'switch':
      return {
        spanning_tree: { mode: 'mstp', priority: 32_768, bpduguard_default: true, edge_port_default: true },
        lldp: { enabled: true, timer: 30, holdtime: 120, tlvs: ['system-name', 'system-description', 'management-address', 'port-vlan'] },
        storm_control: { broadcast_pct: 1, multicast_pct: 5 },
        evpn: { enabled: true, asn, route_target_base: `${asn}:10000` },
      };
    case 'router':
      return {
        bgp: {
          asn,
          router_id_pool: `10.${site.index}.1.0/24`,
          peer_groups: [
            { name: 'TRANSIT', remote_as: 3356, max_prefixes: 1_000_000, import_policy: 'TRANSIT-IN', export_policy: 'TRANSIT-OUT' },
            { name: 'IBGP-RR', remote_as: asn, update_source: 'lo0', route_reflector_client: false },
          ],
          graceful_restart: true,
        },
        bfd: { interval_ms: 300, multiplier: 3 },
      };
    case 'firewall':
      return {
        zones: ['untrust', 'trust', 'dmz', 'pci-cde', 'mgmt'],
        log_forwarding: { profile: 'default-siem', panorama: ['10.0.0.40', '10.0.0.41'] },
        threat_prevention: { antivirus: 'default', vulnerability: 'strict', url_filtering: 'corp-default' },
      };
    case 'server':
      return {
        monitoring: { node_exporter_port: 9100, ipmi_exporter_port: 9290, scrape_interval_s: 30 },
        kernel: { sysctl: { 'net.core.somaxconn': 4096, 'vm.swappiness': 10 } },
        bond: { mode: '802.3ad', lacp_rate: 'fast', xmit_hash_policy: 'layer3+4' },
      };
    case 'pdu':
      return { outlets: { power_on_delay_s: 2, load_alarm_amps: 14 }, units: { temperature: 'celsius' } };
    case 'console-server':
      return { serial: { baud: 9600, data_bits: 8, parity: 'none', stop_bits: 1 }, cellular: { failover: true, apn: 'm2m.example' } };
  }
}

/**
 * The rendered config context of a device (NetBox merges every matching context by weight): the same for every
 * device of a role at a site, some 1.2-1.8 KB of JSON.
 */
export function configContext(site: ContextSite, role: RoleSlug): JsonObject {
  const net = `10.${site.index}`;
  return {
    banner: BANNER,
    dns: { servers: [`${net}.0.53`, '10.0.0.53'], search_domains: [`${site.slug}.example.net`, 'example.net'] },
    ntp: { servers: [`ntp1.${site.slug}.example.net`, `ntp2.${site.slug}.example.net`, '10.0.0.123'], timezone: site.timeZone, authentication: true },
    syslog: {
      servers: [
        { host: `${net}.0.10`, port: 514, protocol: 'udp', facility: 'local7' },
        { host: 'syslog.example.net', port: 6514, protocol: 'tls', facility: 'local7' },
      ],
      severity: 'informational',
    },
    snmp: {
      location: `${site.facility}, ${site.name}`,
      contact: 'netops@example.net',
      users: [{ name: 'librenms', auth: 'sha256', privacy: 'aes128', group: 'read-only' }],
      trap_receivers: [`${net}.0.20`, '10.0.0.20'],
    },
    aaa: { tacacs: { servers: ['10.0.0.49', '10.0.0.50'], timeout_s: 5, source: 'mgmt' }, local_fallback: true },
    site: { slug: site.slug, region: site.region, asn: 65_000 + site.index },
    [role.replace('-', '_')]: roleSection(role, site),
  };
}

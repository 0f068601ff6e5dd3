import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_VALUES_PATH, REPO_ROOT } from './generate.js';
import { VALUES_TABLE_END, VALUES_TABLE_START, renderValuesTable, valuesDocs, withValuesTable } from './values-doc.js';

const SAMPLE = `# A section header documents nothing.
# -- Replicas of the
# piece, continued.
replicas: 1
image:
  # -- Image tag | empty: <appVersion>.
  tag: ""
  undocumented: 2
agents:
  argocd:
    # -- Its port.
    port: 8092
    env:
      # -- A null rate.
      RATE: null
    list:
      - a: 1
        # Not documented.
        b: 2
  # -- After the list.
  netbox: {}
`;

describe('the values table', () => {
  it('documents every key with a "# --" comment, with its dotted path, type, default and the whole description', () => {
    expect(valuesDocs(SAMPLE)).toEqual([
      { key: 'replicas', type: 'int', defaultValue: '1', description: 'Replicas of the piece, continued.' },
      { key: 'image.tag', type: 'string', defaultValue: '""', description: 'Image tag | empty: <appVersion>.' },
      { key: 'agents.argocd.port', type: 'int', defaultValue: '8092', description: 'Its port.' },
      { key: 'agents.argocd.env.RATE', type: 'null', defaultValue: 'null', description: 'A null rate.' },
      { key: 'agents.netbox', type: 'object', defaultValue: '{}', description: 'After the list.' },
    ]);
  });

  it('escapes pipes, and angle brackets in descriptions, so every row keeps four cells', () => {
    const table = renderValuesTable(valuesDocs(SAMPLE)).split('\n');
    expect(table[0]).toBe('| Key | Type | Default | Description |');
    expect(table).toContain('| `image.tag` | string | `""` | Image tag \\| empty: &lt;appVersion&gt;. |');
  });

  it('replaces only what lies between the markers, and refuses a README without them', () => {
    const readme = `# Chart\n\nintro\n\n${VALUES_TABLE_START}\nold table\n${VALUES_TABLE_END}\n\nafter\n`;
    const once = withValuesTable(readme, '| new |');
    expect(once).toBe(`# Chart\n\nintro\n\n${VALUES_TABLE_START}\n\n| new |\n\n${VALUES_TABLE_END}\n\nafter\n`);
    expect(withValuesTable(once, '| new |')).toBe(once);
    expect(() => withValuesTable('# Chart\n', '| new |')).toThrow(/no values table markers/);
  });

  it('covers the chart: every domain agent value and every agentDefaults key is in the table', () => {
    const keys = valuesDocs(readFileSync(join(REPO_ROOT, CHART_VALUES_PATH), 'utf8')).map((d) => d.key);
    for (const key of ['agentDefaults.port', 'agentDefaults.envPrefix', 'agentDefaults.upstreamEnv', 'agentDefaults.mcp.enabled', 'agents.argocd.port', 'agents.netbox.upstreamEnv.FLOTILLA_NETBOX_RATE_LIMIT', 'agents.netbox.mcp.port', 'supervisor.env']) {
      expect(keys).toContain(key);
    }
  });
});

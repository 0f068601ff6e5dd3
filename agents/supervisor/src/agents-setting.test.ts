import { describe, expect, it } from 'vitest';
import { parseSettings } from '@flotilla/core';
import { AgentListSchema, SUPERVISOR_SETTINGS } from './start.js';

const SECRET = 'agent-secret-0123456789';

function refusal(agents: string): string {
  try {
    parseSettings(SUPERVISOR_SETTINGS, { agents }, {}, 'supervisor');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected --agents to be refused');
}

describe('--agents name=url,...', () => {
  it('takes name=url pairs, trailing slashes dropped', () => {
    expect(AgentListSchema.parse('argocd=http://127.0.0.1:8092/, netbox=https://netbox-agent.ops.svc:8094')).toEqual([
      { id: 'argocd', url: 'http://127.0.0.1:8092' },
      { id: 'netbox', url: 'https://netbox-agent.ops.svc:8094' },
    ]);
  });

  it('refuses credentials in a URL, naming the pair with them redacted and pointing at --agent-token', () => {
    for (const agents of [`argocd=http://127.0.0.1:8092,netbox=http://bot:${SECRET}@netbox:8094`, `netbox=http://${SECRET}@netbox:8094`]) {
      const message = refusal(agents);
      expect(message).toContain('--agents / FLOTILLA_AGENTS: "netbox=http://[redacted]@netbox:8094" carries credentials in its URL');
      expect(message).toContain('--agent-token');
      expect(message).not.toContain(SECRET);
    }
  });

  it('never echoes credentials in a malformed pair either', () => {
    const message = refusal(`netbox=ftp://bot:${SECRET}@netbox:8094`);
    expect(message).toContain('"netbox=ftp://[redacted]@netbox:8094" is not name=http(s)://host:port');
    expect(message).not.toContain(SECRET);
  });
});

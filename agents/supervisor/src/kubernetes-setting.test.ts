import { describe, expect, it } from 'vitest';
import { DISCOVERY_LABEL } from './discovery/kubernetes.js';
import { SUPERVISOR_SETTINGS } from './start.js';

describe('--kubernetes', () => {
  // The help spells the label out rather than import it (which would load the Kubernetes client in every supervisor).
  it('names the label discovery selects by', () => {
    expect(SUPERVISOR_SETTINGS.kubernetes.help).toContain(`labelled ${DISCOVERY_LABEL} `);
  });
});

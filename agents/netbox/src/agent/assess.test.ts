import { describe, expect, it } from 'vitest';
import type { CallTool, Classification } from '@flotilla/agent-kit';
import type { RateState } from '@flotilla/limitations';
import { MAX_RATE_WAIT_MS } from './assess.js';
import { createNetBoxDomain } from './domain.js';
import type { NetBoxIntent } from './intents.js';

const listSites: Classification<NetBoxIntent> = { intent: 'list_sites', entities: {}, confidence: 1, complexity: 'simple', alternatives: [] };

/** count_netbox_objects answering 10 of anything: one list call planned, nothing else to detect. */
const counts: CallTool = (call) => Promise.resolve({ call, isError: false, body: { count: 10 } });

/** A drained shared limiter that lets the one planned call through after `waitMs`. */
const drained = (waitMs: number): RateState => ({ available: 0, ratePerSecond: 1000 / waitMs });

async function assess(rate: RateState, maxWaitMs?: number) {
  const domain = createNetBoxDomain({ rate: () => rate, ...(maxWaitMs === undefined ? {} : { maxWaitMs }) });
  const plan = domain.plan(listSites, undefined);
  if (domain.assess === undefined) throw new Error('the NetBox domain assesses its plans');
  return domain.assess({ classification: listSites, plan, memory: undefined, contextId: 'c', callTool: counts });
}

describe('how long a question may wait for the rate limiter', () => {
  it(`waits up to MAX_RATE_WAIT_MS (${MAX_RATE_WAIT_MS} ms) by default, and falls back past it without reading`, async () => {
    const within = await assess(drained(MAX_RATE_WAIT_MS));
    expect(within.limitations).toEqual([expect.objectContaining({ kind: 'rate_limit_pressure', estimatedWaitMs: MAX_RATE_WAIT_MS })]);
    expect(within.handling?.fetch).toBe('exact');
    expect(within.plan).toHaveLength(1);

    const past = await assess(drained(MAX_RATE_WAIT_MS + 1));
    expect(past.limitations).toEqual([expect.objectContaining({ kind: 'rate_limit_pressure', estimatedWaitMs: MAX_RATE_WAIT_MS + 1 })]);
    expect(past.handling).toMatchObject({ fetch: 'none', strategies: ['fallback'] });
    expect(past.plan).toEqual([]);
  });

  it('takes another limit from maxWaitMs', async () => {
    expect((await assess(drained(MAX_RATE_WAIT_MS + 1), MAX_RATE_WAIT_MS + 1)).handling?.fetch).toBe('exact');
    expect((await assess(drained(1_001), 1_000)).handling?.fetch).toBe('none');
  });
});

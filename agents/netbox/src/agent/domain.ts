// The NetBox domain of the agent workflow, put together from its parts: `plan.ts` (which tool calls answer a
// question), `assess.ts` (count probes and the limitations they reveal) and `present.ts` (the answer).
import type { AgentDomain } from '@flotilla/agent-kit';
import type { ProgressiveSession } from '@flotilla/limitations';
import { createAssess, type AssessOptions } from './assess.js';
import type { NetBoxIntent } from './intents.js';
import { followUp, planFor } from './plan.js';
import { createRespond } from './present.js';

export { ITEM_TOKENS } from './assess.js';
export { PRESENTATION } from './present.js';

export interface NetBoxDomainOptions extends AssessOptions {
  readonly now?: () => number;
}

/** The NetBox domain: plans, detection before execution, follow-ups and presentation rules. */
export function createNetBoxDomain(options: NetBoxDomainOptions = {}): AgentDomain<NetBoxIntent, ProgressiveSession> {
  return {
    // Named in the answer when asked for and not applied by the tool calls made.
    filterEntities: ['site', 'role', 'status', 'tag', 'state', 'prefix', 'vid', 'device', 'group_by', 'region'],
    plan: planFor,
    assess: createAssess(options),
    followUp,
    respond: createRespond({ now: options.now ?? Date.now, plan: planFor }),
  };
}

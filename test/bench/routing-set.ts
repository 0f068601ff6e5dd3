/** Where hybrid mode should send a question: the rules alone (`fast`, no model call) or the model. */
export type ExpectedRoute = 'fast' | 'model';

export interface RoutingCase {
  readonly agent: 'argocd' | 'netbox';
  readonly question: string;
  readonly route: ExpectedRoute;
  /** Why that route: what a person would say of the question. */
  readonly why: string;
  /** A follow-up's question before it, in the same conversation (the bench asks it first, uncounted). */
  readonly after?: string;
}

const fast = (agent: RoutingCase['agent'], question: string, why: string): RoutingCase => ({ agent, question, route: 'fast', why });
const model = (agent: RoutingCase['agent'], question: string, why: string): RoutingCase => ({ agent, question, route: 'model', why });
const followUp = (agent: RoutingCase['agent'], question: string, after: string): RoutingCase => ({ agent, question, route: 'fast', why: `follow-up of "${after}"`, after });

/**
 * Issue 21's labelled routing set: questions to both domain agents, each with the route hybrid mode should take. The
 * rules answer what their plans execute completely (flagship lists, one application or device, NetBox's batched
 * interfaces of a whole site, follow-ups); the model gets what needs reasoning (why, compare, plan, worst, should,
 * risk…) and what the rules could not read (words left unused, no intent). Labelled by what the question asks, not
 * by what the router does: `test/bench/routing.test.ts` asks it of both agents in hybrid mode and expects 100% of
 * it (the route each answer's metadata states), the hybrid bench reports the accuracy.
 */
export const ROUTING_SET: readonly RoutingCase[] = [
  // Argo CD: what the rules answer completely.
  fast('argocd', 'which apps are out of sync in prod?', 'a filtered list'),
  fast('argocd', 'status of payments-api-prod', 'one application'),
  fast('argocd', 'show the payments-api-prod application', 'one application, named with the singular noun (issue 21)'),
  fast('argocd', "the payments-api-prod app's status", 'a possessive is its word: "app\'s" is understood (issue 21)'),
  fast('argocd', 'show application identity-auth-prod', 'one application'),
  fast('argocd', 'details of search-indexer-prod', 'one application'),
  fast('argocd', 'the ledger-gateway-prod app', 'one application'),
  fast('argocd', 'apps on cluster prod-eu-1', 'a filtered list'),
  fast('argocd', 'degraded apps in staging', 'a filtered list'),
  fast('argocd', 'how many apps are out of sync?', 'a count'),
  fast('argocd', 'apps owned by team payments', 'a filtered list'),
  fast('argocd', 'list clusters', 'inventory'),
  fast('argocd', 'list all projects', 'inventory'),
  fast('argocd', 'list the application sets', 'inventory'),
  fast('argocd', 'what needs my attention?', 'the attention plan (complex) is executed by the rules to the end'),
  fast('argocd', 'find ledger', 'search'),
  fast('argocd', 'search for checkout', 'search'),
  followUp('argocd', 'next page', 'which apps are out of sync in prod?'),
  followUp('argocd', 'only the degraded ones', 'apps in prod'),
  followUp('argocd', 'page 3', 'list all applications'),
  followUp('argocd', 'next batch please', 'list all applications'),
  followUp('argocd', 'show me the rest', 'which apps are out of sync?'),
  fast('argocd', 'what can you do?', 'help'),
  fast('argocd', 'which apps were synced in the last hour?', 'a time window the list can measure'),
  fast('argocd', 'apps with label tier=frontend', 'a label selector'),
  fast('argocd', 'apps not in prod', 'an exclusion the rules read'),
  fast('argocd', 'how many apps per cluster', 'counts by cluster'),
  fast('argocd', 'which apps in the payments-prod project are out of sync?', 'a filtered list'),
  // Argo CD: reasoning, or words the rules could not read.
  model('argocd', 'which team has the worst deployment hygiene, and why?', 'a judgement and its cause (issue 21)'),
  model('argocd', "compare the payments team's apps with the search team's", 'a comparison (issue 21)'),
  model('argocd', 'why is payments-api-prod degraded?', 'a cause'),
  model('argocd', 'list degraded apps and tell me what to do about them', 'a list, then a remedy the rules never give: answering the list alone drops half the question'),
  model('argocd', "what should I worry about in the payments team's apps?", 'a judgement'),
  model('argocd', 'prioritise the broken stuff for the on-call engineer', 'a priority order'),
  model('argocd', 'payments apps versus search apps', 'a comparison'),
  model('argocd', 'is it safe to deploy checkout today?', 'a risk judgement'),
  model('argocd', 'can you walk me through the riskiest deployments this week', 'a risk judgement'),
  model('argocd', 'explain what our gitops setup looks like', 'an explanation'),
  model('argocd', 'how come identity-auth-prod is out of sync?', 'a cause'),
  model('argocd', 'what is the root cause of the sync failures in prod?', 'a cause'),
  model('argocd', 'recommend which apps to move to auto-sync', 'a recommendation'),
  model('argocd', 'apps with foo bar', 'words the rules cannot read'),
  model('argocd', 'which app costs the most', 'words the rules cannot read (cost, most)'),
  model('argocd', 'anything weird going on with identity lately?', 'vague: no intent'),
  model('argocd', 'how are things looking overall?', 'vague: no intent'),
  model('argocd', 'summarise the health of the estate', 'words the rules cannot read (estate)'),
  model('argocd', 'which apps went out of sync in the last hour', 'a window Argo CD cannot measure (went)'),
  model('argocd', 'what is the weather in Amsterdam', 'not Argo CD: no intent'),
  // NetBox: what the rules answer completely, the flagship limitation-aware plans included.
  fast('netbox', 'interfaces of every switch in ams1', 'the flagship: batched, exact, limitation-aware (complex)'),
  fast('netbox', 'interfaces of all devices at ams1', 'batched interfaces of a site (complex)'),
  fast('netbox', 'just a quick look at the interfaces of every device in ams1', 'a representative sample (complex)'),
  fast('netbox', 'show device ams1-sw-001', 'one device with its interfaces and addresses (complex)'),
  fast('netbox', 'devices in ams1', 'a filtered list'),
  fast('netbox', 'which switches are offline in fra1?', 'a filtered list'),
  fast('netbox', 'firewalls in nyc1', 'a filtered list'),
  fast('netbox', 'vlans of lon1', 'IPAM'),
  fast('netbox', 'prefixes in ams1', 'IPAM'),
  fast('netbox', 'free ips in 10.1.0.0/24', 'IPAM'),
  fast('netbox', 'used ips in 10.1.38.0/24', 'IPAM'),
  fast('netbox', 'cables of ams2', 'cables of a site'),
  fast('netbox', 'interfaces of ams1-rtr-01', 'interfaces of one device'),
  fast('netbox', 'list sites', 'inventory'),
  fast('netbox', 'find core', 'search'),
  fast('netbox', 'devices tagged pci', 'a filtered list'),
  followUp('netbox', 'next batch', 'interfaces of every switch in ams1'),
  followUp('netbox', 'only the uncabled ones', 'interfaces of every switch in ams1'),
  followUp('netbox', 'summary instead', 'interfaces of every switch in ams1'),
  followUp('netbox', 'the rest of them', 'devices in ams1'),
  fast('netbox', 'help', 'help'),
  fast('netbox', 'routers in lon1', 'a filtered list'),
  fast('netbox', 'reboot ams1-sw-001', 'a request to act: said read-only, with how to do it in NetBox, by the typed reading (issue 31)'),
  // NetBox: reasoning, or words the rules could not read.
  model('netbox', 'plan a maintenance window for the routers in lon1', 'a plan (issue 21)'),
  model('netbox', 'compare the switches in ams1 with those in fra1', 'a comparison'),
  model('netbox', 'how do I fix the offline devices in ams1?', 'a remedy'),
  model('netbox', 'why are so many devices offline in fra1?', 'a cause'),
  model('netbox', 'which site is at the highest risk of running out of address space?', 'a risk judgement'),
  model('netbox', 'should we add another router to lon1?', 'a recommendation'),
  model('netbox', 'explain how the sites are wired together', 'an explanation'),
  model('netbox', 'what is the best site for the next rack of servers?', 'a judgement'),
  model('netbox', 'how healthy is our network in europe?', 'words the rules cannot read (healthy)'),
  model('netbox', 'are our vlan assignments consistent between sites?', 'words the rules cannot read'),
  model('netbox', 'what would break if ams1-rtr-01 went down?', 'an impact'),
  model('netbox', 'assess the cabling in ams2', 'an assessment'),
];

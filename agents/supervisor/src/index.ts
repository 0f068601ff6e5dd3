export { staticAgentSource, type AgentEndpoint, type AgentSource, type EndpointChange } from './discovery/types.js';
// Discovery from Kubernetes is `@flotilla/agent-supervisor/kubernetes`: its client is loaded only by a supervisor that discovers.
export { AgentRegistry, REGISTRY_LIMITS, boundedFetch, clientFactory, foreignInterfaces, unreachableReason, CardError, type RegisteredAgent, type SkillView, type AgentCredentials, type RegistryOptions } from './registry.js';
export { route, words, vocabulary, score, typedReading, READ_WEIGHTS, clauses, isFollowUp, ROUTING, type RoutingDecision, type RoutableAgent } from './routing.js';
export { delegate, type DelegationRequest, type DelegationResult } from './delegate.js';
export { Supervisor, SUPERVISOR_LIMITS, redisConversations, type SupervisorOptions, type SupervisorAnswer, type SupervisorOutcome } from './supervisor.js';
export { startSupervisor, SUPERVISOR_SETTINGS, SUPERVISOR_CARD, AgentListSchema, type SupervisorConfig, type RunningSupervisor } from './start.js';

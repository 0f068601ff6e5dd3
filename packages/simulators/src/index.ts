export { createRng, type Rng } from './prng.js';
export { REAL_CLOCK, type SimulatorClock } from './clock.js';
export { generateArgoEstate, estateEpoch, ARGO_ESTATE_DEFAULTS, ArgoEstateOptionsSchema, type ArgoEstateOptions } from './argocd/data.js';
export { ARGO_ESTATE_EPOCH } from './argocd/words.js';
export { TREE_LIMITS } from './argocd/live.js';
export { LOG_LIMITS } from './argocd/logs.js';
export { EVENTS_PER_OBJECT_MAX } from './argocd/events.js';
export { sanitizeCluster } from './argocd/clusters.js';
export type {
  ArgoEstate,
  ArgoApplication,
  ArgoApplicationSpec,
  ArgoApplicationStatus,
  ArgoProject,
  ArgoApplicationSet,
  ArgoCluster,
  ArgoSource,
  ArgoDestination,
  ObjectMeta,
  ManagedFieldsEntry,
  ResourceStatus,
} from './argocd/types.js';
export {
  APPLICATION_FIELD_WHITELIST,
  parseFields,
  projectFields,
  projectJsonFields,
  selectedFields,
  type ApplicationField,
  type FieldSelection,
} from './argocd/fields.js';
export { parseLabelSelector, SelectorError } from './argocd/selector.js';
export { GrpcCode, GrpcError, goJson } from './argocd/grpc.js';
export {
  createArgoCdApp,
  startArgoCdSimulator,
  type ArgoCdSimulatorOptions,
  type ArgoFaults,
  type ArgoLogOptions,
  type RunningSimulator,
  type SimulatorStats,
} from './argocd/server.js';
export {
  generateNetBoxEstate,
  NETBOX_ESTATE_DEFAULTS,
  NetBoxEstateOptionsSchema,
  type NetBoxEstateOptions,
} from './netbox/data.js';
export { NETBOX_ESTATE_ORIGIN } from './netbox/catalog.js';
export type {
  NetBoxEstate,
  NetBoxSite,
  NetBoxRack,
  NetBoxDevice,
  NetBoxInterface,
  NetBoxCable,
  NetBoxModule,
  NetBoxVlan,
  NetBoxPrefix,
  NetBoxIpAddress,
  NetBoxTermination,
  NetBoxChoice,
  NetBoxRef,
  NetBoxNamedRef,
  NetBoxRegionRef,
  NetBoxTagRef,
  NetBoxDeviceRef,
  NetBoxRackRef,
  NetBoxDeviceTypeRef,
  NetBoxCableRef,
  NetBoxInterfaceRef,
  NetBoxVlanRef,
  NetBoxIpAddressRef,
  NetBoxModuleBayRef,
  NetBoxModuleTypeRef,
} from './netbox/types.js';
export {
  createNetBoxApp,
  startNetBoxSimulator,
  type NetBoxSimulatorOptions,
  type NetBoxFaults,
  type NetBoxRateLimit,
  type NetBoxSimulatorStats,
  type RunningNetBoxSimulator,
} from './netbox/server.js';
export {
  defaultScript,
  type ChatScript,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptInput,
  type ScriptMessage,
  type ScriptTool,
} from './llm/script.js';
export { countPromptTokens, countReplyTokens, TOKENS_PER_MESSAGE } from './llm/tokens.js';
export { LLM_SIM_LIMITS, type FakeLlmOptions, type LlmFaults } from './llm/options.js';
export type { RecordedLlmRequest, RunningFakeLlm } from './llm/server.js';
export { startFakeOpenAi } from './llm/openai.js';
export { startFakeAnthropic } from './llm/anthropic.js';
export {
  startKubernetesSimulator,
  KUBERNETES_SIM_LIMITS,
  type KubeService,
  type KubeConfigOptions,
  type KubernetesSimulatorOptions,
  type RunningKubernetesSimulator,
  type RecordedRequest as RecordedKubernetesRequest,
} from './kubernetes/server.js';

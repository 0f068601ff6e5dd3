export { createRng, type Rng } from './prng.js';
export { generateArgoEstate, ARGO_ESTATE_DEFAULTS, ArgoEstateOptionsSchema, type ArgoEstateOptions } from './argocd/data.js';
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
  type RunningSimulator,
  type SimulatorStats,
} from './argocd/server.js';

export { createRng, type Rng } from './prng.js';
export {
  generateArgoEstate,
  ARGO_ESTATE_DEFAULTS,
  type ArgoEstate,
  type ArgoEstateOptions,
  type ArgoApplication,
  type ArgoProject,
  type ArgoApplicationSet,
  type ArgoCluster,
  type ArgoSource,
} from './argocd/estate.js';
export { APPLICATION_FIELD_WHITELIST, projectFields, selectedFields } from './argocd/fields.js';
export { parseLabelSelector, SelectorError } from './argocd/selector.js';
export {
  createArgoCdApp,
  startArgoCdSimulator,
  type ArgoCdSimulatorOptions,
  type ArgoFaults,
  type RunningSimulator,
  type SimulatorStats,
} from './argocd/server.js';

/**
 * Argo CD objects in their JSON wire shape (argoproj.io/v1alpha1 as the API server marshals it with Go's
 * encoding/json). Typed as far as the simulator and its callers read them; every object the generator builds
 * carries its keys in the Go struct's field order, so serialised bytes look like Argo CD's.
 */
export type StringMap = Record<string, string>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** One entry of `metadata.managedFields` (server-side apply's record of which manager owns which fields). */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  generation?: number;
  creationTimestamp: string;
  deletionTimestamp?: string;
  labels?: StringMap;
  annotations?: StringMap;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  /** Only with `ArgoEstateOptions.managedFields`. */
  managedFields?: ManagedFieldsEntry[];
}

export interface HelmParameter {
  name: string;
  value: string;
  forceString?: boolean;
}

export interface ArgoSource {
  repoURL: string;
  path?: string;
  targetRevision?: string;
  helm?: {
    valueFiles?: string[];
    parameters?: HelmParameter[];
    releaseName?: string;
    values?: string;
    ignoreMissingValueFiles?: boolean;
  };
  kustomize?: { namePrefix?: string; images?: string[]; commonLabels?: StringMap };
  directory?: { recurse?: boolean; jsonnet: Record<string, unknown>; exclude?: string };
  chart?: string;
  ref?: string;
}

export interface ArgoDestination {
  server?: string;
  namespace?: string;
  name?: string;
}

export interface SyncPolicy {
  automated?: { prune?: boolean; selfHeal?: boolean; allowEmpty?: boolean };
  syncOptions?: string[];
  retry?: { limit: number; backoff?: { duration: string; factor: number; maxDuration: string } };
}

export interface ArgoApplicationSpec {
  source?: ArgoSource;
  destination: ArgoDestination;
  project: string;
  syncPolicy?: SyncPolicy;
  ignoreDifferences?: { group?: string; kind: string; name?: string; jsonPointers?: string[] }[];
  info?: { name: string; value: string }[];
  revisionHistoryLimit?: number;
  sources?: ArgoSource[];
}

export interface ResourceStatus {
  group?: string;
  version?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  status?: string;
  health?: { status: string; message?: string };
  hook?: boolean;
  requiresPruning?: boolean;
  syncWave?: number;
}

export interface ResourceResult {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status?: string;
  message?: string;
  hookPhase?: string;
  syncPhase?: string;
}

export interface OperationInitiator {
  username?: string;
  automated?: boolean;
}

export interface SyncOperation {
  revision?: string;
  prune?: boolean;
  syncStrategy?: Record<string, unknown>;
  syncOptions?: string[];
  revisions?: string[];
}

export interface Operation {
  sync?: SyncOperation;
  initiatedBy?: OperationInitiator;
  retry?: { limit: number };
}

export interface SyncOperationResult {
  resources?: ResourceResult[];
  revision: string;
  source: ArgoSource;
  sources?: ArgoSource[];
  revisions?: string[];
}

export interface OperationState {
  operation: Operation;
  phase: string;
  message?: string;
  syncResult?: SyncOperationResult;
  startedAt: string;
  finishedAt?: string;
  retryCount?: number;
}

export interface RevisionHistory {
  revision?: string;
  deployedAt: string;
  id: number;
  source: ArgoSource;
  deployStartedAt?: string;
  sources?: ArgoSource[];
  revisions?: string[];
  initiatedBy: OperationInitiator;
}

export interface ArgoApplicationStatus {
  resources?: ResourceStatus[];
  sync: {
    status: string;
    comparedTo: { source: ArgoSource; destination: ArgoDestination; sources?: ArgoSource[] };
    revision?: string;
    revisions?: string[];
  };
  health: { status: string; message?: string; lastTransitionTime?: string };
  history?: RevisionHistory[];
  conditions?: { type: string; message: string; lastTransitionTime?: string }[];
  reconciledAt?: string;
  operationState?: OperationState;
  sourceType?: string;
  summary: { externalURLs?: string[]; images?: string[] };
  resourceHealthSource?: string;
  sourceTypes?: string[];
  controllerNamespace?: string;
  sourceHydrator: Record<string, unknown>;
}

export interface ArgoApplication {
  metadata: ObjectMeta;
  spec: ArgoApplicationSpec;
  status: ArgoApplicationStatus;
  /** Set while an operation (a sync) has been requested and not yet finished. */
  operation?: Operation;
}

export interface ProjectRole {
  name: string;
  description?: string;
  policies?: string[];
  jwtTokens?: { iat: number; exp?: number; id?: string }[];
  groups?: string[];
}

export interface ArgoProject {
  metadata: ObjectMeta;
  spec: {
    sourceRepos?: string[];
    destinations?: ArgoDestination[];
    description?: string;
    roles?: ProjectRole[];
    clusterResourceWhitelist?: { group: string; kind: string }[];
    namespaceResourceBlacklist?: { group: string; kind: string }[];
    orphanedResources?: { warn?: boolean };
    syncWindows?: {
      kind: string;
      schedule: string;
      duration: string;
      applications?: string[];
      manualSync?: boolean;
      timeZone?: string;
    }[];
    sourceNamespaces?: string[];
  };
  status: { jwtTokensByRole?: Record<string, { items: { iat: number; exp?: number; id?: string }[] }> };
}

export interface ApplicationSetCondition {
  type: string;
  message: string;
  lastTransitionTime: string;
  status: string;
  reason: string;
}

export interface ArgoApplicationSet {
  metadata: ObjectMeta;
  spec: {
    goTemplate?: boolean;
    generators: Record<string, unknown>[];
    template: {
      metadata: { name: string; namespace?: string; labels?: StringMap; annotations?: StringMap; finalizers?: string[] };
      spec: ArgoApplicationSpec;
    };
    syncPolicy?: { preserveResourcesOnDeletion?: boolean; applicationsSync?: string };
    goTemplateOptions?: string[];
  };
  status: { conditions?: ApplicationSetCondition[]; resources?: ResourceStatus[] };
}

export interface ConnectionState {
  status: string;
  message: string;
  attemptedAt: string | null;
}

export interface ArgoCluster {
  server: string;
  name: string;
  config: {
    tlsClientConfig: { insecure: boolean; serverName?: string; caData?: string };
    awsAuthConfig?: { clusterName: string; roleARN?: string };
    execProviderConfig?: { command: string; env: StringMap; apiVersion: string; installHint?: string };
    disableCompression?: boolean;
    proxyUrl?: string;
  };
  connectionState: ConnectionState;
  serverVersion?: string;
  info: {
    connectionState: ConnectionState;
    serverVersion?: string;
    cacheInfo: { resourcesCount?: number; apisCount?: number; lastCacheSyncTime?: string };
    applicationsCount: number;
    apiVersions?: string[];
  };
  labels?: StringMap;
  annotations?: StringMap;
}

export interface ArgoEstate {
  applications: ArgoApplication[];
  projects: ArgoProject[];
  applicationSets: ArgoApplicationSet[];
  clusters: ArgoCluster[];
}

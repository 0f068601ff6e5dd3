import type { DomainDecl, EntityDecl, Where } from '@flotilla/query';

/**
 * The Argo CD domain, declared once: its entities, their fields (type, words, how each is executed) and the actions
 * a read-only agent is asked for. The agent's parser, the `query` tool's schema and its planner read this.
 */

const UNHEALTHY: Where = { op: 'not', of: { op: 'eq', field: 'health', value: 'Healthy' } };
const FAILED: Where = { op: 'in', field: 'operation', values: ['Failed', 'Error'] };

export const APPLICATIONS: EntityDecl = {
  name: 'applications',
  singular: 'application',
  plural: 'applications',
  words: ['apps', 'app', 'applications', 'application', 'argo apps', 'argocd apps', 'argo cd apps', 'argo applications', 'deployments', 'workloads', 'services', 'argo app'],
  nameField: 'name',
  rowFields: ['name', 'project', 'sync', 'health', 'cluster', 'namespace'],
  phrases: [
    { words: ['unhealthy', 'un-healthy', 'not healthy', 'broken', 'failing', 'in trouble', 'in bad health', 'in poor health', 'erroring', 'bad', 'problematic', 'sick'], where: UNHEALTHY },
    { words: ['failed', 'failed sync', 'failed syncs', 'sync failed', 'failed to sync', 'failing to sync', 'failing sync', 'sync failures', 'sync error', 'sync errors', 'last sync failed', 'fail', 'fails', 'sync fail', 'syncs fail', 'syncs failed', 'failures', 'failure'], where: FAILED },
    { words: ['not synced', 'unsynced', 'non-synced', 'not in sync'], where: { op: 'not', of: { op: 'eq', field: 'sync', value: 'Synced' } } },
  ],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'app name', 'application name'], live: true, exec: 'tool', rank: 0 },
    { name: 'project', label: 'project', type: 'name', words: ['project', 'projects', 'proj', 'argo project', 'appproject'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 3 },
    {
      name: 'cluster',
      label: 'cluster',
      type: 'name',
      words: ['cluster', 'clusters', 'destination cluster', 'destination clusters', 'destination', 'destinations', 'dest', 'target cluster', 'k8s cluster', 'kubernetes cluster', 'server', 'cluster url', 'destination server', 'deploy to', 'deploys to', 'deploying to', 'deploy into', 'deploys into'],
      live: true,
      exec: 'tool',
      groupable: true,
      projection: true,
      rank: 5,
      pattern: /^https?:\/\/(?!.*\.git$)(?!git)/,
    },
    { name: 'namespace', label: 'namespace', type: 'name', words: ['namespace', 'namespaces', 'ns', 'target namespace', 'destination namespace', 'k8s namespace'], live: true, exec: 'tool', groupable: true, projection: true, rank: 1 },
    { name: 'app_namespace', label: 'application namespace', type: 'name', words: ['app namespace', 'application namespace', 'app namespaces', 'application namespaces', 'control plane namespace'], live: true, exec: 'tool', groupable: true, projection: true, rank: 0 },
    {
      name: 'health',
      label: 'health',
      type: 'enum',
      words: ['health', 'health status', 'health state', 'healthiness', 'health statuses'],
      values: [
        { value: 'Healthy', words: ['healthy', 'ok', 'okay', 'fine', 'good', 'green', 'all good'] },
        { value: 'Progressing', words: ['progressing', 'rolling out', 'in progress', 'updating'] },
        { value: 'Degraded', words: ['degraded', 'degrading', 'red'] },
        { value: 'Suspended', words: ['suspended', 'paused'] },
        { value: 'Missing', words: ['missing'] },
        { value: 'Unknown', words: ['unknown health', 'health unknown'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
      rank: 6,
    },
    {
      name: 'sync',
      label: 'sync status',
      type: 'enum',
      words: ['sync status', 'sync state', 'sync statuses', 'synchronization', 'synchronisation', 'sync'],
      values: [
        { value: 'Synced', words: ['synced', 'in sync', 'in-sync', 'up to date', 'up-to-date', 'synchronized', 'synchronised'] },
        { value: 'OutOfSync', words: ['out of sync', 'outofsync', 'oos', 'drifted', 'drifting', 'drift', 'not up to date', 'out-of-date', 'out of date', 'stale'] },
        { value: 'Unknown', words: ['sync unknown', 'unknown sync', 'unknown sync status'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
      rank: 6,
    },
    { name: 'repo', label: 'source repository', type: 'name', words: ['repo', 'repos', 'repository', 'repositories', 'source repo', 'source repos', 'git repo', 'git repos', 'source', 'sources', 'repo url', 'repository url', 'git url', 'source repository', 'helm repo', 'chart repo'], live: true, exec: 'tool', groupable: true, projection: true, multi: true, rank: 1, pattern: /(?:\.git$|^git@|^https?:\/\/(?:git|github|gitlab|bitbucket|charts?)\.)/ },
    { name: 'revision', label: 'target revision', type: 'text', words: ['revision', 'revisions', 'target revision', 'version', 'versions', 'tag', 'branch', 'chart version', 'git revision'], exec: 'tool', groupable: true, projection: true, multi: true },
    { name: 'sync_revision', label: 'synced revision', type: 'text', words: ['synced revision', 'deployed revision', 'commit', 'sha', 'current revision', 'live revision'], exec: 'tool', projection: true, multi: true },
    { name: 'path', label: 'path or chart', type: 'text', words: ['path', 'chart', 'helm chart', 'charts', 'paths'], exec: 'tool', groupable: true, projection: true, multi: true },
    {
      name: 'auto_sync',
      label: 'auto-sync',
      type: 'bool',
      words: ['sync policy', 'automation', 'auto sync setting', 'auto-sync setting'],
      values: [
        { value: 'true', words: ['auto sync', 'auto-sync', 'autosync', 'automated sync', 'automatic sync', 'automated', 'auto synced', 'auto-synced', 'auto-syncing', 'auto syncing', 'automatically synced', 'auto-sync enabled', 'auto sync enabled', 'auto sync on'] },
        { value: 'false', words: ['manual sync', 'manually synced', 'manual', 'manual syncing', 'auto-sync disabled', 'auto sync disabled', 'auto sync off'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
    },
    { name: 'self_heal', label: 'self-heal', type: 'bool', values: [{ value: 'true', words: ['self heal', 'self-heal', 'selfheal', 'self healing', 'self-healing'] }], exec: 'tool', groupable: true, projection: true },
    { name: 'prune', label: 'auto-prune', type: 'bool', values: [{ value: 'true', words: ['prune', 'auto prune', 'auto-prune', 'pruning'] }], exec: 'tool', groupable: true, projection: true },
    {
      name: 'operation',
      label: 'last operation phase',
      type: 'enum',
      words: ['operation', 'last operation', 'operation phase', 'phase', 'sync operation', 'last sync result', 'sync result', 'operation state'],
      values: [
        { value: 'Running', words: ['syncing', 'sync in progress', 'sync running', 'running sync', 'being synced'] },
        { value: 'Succeeded', words: ['succeeded', 'successful sync', 'sync succeeded', 'successfully synced'] },
        { value: 'Failed' },
        { value: 'Error', words: ['errored', 'sync errored'] },
        { value: 'Terminating', words: ['terminating'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
    },
    { name: 'last_sync', label: 'last sync', type: 'time', words: ['last sync', 'last synced', 'last deployed', 'last sync time', 'last deploy', 'last deployment'], timeVerbs: ['synced', 'deployed', 'last synced', 'last deployed', 'sync', 'syncs', 'deploy', 'deploys', 'deployments', 'rolled out', 'released', 'updated', 'changed', 'redeployed', 'failed', 'fail', 'failed syncs', 'sync failed', 'syncs failed', 'sync fail', 'syncs fail', 'failures'], exec: 'tool', projection: true },
    { name: 'created', label: 'creation time', type: 'time', words: ['creation time', 'created at', 'creation date', 'age'], timeVerbs: ['created', 'added', 'made', 'onboarded', 'new'], exec: 'tool', projection: true },
    {
      name: 'env',
      label: 'environment',
      type: 'name',
      words: ['env', 'environment', 'environments', 'envs', 'stage', 'env label'],
      values: [
        { value: 'prod', words: ['production', 'prd', 'prod'] },
        { value: 'staging', words: ['stage', 'stg', 'staging'] },
        { value: 'dev', words: ['development', 'dev'] },
        { value: 'qa', words: ['qa', 'test', 'testing'] },
        { value: 'perf', words: ['performance', 'perf'] },
      ],
      live: true,
      exec: 'upstream',
      groupable: true,
      projection: true,
      rank: 7,
    },
    { name: 'team', label: 'team', type: 'name', words: ['team', 'teams', 'owner', 'owners', 'owned by', 'owning team', 'squad', 'squads', 'owner team'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'appset', label: 'application set', type: 'name', words: ['application set', 'application sets', 'appset', 'appsets', 'applicationset', 'app set', 'generated by', 'generating application set', 'owning application set', 'generate', 'generates', 'generated', 'generating', 'spawned by'], live: true, exec: 'tool', groupable: true, projection: true, rank: 2 },
    { name: 'region', label: 'region', type: 'name', words: ['region', 'regions'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 2 },
    { name: 'tier', label: 'tier', type: 'name', words: ['tier', 'tiers'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 2 },
    { name: 'label', label: 'label', type: 'name', words: ['label', 'labels', 'labelled', 'labeled', 'tagged', 'with label'], exec: 'upstream', multi: true, projection: true, pattern: /^[a-z0-9][\w./-]*=[\w.-]*$/ },
    { name: 'image', label: 'image', type: 'text', words: ['image', 'images', 'container image', 'container images', 'docker image', 'docker images', 'image tag', 'image tags'], exec: 'tool', groupable: true, projection: true, multi: true },
    { name: 'history', label: 'sync history', type: 'text', words: ['history', 'sync history', 'deployment history', 'deploy history', 'rollout history', 'past syncs', 'previous syncs', 'previous deployments', 'past deployments', 'revision history'], exec: 'tool', projection: true },
    { name: 'conditions', label: 'conditions', type: 'text', words: ['condition', 'conditions', 'warnings', 'warning', 'errors', 'error conditions'], exec: 'tool', groupable: true, projection: true, multi: true },
    { name: 'health_message', label: 'health message', type: 'text', words: ['health message', 'status message', 'message', 'messages'], exec: 'tool', projection: true },
    { name: 'operation_message', label: 'last operation message', type: 'text', words: ['operation message', 'sync message', 'sync error message', 'failure message', 'error message'], exec: 'tool', projection: true },
    { name: 'status', label: 'status', type: 'text', words: ['status', 'state', 'statuses', 'current status', 'current state', 'overall status'], exec: 'tool', projection: true },
    { name: 'external_urls', label: 'external URLs', type: 'text', words: ['url', 'urls', 'external url', 'external urls', 'endpoint', 'endpoints', 'ingress url', 'link', 'links'], exec: 'tool', projection: true, multi: true },
    // Argo CD holds these; the agent does not read them yet, and says so.
    { name: 'annotations', label: 'annotations', type: 'text', words: ['annotation', 'annotations'], exec: 'not_read' },
    { name: 'sync_windows', label: 'sync windows', type: 'text', words: ['sync window', 'sync windows', 'maintenance window'], exec: 'not_read' },
    { name: 'ignore_differences', label: 'ignored differences', type: 'text', words: ['ignore differences', 'ignored differences', 'ignoredifferences'], exec: 'not_read' },
  ],
};

export const CLUSTERS: EntityDecl = {
  name: 'clusters',
  singular: 'cluster',
  plural: 'clusters',
  words: ['clusters', 'cluster', 'k8s clusters', 'kubernetes clusters', 'registered clusters'],
  nameField: 'name',
  rowFields: ['name', 'server', 'connection', 'version'],
  details: ['server', 'connection', 'version', 'message'],
  phrases: [
    {
      words: ['connection problems', 'connection problem', 'connection issues', 'connection issue', 'connection errors', 'connection error', 'connection failures', 'connectivity problems', 'connectivity issues', 'not connected', 'trouble connecting', 'failing to connect', 'cannot connect', "can't connect"],
      where: { op: 'not', of: { op: 'eq', field: 'connection', value: 'Successful' } },
    },
  ],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'cluster name'], live: true, exec: 'tool', rank: 5 },
    { name: 'server', label: 'API server URL', type: 'name', words: ['server', 'url', 'api server', 'server url', 'api url', 'endpoint', 'address'], live: true, exec: 'tool', projection: true, pattern: /^https?:\/\// },
    {
      name: 'connection',
      label: 'connection state',
      type: 'enum',
      words: ['connection', 'connection state', 'connection status', 'status', 'state', 'connectivity', 'health'],
      values: [
        { value: 'Successful', words: ['successful', 'connected', 'ok', 'okay', 'fine', 'up', 'reachable', 'healthy', 'good', 'working'] },
        { value: 'Failed', words: ['failed', 'failing', 'down', 'broken', 'unreachable', 'disconnected', 'not ok', 'unhealthy', 'bad', 'erroring'] },
        { value: 'Unknown', words: ['unknown'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
      rank: 3,
    },
    { name: 'version', label: 'Kubernetes version', type: 'text', words: ['version', 'versions', 'kubernetes version', 'k8s version', 'server version'], exec: 'tool', groupable: true, projection: true },
    { name: 'message', label: 'connection message', type: 'text', words: ['message', 'error', 'connection message', 'reason', 'why'], exec: 'tool', projection: true },
  ],
};

export const PROJECTS: EntityDecl = {
  name: 'projects',
  singular: 'project',
  plural: 'projects',
  words: ['projects', 'project', 'argo projects', 'argocd projects', 'argo cd projects', 'appprojects', 'appproject', 'app projects'],
  nameField: 'name',
  rowFields: ['name', 'description', 'destinations', 'repos'],
  details: ['description', 'repos', 'destinations', 'roles'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'project name'], live: true, exec: 'tool', rank: 3 },
    { name: 'description', label: 'description', type: 'text', words: ['description', 'descriptions', 'purpose'], exec: 'tool', projection: true },
    { name: 'repos', label: 'allowed source repositories', type: 'name', words: ['source repos', 'source repositories', 'allowed repos', 'allowed repositories', 'repos', 'repositories', 'repo', 'repository', 'sources'], live: true, exec: 'tool', projection: true, multi: true, groupable: true, rank: 1, pattern: /(?:\.git$|^git@|^https?:\/\/(?:git|github|gitlab|bitbucket|charts?)\.)/ },
    { name: 'destinations', label: 'allowed destinations', type: 'text', words: ['destinations', 'destination', 'allowed destinations', 'targets'], exec: 'tool', projection: true, multi: true },
    { name: 'cluster', label: 'destination cluster', type: 'name', words: ['cluster', 'clusters', 'destination cluster', 'destination clusters', 'deploy to', 'deploys to', 'deploying to', 'deploy into', 'deploys into', 'allowed to deploy to'], live: true, exec: 'tool', projection: true, multi: true, groupable: true, rank: 5 },
    { name: 'namespace', label: 'destination namespace', type: 'name', words: ['namespace', 'namespaces', 'destination namespace', 'destination namespaces'], live: true, exec: 'tool', projection: true, multi: true, groupable: true, rank: 1 },
    { name: 'roles', label: 'roles', type: 'text', words: ['role', 'roles', 'project roles'], exec: 'tool', projection: true, multi: true },
    // Argo CD holds these; the agent does not read them yet, and says so.
    { name: 'sync_windows', label: 'sync windows', type: 'text', words: ['sync window', 'sync windows', 'maintenance window'], exec: 'not_read' },
    { name: 'resource_whitelist', label: 'allowed resource kinds', type: 'text', words: ['resource whitelist', 'cluster resource whitelist', 'allowed kinds', 'allowed resource kinds'], exec: 'not_read' },
  ],
};

/** ApplicationSet generator types, as Argo CD names them under spec.generators[]. */
export const GENERATOR_TYPES = ['list', 'clusters', 'git', 'matrix', 'merge', 'scmProvider', 'pullRequest', 'clusterDecisionResource', 'plugin'] as const;

export const APPLICATIONSETS: EntityDecl = {
  name: 'applicationsets',
  singular: 'application set',
  plural: 'application sets',
  words: ['application sets', 'application set', 'applicationsets', 'applicationset', 'appsets', 'appset', 'app sets', 'app set'],
  nameField: 'name',
  rowFields: ['name', 'project', 'generators', 'applications'],
  details: ['project', 'generators', 'applications', 'repo', 'errors'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names'], live: true, exec: 'tool', rank: 3 },
    { name: 'project', label: 'project', type: 'name', words: ['project', 'projects', 'target project'], live: true, exec: 'tool', groupable: true, projection: true, rank: 3 },
    {
      name: 'generators',
      label: 'generator',
      type: 'enum',
      words: ['generator', 'generators', 'generator type', 'generator types'],
      values: [
        { value: 'list', words: ['list generator', 'list generators'] },
        { value: 'clusters', words: ['cluster generator', 'cluster generators', 'clusters generator'] },
        { value: 'git', words: ['git generator', 'git generators'] },
        { value: 'matrix', words: ['matrix', 'matrix generator', 'matrix generators'] },
        { value: 'merge', words: ['merge generator', 'merge generators'] },
        { value: 'scmProvider', words: ['scm provider', 'scm provider generator', 'scmprovider'] },
        { value: 'pullRequest', words: ['pull request', 'pull request generator', 'pullrequest', 'pr generator'] },
        { value: 'clusterDecisionResource', words: ['cluster decision resource', 'clusterdecisionresource'] },
        { value: 'plugin', words: ['plugin generator', 'plugin generators'] },
      ],
      exec: 'tool',
      groupable: true,
      projection: true,
      multi: true,
    },
    { name: 'applications', label: 'generated applications', type: 'number', words: ['generated applications', 'generated apps'], exec: 'tool', projection: true },
    { name: 'repo', label: 'template source repository', type: 'name', words: ['repo', 'repos', 'repository', 'source repo', 'template repo'], live: true, exec: 'tool', groupable: true, projection: true, rank: 1, pattern: /(?:\.git$|^git@|^https?:\/\/(?:git|github|gitlab|bitbucket|charts?)\.)/ },
    { name: 'team', label: 'team', type: 'name', words: ['team', 'teams', 'owner', 'owned by', 'squad'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'errors', label: 'error conditions', type: 'text', words: ['errors', 'error', 'error conditions', 'conditions', 'failing conditions', 'problems'], exec: 'tool', projection: true, multi: true },
  ],
  phrases: [{ words: ['failing', 'erroring', 'in error', 'with errors', 'broken', 'unhealthy'], where: { op: 'exists', field: 'errors' } }],
};

export const ARGOCD_DOMAIN: DomainDecl = {
  name: 'argocd',
  entities: [APPLICATIONS, CLUSTERS, PROJECTS, APPLICATIONSETS],
  defaultEntity: 'applications',
  actions: [
    { verb: 'sync', words: ['sync', 'resync', 're-sync', 'force sync', 'hard sync', 'trigger a sync', 'trigger sync', 'kick off a sync', 'start a sync'], how: 'argocd app sync {name}' },
    { verb: 'roll back', words: ['rollback', 'roll back', 'revert', 'undo'], how: 'argocd app rollback {name} <history-id>' },
    { verb: 'restart', words: ['restart', 'bounce', 'reboot', 'recycle', 'rollout restart'], how: 'argocd app actions run {name} restart --kind Deployment' },
    { verb: 'delete', words: ['delete', 'remove', 'destroy', 'drop', 'uninstall', 'decommission', 'kill', 'terminate', 'purge'], how: 'argocd app delete {name}' },
    { verb: 'scale', words: ['scale', 'scale up', 'scale down', 'resize'], how: 'kubectl scale, or change the replicas in the source repository, then argocd app sync {name}' },
    { verb: 'change', words: ['edit', 'update', 'change', 'modify', 'patch', 'set', 'rename', 'disable', 'enable', 'turn off', 'turn on', 'pause', 'suspend', 'unpause'], how: 'argocd app set {name} … (or edit the Application in Git)' },
    { verb: 'create', words: ['create', 'add', 'deploy', 'install', 'onboard', 'provision'], how: 'argocd app create …' },
    { verb: 'refresh', words: ['hard refresh', 'terminate op', 'terminate operation'], how: 'argocd app get {name} --hard-refresh' },
  ],
};

/** The entities the `query` tool executes (every one declared). */
export const ARGOCD_QUERY_ENTITIES = ['applications', 'clusters', 'projects', 'applicationsets'] as const;

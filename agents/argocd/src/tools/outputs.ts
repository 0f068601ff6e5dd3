import { z } from 'zod';
import { QUERY_OUTPUT, READ_RESULT_OUTPUT, VALUE_ITEM, listPageOutput, objectOutput } from '@flotilla/bounded-tools';

/**
 * The output schemas of the Argo CD tools (`structuredContent`, advertised as each tool's `outputSchema`), built
 * once per process. Rows are projections that leave out what is unknown (`compact`), so items are loose objects:
 * the fields named here are typed, the rest pass through. An agent validates a result with the same schema
 * (`mcpToolCaller(client, { schemas: ARGOCD_OUTPUT_SCHEMAS })`).
 */

const str = z.string().optional();
const int = z.number().int().optional();

export const APPLICATION_ITEM = z.looseObject({
  name: z.string(),
  project: str,
  sync: str,
  health: str,
  cluster: str,
  namespace: str,
  repo: str,
  path: str,
  revision: str,
  auto_sync: z.boolean().optional(),
  operation: str,
  last_sync: str,
});

export const PROJECT_ITEM = z.looseObject({
  name: z.string(),
  description: str,
  source_repos: z.array(z.string()).optional(),
  source_repos_total: int,
  destinations: z.array(z.string()).optional(),
  destinations_total: int,
  roles: int,
});

export const APPLICATIONSET_ITEM = z.looseObject({
  name: z.string(),
  project: str,
  generators: z.array(z.string()).optional(),
  template_name: str,
  repo: str,
  applications: int,
  errors: z.array(z.string()).optional(),
});

export const CLUSTER_ITEM = z.looseObject({ name: z.string(), server: str, version: str, connection: str, applications: int, resources: int, project: str });

export const SEARCH_MATCH_ITEM = z.looseObject({ type: z.enum(['application', 'project', 'applicationset', 'cluster']), name: z.string(), matched: z.array(z.string()) });

export const TREE_ITEM = z.looseObject({
  kind: str,
  name: str,
  namespace: str,
  group: str,
  health: str,
  health_message: str,
  status: str,
  info: z.array(z.string()).optional(),
  parent: str,
  images: z.array(z.string()).optional(),
  images_total: int,
  created_at: str,
});

export const MANAGED_ITEM = z.looseObject({
  kind: str,
  name: str,
  namespace: str,
  group: str,
  sync: str,
  changed_paths: int,
  more_changes: int,
  note: str,
});

export const EVENT_ITEM = z.looseObject({
  type: str,
  reason: str,
  message: str,
  object: str,
  namespace: str,
  count: int,
  first_seen: str,
  last_seen: str,
  source: str,
});

export const LOG_LINE_ITEM = z.looseObject({ time: str, pod: str, line: str, cut_from_chars: int });

/** get_application: the sections asked for, each an object, and a note when Helm values were left out. */
export const APPLICATION_OUTPUT = objectOutput(
  z.strictObject({
    summary: z.looseObject({}).optional(),
    source: z.looseObject({}).optional(),
    destination: z.looseObject({}).optional(),
    sync_policy: z.looseObject({}).optional(),
    resources: z.looseObject({}).optional(),
    history: z.looseObject({}).optional(),
    conditions: z.looseObject({}).optional(),
    operation: z.looseObject({}).optional(),
    helm_values: z.looseObject({}).optional(),
    note: str,
  }),
);

/** get_resource: the projected manifest (its fields depend on the object and the paths asked for). */
export const RESOURCE_OUTPUT = objectOutput(z.looseObject({}));

export const RESOURCE_ACTIONS_OUTPUT = objectOutput(
  z.strictObject({
    resource: z.looseObject({ kind: str, name: str, namespace: str, group: str }),
    total: z.number().int(),
    actions: z.array(z.strictObject({ name: str, display_name: str, disabled: z.boolean() })),
    note: z.string(),
  }),
);

/** Every Argo CD tool's output schema, by tool name. */
export const ARGOCD_OUTPUT_SCHEMAS = {
  query: QUERY_OUTPUT,
  list_values: listPageOutput(VALUE_ITEM),
  list_applications: listPageOutput(APPLICATION_ITEM),
  get_application: APPLICATION_OUTPUT,
  list_projects: listPageOutput(PROJECT_ITEM),
  list_applicationsets: listPageOutput(APPLICATIONSET_ITEM),
  list_clusters: listPageOutput(CLUSTER_ITEM),
  search_argocd_resources: listPageOutput(SEARCH_MATCH_ITEM),
  get_resource_tree: listPageOutput(TREE_ITEM),
  get_managed_resources: listPageOutput(MANAGED_ITEM),
  get_application_events: listPageOutput(EVENT_ITEM),
  get_resource_events: listPageOutput(EVENT_ITEM),
  get_logs: listPageOutput(LOG_LINE_ITEM),
  get_resource: RESOURCE_OUTPUT,
  list_resource_actions: RESOURCE_ACTIONS_OUTPUT,
  read_result: READ_RESULT_OUTPUT,
} as const satisfies Readonly<Record<string, z.ZodType>>;

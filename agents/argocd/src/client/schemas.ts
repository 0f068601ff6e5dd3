import { z } from 'zod';

/**
 * Argo CD wire shapes, as far as Flotilla reads them. Tolerant (`looseObject`): Argo CD adds fields between
 * versions and a projection drops others, so only what we read is typed and almost everything is optional.
 */
const StringMap = z.record(z.string(), z.string());

/** Optional string fields by name: how a Kubernetes object is named (group, version, kind, namespace, name…). */
export function optionalStrings<K extends string>(...keys: readonly K[]): { readonly [P in K]: z.ZodOptional<z.ZodString> } {
  return Object.fromEntries(keys.map((key) => [key, z.string().optional()])) as { readonly [P in K]: z.ZodOptional<z.ZodString> };
}

export const ObjectMeta = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  creationTimestamp: z.string().optional(),
  // Who owns the object: an ApplicationSet owns the applications it generates (at most 10 kept).
  ownerReferences: z
    .array(z.looseObject({ kind: z.string().optional(), name: z.string().optional() }))
    .nullish()
    .transform((a) => a?.slice(0, 10))
    .optional(),
});

export const AppSource = z.looseObject({
  repoURL: z.string().optional(),
  path: z.string().optional(),
  chart: z.string().optional(),
  targetRevision: z.string().optional(),
  ref: z.string().optional(),
  helm: z
    .looseObject({
      values: z.string().optional(),
      valuesObject: z.unknown().optional(),
      valueFiles: z.array(z.string()).nullish(),
      releaseName: z.string().optional(),
      parameters: z.array(z.looseObject({ name: z.string().optional(), value: z.string().optional() })).nullish(),
    })
    .nullish(),
});
export type AppSource = z.infer<typeof AppSource>;

export const Destination = z.looseObject({
  server: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});

export const ResourceStatus = z.looseObject({
  ...optionalStrings('group', 'version', 'kind', 'namespace', 'name', 'status'),
  health: z.looseObject({ status: z.string().optional(), message: z.string().optional() }).nullish(),
});

export const Application = z.looseObject({
  metadata: ObjectMeta,
  spec: z
    .looseObject({
      project: z.string().optional(),
      source: AppSource.nullish(),
      sources: z.array(AppSource).nullish(),
      destination: Destination.nullish(),
      syncPolicy: z
        .looseObject({
          automated: z.looseObject({ prune: z.boolean().optional(), selfHeal: z.boolean().optional() }).nullish(),
          syncOptions: z.array(z.string()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .looseObject({
      sync: z.looseObject({ status: z.string().optional(), revision: z.string().optional() }).nullish(),
      health: z.looseObject({ status: z.string().optional(), message: z.string().optional() }).nullish(),
      resources: z.array(ResourceStatus).nullish(),
      history: z
        .array(z.looseObject({ id: z.number().optional(), revision: z.string().optional(), deployedAt: z.string().optional() }))
        .nullish(),
      conditions: z.array(z.looseObject({ type: z.string().optional(), message: z.string().optional() })).nullish(),
      operationState: z
        .looseObject({
          phase: z.string().optional(),
          message: z.string().optional(),
          startedAt: z.string().optional(),
          finishedAt: z.string().optional(),
          operation: z
            .looseObject({ initiatedBy: z.looseObject({ username: z.string().optional(), automated: z.boolean().optional() }).nullish() })
            .nullish(),
        })
        .nullish(),
      reconciledAt: z.string().optional(),
      sourceType: z.string().optional(),
      summary: z.looseObject({ images: z.array(z.string()).nullish(), externalURLs: z.array(z.string()).nullish() }).nullish(),
    })
    .nullish(),
});
export type Application = z.infer<typeof Application>;

/**
 * An application as list tools keep it: only what rows, filters and search read. `z.object` strips every other
 * key (Helm values, parameters, sync options...), so a list of 10,000 keeps a few hundred bytes per item.
 */
/** A time the projection may send as JSON null (a Go nil pointer): read as absent. */
const NullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);
const SlimSource = z.object({
  repoURL: z.string().optional(),
  path: z.string().optional(),
  chart: z.string().optional(),
  targetRevision: z.string().optional(),
});
export const ApplicationListItem = z.object({
  metadata: z.object({
    name: z.string().min(1),
    namespace: z.string().optional(),
    labels: StringMap.nullish(),
    annotations: StringMap.nullish(),
    creationTimestamp: NullableString,
  }),
  spec: z
    .object({
      project: z.string().optional(),
      source: SlimSource.nullish(),
      sources: z.array(SlimSource).nullish(),
      destination: z.object({ server: z.string().optional(), name: z.string().optional(), namespace: z.string().optional() }).nullish(),
      syncPolicy: z.object({ automated: z.object({ prune: z.boolean().optional(), selfHeal: z.boolean().optional() }).nullish() }).nullish(),
    })
    .nullish(),
  status: z
    .object({
      sync: z.object({ status: z.string().optional(), revision: z.string().optional() }).nullish(),
      health: z.object({ status: z.string().optional(), message: z.string().optional().transform((m) => m?.slice(0, 300)) }).nullish(),
      operationState: z.object({ phase: z.string().optional(), finishedAt: NullableString }).nullish(),
      // Images and URLs the application runs and serves (a few per application; at most 50 kept).
      summary: z
        .object({ images: z.array(z.string().max(512)).nullish().transform((a) => a?.slice(0, 50)), externalURLs: z.array(z.string().max(512)).nullish().transform((a) => a?.slice(0, 20)) })
        .nullish(),
    })
    .nullish(),
});
export type ApplicationListItem = z.infer<typeof ApplicationListItem>;


export const Project = z.looseObject({
  metadata: ObjectMeta,
  spec: z
    .looseObject({
      description: z.string().optional(),
      sourceRepos: z.array(z.string()).nullish(),
      destinations: z.array(Destination).nullish(),
      roles: z.array(z.looseObject({ name: z.string().optional() })).nullish(),
    })
    .nullish(),
});
export type Project = z.infer<typeof Project>;

export const ApplicationSet = z.looseObject({
  metadata: ObjectMeta,
  spec: z
    .looseObject({
      generators: z.array(z.record(z.string(), z.unknown())).nullish(),
      template: z
        .looseObject({
          metadata: z.looseObject({ name: z.string().optional() }).nullish(),
          spec: z.looseObject({ project: z.string().optional(), source: AppSource.nullish(), destination: Destination.nullish() }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .looseObject({
      conditions: z.array(z.looseObject({ type: z.string().optional(), status: z.string().optional(), message: z.string().optional() })).nullish(),
      resources: z.array(z.looseObject({ name: z.string().optional() })).nullish(),
    })
    .nullish(),
});
export type ApplicationSet = z.infer<typeof ApplicationSet>;

export const Cluster = z.looseObject({
  server: z.string().min(1),
  name: z.string().optional(),
  serverVersion: z.string().optional(),
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  namespaces: z.array(z.string()).nullish(),
  project: z.string().optional(),
  connectionState: z.looseObject({ status: z.string().optional(), message: z.string().optional() }).nullish(),
  info: z
    .looseObject({
      serverVersion: z.string().optional(),
      applicationsCount: z.number().optional(),
      connectionState: z.looseObject({ status: z.string().optional(), message: z.string().optional() }).nullish(),
      cacheInfo: z.looseObject({ resourcesCount: z.number().optional() }).nullish(),
    })
    .nullish(),
});
export type Cluster = z.infer<typeof Cluster>;

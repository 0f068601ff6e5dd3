import type { ArgoApplication, ManagedFieldsEntry } from './types.js';

type Fields = Record<string, unknown>;
const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A `fieldsV1` set naming every field of `value`, as structured-merge-diff serialises it: `f:<field>` per key,
 * `"."` for a map the manager created, lists atomic (`{}`), as they are in a schema without list-type markers.
 */
export function fieldsV1(value: Record<string, unknown>, created = false): Fields {
  const out: Fields = created ? { '.': {} } : {};
  for (const key of Object.keys(value).sort()) {
    const child = value[key];
    out[`f:${key}`] = isMap(child) ? fieldsV1(child, true) : {};
  }
  return out;
}

/** A string map (labels, annotations): the map and each key. */
const keysOf = (map: Readonly<Record<string, string>>): Fields => fieldsV1(map, true);

/**
 * `metadata.managedFields` of an application as the API server keeps them: the manager that created the object
 * (the ApplicationSet controller for generated applications, kubectl for applied ones, argocd-server for the
 * rest) owns metadata and spec; the application controller owns status. Both write with Update (the Application
 * CRD has no status subresource, so no `subresource` field). Unconfirmed: the exact managers on a real server
 * depend on how each application was created.
 */
export function applicationManagedFields(app: ArgoApplication): ManagedFieldsEntry[] {
  const { metadata } = app;
  const meta: Fields = {};
  if (metadata.annotations !== undefined) meta['f:annotations'] = keysOf(metadata.annotations);
  if (metadata.finalizers !== undefined) meta['f:finalizers'] = Object.fromEntries([['.', {}], ...metadata.finalizers.map((f) => [`v:${JSON.stringify(f)}`, {}])]);
  if (metadata.labels !== undefined) meta['f:labels'] = keysOf(metadata.labels);
  if (metadata.ownerReferences !== undefined) meta['f:ownerReferences'] = Object.fromEntries([['.', {}], ...metadata.ownerReferences.map((o) => [`k:${JSON.stringify({ uid: o.uid })}`, {}])]);
  const manager =
    metadata.ownerReferences !== undefined
      ? 'argocd-applicationset-controller'
      : metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] !== undefined
        ? 'kubectl-client-side-apply'
        : 'argocd-server';
  const status: Record<string, unknown> = { ...app.status };
  const entries: ManagedFieldsEntry[] = [
    {
      manager,
      operation: 'Update',
      apiVersion: 'argoproj.io/v1alpha1',
      time: metadata.creationTimestamp,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': meta, 'f:spec': fieldsV1(app.spec as unknown as Record<string, unknown>, true) },
    },
  ];
  entries.push({
    manager: 'argocd-application-controller',
    operation: 'Update',
    apiVersion: 'argoproj.io/v1alpha1',
    time: app.status.reconciledAt ?? metadata.creationTimestamp,
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': fieldsV1(status, true) },
  });
  return entries;
}

import type { Rng } from '../prng.js';

/** What a service's Helm values say that the rest of the application must agree with. */
export interface ValuesFacts {
  readonly imageTag: string;
  readonly replicas: number;
  readonly ingressHost: string | undefined;
}

const SETTINGS = ['TIMEOUT_MS', 'POOL_SIZE', 'LOG_LEVEL', 'FEATURE_FLAGS', 'UPSTREAM_URL', 'CACHE_TTL', 'RETRY_LIMIT', 'BATCH_SIZE', 'REGION', 'TRACING_SAMPLE_RATE', 'QUEUE_NAME', 'DB_HOST'];

/**
 * Inline Helm values (`spec.source.helm.values`): a multi-line YAML document of one to a few kilobytes, the kind
 * teams paste into their Application manifests.
 */
export function helmValues(rng: Rng, team: string, service: string, env: string, facts: ValuesFacts): string {
  const cpu = rng.int(1, 20) * 50;
  const memory = rng.int(1, 16) * 128;
  const lines = [
    `replicaCount: ${facts.replicas}`,
    '',
    'image:',
    `  repository: registry.example.com/${team}/${service}`,
    `  tag: "${facts.imageTag}"`,
    '  pullPolicy: IfNotPresent',
    'imagePullSecrets:',
    '  - name: registry-example-com',
    '',
    'serviceAccount:',
    '  create: true',
    '  annotations:',
    `    eks.amazonaws.com/role-arn: arn:aws:iam::${rng.int(100_000_000_000, 999_999_999_999)}:role/${team}-${service}-${env}`,
    '',
    'podAnnotations:',
    '  prometheus.io/scrape: "true"',
    `  prometheus.io/port: "${rng.pick([8080, 9090, 9102])}"`,
    '',
    'resources:',
    '  requests:',
    `    cpu: ${cpu}m`,
    `    memory: ${memory}Mi`,
    '  limits:',
    `    memory: ${memory * 2}Mi`,
    '',
    'autoscaling:',
    `  enabled: ${env === 'prod'}`,
    `  minReplicas: ${facts.replicas}`,
    `  maxReplicas: ${facts.replicas * rng.int(2, 5)}`,
    `  targetCPUUtilizationPercentage: ${rng.pick([60, 70, 75, 80])}`,
    '',
    'service:',
    '  type: ClusterIP',
    `  port: ${rng.pick([80, 8080, 3000])}`,
  ];
  if (facts.ingressHost !== undefined) {
    lines.push(
      '',
      'ingress:',
      '  enabled: true',
      '  className: nginx',
      '  annotations:',
      '    cert-manager.io/cluster-issuer: letsencrypt',
      '  hosts:',
      `    - host: ${facts.ingressHost}`,
      '      paths:',
      '        - path: /',
      '          pathType: Prefix',
      '  tls:',
      `    - secretName: ${team}-${service}-tls`,
      '      hosts:',
      `        - ${facts.ingressHost}`,
    );
  }
  lines.push(
    '',
    'livenessProbe:',
    '  httpGet:',
    '    path: /healthz',
    '    port: http',
    `  initialDelaySeconds: ${rng.int(5, 30)}`,
    'readinessProbe:',
    '  httpGet:',
    '    path: /ready',
    '    port: http',
    '',
    'env:',
  );
  const vars = rng.int(2, 14);
  const prefix = `${team}_${service}`.toUpperCase().replace(/-/g, '_');
  for (let i = 0; i < vars; i += 1) {
    const setting = SETTINGS[i % SETTINGS.length] ?? 'SETTING';
    lines.push(`  - name: ${prefix}_${setting}${i >= SETTINGS.length ? `_${i}` : ''}`, `    value: "${rng.hex(rng.int(6, 36))}"`);
  }
  lines.push('', 'envFrom:', `  - configMapRef:`, `      name: ${team}-${service}-config`, `  - secretRef:`, `      name: ${team}-${service}-secrets`);
  lines.push('', 'nodeSelector:', '  kubernetes.io/os: linux', '', 'tolerations: []', '', 'affinity:', '  podAntiAffinity:', '    preferredDuringSchedulingIgnoredDuringExecution:', '      - weight: 100', '        podAffinityTerm:', '          topologyKey: kubernetes.io/hostname', '          labelSelector:', '            matchLabels:', `              app.kubernetes.io/name: ${service}`);
  return `${lines.join('\n')}\n`;
}

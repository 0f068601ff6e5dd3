export {
  METRIC,
  LABEL,
  BUCKETS,
  TOOL_OUTCOMES,
  EVICTION_REASONS,
  UPSTREAM_SYSTEMS,
  UPSTREAM_OUTCOMES,
  type MetricName,
  type ToolOutcome,
  type EvictionReason,
  type UpstreamSystem,
  type UpstreamOutcome,
} from './names.js';
export { createMetrics, type FlotillaMetrics, type MetricsOptions } from './registry.js';

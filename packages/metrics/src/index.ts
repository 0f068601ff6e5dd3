export {
  METRIC,
  LABEL,
  BUCKETS,
  TOOL_OUTCOMES,
  EVICTION_REASONS,
  UPSTREAM_SYSTEMS,
  UPSTREAM_OUTCOMES,
  TURN_OUTCOMES,
  WORKFLOW_PATHS,
  type TurnOutcome,
  type WorkflowPath,
  type MetricName,
  type ToolOutcome,
  type EvictionReason,
  type UpstreamSystem,
  type UpstreamOutcome,
} from './names.js';
export { createMetrics, type FlotillaMetrics, type MetricsOptions } from './registry.js';

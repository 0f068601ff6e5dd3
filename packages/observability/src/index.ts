export {
  ALERTS,
  ALERT_NAMES,
  ALERT_WINDOW,
  A2A_LATENCY_QUANTILE,
  DEFAULT_RUNBOOK_BASE_URL,
  SEVERITIES,
  alertNamed,
  runbookPath,
  runbookUrl,
  type AlertDefinition,
  type AlertName,
  type Severity,
} from './alerts.js';
export {
  CIRCUIT_STATES,
  FLOTILLA_CONTAINER_REGEX,
  KUBE_LABEL,
  KUBE_METRIC,
  KUBE_VALUE,
  MEMORY_GUARD_RATIOS,
  UPSTREAM_ERROR_OUTCOMES,
  type CircuitState,
} from './queries.js';
export {
  RULE_GROUP,
  alertingRule,
  ruleGroups,
  renderPrometheusRules,
  renderPrometheusRuleTemplate,
  renderDashboardsConfigMapTemplate,
  type AlertingRule,
  type RuleGroup,
  type RulesOptions,
} from './rules.js';
export {
  OVERVIEW_DASHBOARD_UID,
  OVERVIEW_DASHBOARD_FILE,
  DATASOURCE_VARIABLE,
  NAMESPACE_VARIABLE,
  dashboardQueries,
  dashboardVariableQueries,
  overviewDashboard,
  overviewRows,
  renderOverviewDashboard,
  type DashboardPanel,
  type DashboardQuery,
  type DashboardRow,
  type PanelQuery,
  type StateTimelinePanel,
  type TimelineState,
  type TimeseriesPanel,
} from './dashboards.js';
export { ALERT_TEST_GROUPS, alertsMissingTests, renderAlertTests, type AlertTestGroup, type AlertExpectation, type InputSeries } from './alert-tests.js';
export { CHART_VALUES_PATH, GENERATED_PATHS, generatedFiles, main, staleFiles, writeGeneratedFiles, type GeneratedFile } from './generate.js';
export { VALUES_TABLE_END, VALUES_TABLE_START, renderValuesTable, valuesDocs, withValuesTable, type ValueDoc } from './values-doc.js';

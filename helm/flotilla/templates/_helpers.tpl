{{/*
Helpers of the flotilla chart. Written for Helm 3.6 and later: no template function newer than that.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "flotilla.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The fully qualified app name, cut at 63 characters (a DNS label). The release name alone when it already
contains the chart name.
*/}}
{{- define "flotilla.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Chart name and version, for the helm.sh/chart label. */}}
{{- define "flotilla.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "flotilla.labels" -}}
helm.sh/chart: {{ include "flotilla.chart" . }}
{{ include "flotilla.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: flotilla
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels: stable across upgrades, so no chart or version label here. */}}
{{- define "flotilla.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flotilla.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The pieces the chart deploys, as YAML under `components` (read it with fromYaml). Per piece:
  key      its section in values.yaml
  name     its name in object names and the app.kubernetes.io/component label
  args     the CLI command the image runs
  portEnv  the environment variable of its port
  ready    its readiness path (the Slack bot serves /healthz only)
  agent    the flotilla.io/agent label value on its Service (domain agents only: the supervisor discovers them)
  metrics  whether it serves /metrics
  llm      whether it has an LLM mode (the llm values and its own <key>.llm apply)
*/}}
{{- define "flotilla.components" -}}
components:
  - key: supervisor
    name: supervisor
    args: [supervisor]
    portEnv: FLOTILLA_SUPERVISOR_PORT
    ready: /readyz
    agent: ""
    metrics: true
    llm: false
  - key: argocd
    name: argocd
    args: [agent, argocd]
    portEnv: FLOTILLA_ARGOCD_AGENT_PORT
    ready: /readyz
    agent: argocd
    metrics: true
    llm: true
  - key: netbox
    name: netbox
    args: [agent, netbox]
    portEnv: FLOTILLA_NETBOX_AGENT_PORT
    ready: /readyz
    agent: netbox
    metrics: true
    llm: true
  - key: slackBot
    name: slack-bot
    args: [slack]
    portEnv: FLOTILLA_SLACK_PORT
    ready: /healthz
    agent: ""
    metrics: false
    llm: false
{{- end }}

{{/*
<fullname>-<suffix> within 63 characters: the fullname is cut, never the suffix, so names stay distinct.
Call with (dict "root" $ "name" "argocd").
*/}}
{{- define "flotilla.suffixedName" -}}
{{- $base := include "flotilla.fullname" .root | trunc (int (sub 62 (len .name))) | trimSuffix "-" }}
{{- printf "%s-%s" $base .name }}
{{- end }}

{{/* The name of one piece's objects: <fullname>-<component>. Call with (dict "root" $ "name" "argocd"). */}}
{{- define "flotilla.componentFullname" -}}
{{- include "flotilla.suffixedName" . }}
{{- end }}

{{/* Labels of one piece's objects. Call with (dict "root" $ "name" "argocd"). */}}
{{- define "flotilla.componentLabels" -}}
{{ include "flotilla.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* Selector labels of one piece. Call with (dict "root" $ "name" "argocd"). */}}
{{- define "flotilla.componentSelectorLabels" -}}
{{ include "flotilla.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* The ServiceAccount the pods run as. */}}
{{- define "flotilla.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "flotilla.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image reference: repository@digest when a digest is set, else repository:tag (tag defaults to appVersion). */}}
{{- define "flotilla.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The Secret holding the tokens: secrets.existingSecret, or the one this chart creates. */}}
{{- define "flotilla.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- include "flotilla.suffixedName" (dict "root" . "name" "secrets") }}
{{- end }}
{{- end }}

{{/*
One environment variable from a key of the tokens Secret. Optional: a piece that needs the value refuses to start
with a config error naming the variable, which is clearer than a pod stuck in CreateContainerConfigError.
Call with (dict "root" $ "env" "FLOTILLA_ARGOCD_TOKEN" "key" "argocd-token").
*/}}
{{- define "flotilla.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.secretName" .root }}
      key: {{ .key }}
      optional: true
{{- end }}

{{/* The supervisor's in-cluster URL (for the Slack bot). */}}
{{- define "flotilla.supervisorUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "flotilla.componentFullname" (dict "root" . "name" "supervisor")) .Release.Namespace (int .Values.supervisor.port) }}
{{- end }}

{{/*
FLOTILLA_AGENTS for the supervisor: supervisor.agents, or, when that list is empty and discovery is off, the
domain agents this release deploys.
*/}}
{{- define "flotilla.staticAgents" -}}
{{- $pairs := list }}
{{- range .Values.supervisor.agents }}
{{- $pairs = append $pairs (printf "%s=%s" .name .url) }}
{{- end }}
{{- if and (not $pairs) (not .Values.supervisor.discovery.enabled) }}
{{- range $key := list "argocd" "netbox" }}
{{- $v := index $.Values $key }}
{{- if $v.enabled }}
{{- $pairs = append $pairs (printf "%s=http://%s.%s.svc:%d" $key (include "flotilla.componentFullname" (dict "root" $ "name" $key)) $.Release.Namespace (int $v.port)) }}
{{- end }}
{{- end }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/* The namespace the supervisor discovers agents in: supervisor.discovery.namespace, else the release's. */}}
{{- define "flotilla.discoveryNamespace" -}}
{{- .Values.supervisor.discovery.namespace | default .Release.Namespace }}
{{- end }}

{{/*
The LLM settings of one domain agent, as YAML (read it with fromYaml): the shared llm values with the agent's own
<key>.llm merged over them (an empty or null key keeps the shared value). Call with (dict "root" $ "key" "argocd").
*/}}
{{- define "flotilla.llm" -}}
{{- $own := (index .root.Values .key).llm | default dict }}
{{- mergeOverwrite (deepCopy .root.Values.llm) (deepCopy $own) | toYaml }}
{{- end }}

{{/*
The LLM mode variables of one domain agent; nothing when its provider is none. The API key comes only from a
Secret (secretKeyRef). Fails when the provider needs a key and none is named. Call with (dict "root" $ "key" "argocd").
*/}}
{{- define "flotilla.llmEnv" -}}
{{- $llm := include "flotilla.llm" . | fromYaml }}
{{- if ne $llm.provider "none" }}
{{- $secret := $llm.apiKeySecret | default dict }}
{{- if and (not $secret.name) (eq $llm.provider "anthropic") }}
{{- fail (printf "%s: llm.provider anthropic needs llm.apiKeySecret.name (an existing Secret holding the API key)" .key) }}
{{- end }}
{{- if and (not $secret.name) (not $llm.baseUrl) }}
{{- fail (printf "%s: llm.provider %s needs llm.apiKeySecret.name (an existing Secret holding the API key), or llm.baseUrl of an OpenAI-compatible server that takes no key" .key $llm.provider) }}
{{- end }}
{{- if and $secret.name (not $secret.key) }}
{{- fail (printf "%s: llm.apiKeySecret.key is empty (the key of the API key in Secret %s)" .key $secret.name) }}
{{- end }}
- name: FLOTILLA_LLM_PROVIDER
  value: {{ $llm.provider | quote }}
{{- with $llm.model }}
- name: FLOTILLA_LLM_MODEL
  value: {{ . | quote }}
{{- end }}
{{- with $llm.baseUrl }}
- name: FLOTILLA_LLM_BASE_URL
  value: {{ . | quote }}
{{- end }}
{{- if $secret.name }}
- name: FLOTILLA_LLM_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $secret.name }}
      key: {{ $secret.key }}
{{- end }}
{{- if not (kindIs "invalid" $llm.maxContextTokens) }}
- name: MAX_CONTEXT_TOKENS
  value: {{ $llm.maxContextTokens | int64 | toString | quote }}
{{- end }}
{{- if not (kindIs "invalid" $llm.minMessagesToKeep) }}
- name: MIN_MESSAGES_TO_KEEP
  value: {{ $llm.minMessagesToKeep | int64 | toString | quote }}
{{- end }}
- name: FLOTILLA_TOOL_DISCOVERY
  value: {{ $llm.toolDiscovery | default "index" | quote }}
{{- end }}
{{- end }}

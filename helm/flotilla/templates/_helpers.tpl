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
One domain agent's values: agents.<name> merged over agentDefaults (what an entry leaves out), with title and
envPrefix filled in (the name; FLOTILLA_<NAME>). As YAML: read it with fromYaml. Call with (dict "root" $ "name"
"my-agent").
*/}}
{{- define "flotilla.agentValues" -}}
{{- $v := mergeOverwrite (deepCopy (.root.Values.agentDefaults | default dict)) (deepCopy (index .root.Values.agents .name | default dict)) }}
{{- $_ := set $v "title" ($v.title | default .name) }}
{{- $_ = set $v "envPrefix" ($v.envPrefix | default (printf "FLOTILLA_%s" (upper .name | replace "-" "_"))) }}
{{- toYaml $v }}
{{- end }}

{{/*
The pieces the chart deploys, as YAML under `components` (read it with fromYaml): the supervisor, then each domain
agent of `agents` (sorted by name), the Slack bot, then each agent's MCP server. Per piece:
  key      the values path of its section, for messages (supervisor, agents.my-agent, agents.my-agent.mcp)
  name     its name in object names and the app.kubernetes.io/component label
  values   its values (an agent's merged over agentDefaults)
  args     the CLI command the image runs
  portEnv  the environment variable of its port
  ready    its readiness path
  agent    the flotilla.io/agent label value on its Service (domain agents only: the supervisor discovers them)
  metrics  whether it serves /metrics (every piece does, on its one port)
  llm      whether it has an LLM mode (the llm values and its own llm apply)
  a2a      whether it serves A2A (and so requires the A2A token: FLOTILLA_A2A_TOKENS, and advertises
           FLOTILLA_PUBLIC_URL in its card)
  redis    whether it keeps shared state in Redis (the redis values apply; without Redis it runs one replica at most)
  state    what each replica would keep to itself without Redis (the message refusing several replicas)
  data     whether it reads FLOTILLA_DATA_DIR (spilled tool results; sessions) and so gets the data volume; the
           supervisor and the Slack bot never read it
  mcpFor   for an MCP server: the name of the agent that calls it (its only client; it requires the MCP token), and
           upstream: that agent's title, url, envPrefix and upstreamEnv
*/}}
{{- define "flotilla.components" -}}
{{- $agents := list }}
{{- range $name := keys (.Values.agents | default dict) | sortAlpha }}
{{- $agents = append $agents (include "flotilla.agentValues" (dict "root" $ "name" $name) | fromYaml | merge (dict "name" $name)) }}
{{- end }}
components:
  - key: supervisor
    name: supervisor
    values: {{ toJson .Values.supervisor }}
    args: [supervisor]
    portEnv: FLOTILLA_SUPERVISOR_PORT
    ready: /readyz
    agent: ""
    metrics: true
    llm: false
    a2a: true
    redis: true
    state: conversation routing (which agent answered last, so "next page" goes back to it)
    data: false
{{- range $agents }}
  - key: agents.{{ .name }}
    name: {{ .name }}
    values: {{ toJson (omit . "name") }}
    args: [agent, {{ .name }}]
    portEnv: {{ .envPrefix }}_AGENT_PORT
    ready: /readyz
    agent: {{ .name }}
    metrics: true
    llm: true
    a2a: true
    redis: true
    state: progressive sessions, conversation memory and spilled results
    data: true
{{- end }}
  - key: slackBot
    name: slack-bot
    values: {{ toJson .Values.slackBot }}
    args: [slack]
    portEnv: FLOTILLA_SLACK_PORT
    ready: /readyz
    agent: ""
    metrics: true
    llm: false
    a2a: false
    redis: false
    data: false
{{- range $agents }}
  - key: agents.{{ .name }}.mcp
    name: {{ .name }}-mcp
    values: {{ toJson .mcp }}
    args: [mcp, {{ .name }}]
    portEnv: {{ .envPrefix }}_MCP_PORT
    ready: /readyz
    agent: ""
    metrics: true
    llm: false
    a2a: false
    redis: true
    state: spilled results (read_result on another replica finds nothing)
    data: true
    mcpFor: {{ .name }}
    upstream: {{ toJson (pick . "title" "url" "envPrefix" "upstreamEnv") }}
{{- end }}
{{- end }}

{{/*
The environment variables a piece's values add after the chart's own: env (name: value, sorted by name; a null value
sets nothing), then extraEnv (EnvVar entries as written). Call with the piece's values.
*/}}
{{- define "flotilla.userEnv" -}}
{{- include "flotilla.envMap" .env }}
{{- with .extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* An env map (name: value) as EnvVar entries, sorted by name; a null value sets nothing. Call with the map. */}}
{{- define "flotilla.envMap" -}}
{{- $m := . | default dict }}
{{- range $name := keys $m | sortAlpha }}
{{- $value := index $m $name }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Fails when a piece's env, extraEnv (or an agent's upstreamEnv) sets one of the reserved names, with the message
"<key>.<field> sets <NAME>: <why>". Call with (dict "root" $ "reserved" (list ...) "why" "...").
*/}}
{{- define "flotilla.reservedEnvCheck" -}}
{{- $reserved := .reserved }}
{{- $why := .why }}
{{- range $c := (include "flotilla.components" .root | fromYaml).components }}
{{- range $field := list "env" "upstreamEnv" }}
{{- range $name := keys ((index $c.values $field) | default dict) | sortAlpha }}
{{- if has $name $reserved }}
{{- fail (printf "%s.%s sets %s: %s" $c.key $field $name $why) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $c.values.extraEnv }}
{{- if has .name $reserved }}
{{- fail (printf "%s.extraEnv sets %s: %s" $c.key .name $why) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Checks of the agents values the schema cannot express: an enabled agent or MCP server has a port, an MCP server has
its agent's url; and the values of chart 0.x that moved under `agents` (helm/README.md, Upgrading): a top-level
<name>, <name>Mcp or secrets.<name>Token whose <name> is an agent fails naming the new path.
*/}}
{{- define "flotilla.agentsCheck" -}}
{{- $agents := .Values.agents | default dict }}
{{- range $key := keys .Values | sortAlpha }}
{{- if hasKey $agents $key }}
{{- fail (printf "%s moved to agents.%s (same keys; the upstream token to agents.%s.token, rateLimit and rateBurst to upstreamEnv, persistSessions to sessions.persist): see helm/README.md, Upgrading" $key $key $key) }}
{{- end }}
{{- if and (hasSuffix "Mcp" $key) (hasKey $agents (trimSuffix "Mcp" $key)) }}
{{- fail (printf "%s moved to agents.%s.mcp (same keys): see helm/README.md, Upgrading" $key (trimSuffix "Mcp" $key)) }}
{{- end }}
{{- end }}
{{- range $key := keys (.Values.secrets | default dict) | sortAlpha }}
{{- if and (hasSuffix "Token" $key) (hasKey $agents (trimSuffix "Token" $key)) }}
{{- fail (printf "secrets.%s moved to agents.%s.token (the key %s-token of the tokens Secret): see helm/README.md, Upgrading" $key (trimSuffix "Token" $key) (trimSuffix "Token" $key)) }}
{{- end }}
{{- end }}
{{- range $c := (include "flotilla.components" . | fromYaml).components }}
{{- if and (or $c.agent $c.mcpFor) $c.values.enabled }}
{{- if kindIs "invalid" $c.values.port }}
{{- fail (printf "%s.port is not set: each %s needs its own port (its container and Service port)" $c.key (ternary "MCP server" "agent" (not (empty $c.mcpFor)))) }}
{{- end }}
{{- if $c.mcpFor }}
{{- if not $c.upstream.url }}
{{- fail (printf "%s.enabled needs agents.%s.url: the %s API the MCP server calls" $c.key $c.mcpFor $c.upstream.title) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
<fullname>-<suffix> within 63 characters: the fullname is cut, never the suffix, so names stay distinct.
Call with (dict "root" $ "name" "my-agent").
*/}}
{{- define "flotilla.suffixedName" -}}
{{- $base := include "flotilla.fullname" .root | trunc (int (sub 62 (len .name))) | trimSuffix "-" }}
{{- printf "%s-%s" $base .name }}
{{- end }}

{{/* The name of one piece's objects: <fullname>-<component>. Call with (dict "root" $ "name" "my-agent"). */}}
{{- define "flotilla.componentFullname" -}}
{{- include "flotilla.suffixedName" . }}
{{- end }}

{{/* Labels of one piece's objects. Call with (dict "root" $ "name" "my-agent"). */}}
{{- define "flotilla.componentLabels" -}}
{{ include "flotilla.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* Selector labels of one piece. Call with (dict "root" $ "name" "my-agent"). */}}
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

{{/*
The image reference of a piece: its own image keys (repository, tag, digest; empty keeps the top-level one) over
`image`; repository@digest when a digest is set, else repository:tag (tag defaults to appVersion). A piece's own tag
drops the top-level digest. Call with (dict "root" $ "image" $values.image).
*/}}
{{- define "flotilla.image" -}}
{{- $own := .image | default dict }}
{{- $i := .root.Values.image }}
{{- $repository := $own.repository | default $i.repository }}
{{- $digest := $own.digest | default (ternary "" $i.digest (not (empty $own.tag))) }}
{{- if $digest }}
{{- printf "%s@%s" $repository $digest }}
{{- else }}
{{- printf "%s:%s" $repository ($own.tag | default $i.tag | default .root.Chart.AppVersion) }}
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
Call with (dict "root" $ "env" "FLOTILLA_MY_AGENT_TOKEN" "key" "my-agent-token").
*/}}
{{- define "flotilla.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.secretName" .root }}
      key: {{ .key }}
      optional: true
{{- end }}

{{/*
Credentials of one hop, kind "a2a" (callers → supervisor → domain agents) or "mcp" (domain agents → the MCP servers
this chart deploys). Each lives in one Secret: <kind>.existingSecret, or the one this chart creates
(<fullname>-<kind>), under the key token (and previousToken during a rotation). Call each helper below with
(dict "root" $ "kind" "a2a").
*/}}
{{- define "flotilla.tokenSecretName" -}}
{{- $v := index .root.Values .kind }}
{{- if $v.existingSecret }}
{{- $v.existingSecret }}
{{- else }}
{{- include "flotilla.suffixedName" (dict "root" .root "name" .kind) }}
{{- end }}
{{- end }}

{{/* "true" when the servers of the hop also accept the Secret's previousToken (a rotation in progress), else empty. */}}
{{- define "flotilla.tokenRotating" -}}
{{- $v := index .root.Values .kind }}
{{- if $v.existingSecret }}
{{- if $v.acceptPreviousToken }}true{{ end }}
{{- else if $v.previousToken }}true{{ end }}
{{- end }}

{{/*
The token of the chart's own Secret of the hop: <kind>.token; else the one already in that Secret (lookup, so
upgrades keep it); else a new random one. lookup finds nothing under helm template, helm lint or --dry-run: there
every render draws a new token.
*/}}
{{- define "flotilla.tokenValue" -}}
{{- $v := index .root.Values .kind }}
{{- if $v.token }}
{{- $v.token }}
{{- else }}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "flotilla.tokenSecretName" .) | default dict }}
{{- $current := index ($existing.data | default dict) "token" | default "" | b64dec }}
{{- $current | default (randAlphaNum 40) }}
{{- end }}
{{- end }}

{{/* Checks of a hop's credential values the schema cannot express. Fails with a message naming the values to change. */}}
{{- define "flotilla.tokenCheck" -}}
{{- $a := index .root.Values .kind }}
{{- $k := .kind }}
{{- if and $a.existingSecret (or $a.token $a.previousToken) }}
{{- fail (printf "%s.existingSecret is set: leave %s.token and %s.previousToken empty (put the tokens in that Secret under the keys token and previousToken)" $k $k $k) }}
{{- end }}
{{- if and $a.acceptPreviousToken (not $a.existingSecret) }}
{{- fail (printf "%s.acceptPreviousToken applies to %s.existingSecret only; with the chart's own Secret set %s.previousToken" $k $k $k) }}
{{- end }}
{{- if and $a.previousToken (not $a.token) }}
{{- fail (printf "%s.previousToken needs %s.token (the new token, which the clients send)" $k $k) }}
{{- end }}
{{- if and $a.previousToken (eq $a.previousToken $a.token) }}
{{- fail (printf "%s.previousToken equals %s.token: leave it empty unless rotating" $k $k) }}
{{- end }}
{{- end }}

{{/*
The credentials a server of the hop accepts: <ENV> (FLOTILLA_A2A_TOKENS, FLOTILLA_MCP_TOKEN), built by Kubernetes'
$(VAR) expansion from the Secret's token (and previousToken during a rotation). The references are required, never
optional: a missing Secret or key keeps the pod in CreateContainerConfigError instead of starting an open server
(and a $(VAR) whose variable is missing would stay literal). The trailing comma makes an empty token an error too:
the server reads "," as no token at all and refuses to start, where an empty variable would mean "open".
Call with (dict "root" $ "kind" "a2a" "env" "FLOTILLA_A2A_TOKENS" "current" "FLOTILLA_A2A_TOKEN" "previous"
"FLOTILLA_A2A_PREVIOUS_TOKEN"): the two Secret keys' variables, then the list.
*/}}
{{- define "flotilla.tokenServerEnv" -}}
- name: {{ .current }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.tokenSecretName" . }}
      key: token
{{- if include "flotilla.tokenRotating" . }}
- name: {{ .previous }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.tokenSecretName" . }}
      key: previousToken
- name: {{ .env }}
  value: "$({{ .current }}),$({{ .previous }})"
{{- else }}
- name: {{ .env }}
  value: "$({{ .current }}),"
{{- end }}
{{- end }}

{{/*
The token a client of the hop sends (the current one, key token; required, as above). Call with (dict "root" $
"kind" "a2a" "env" "FLOTILLA_AGENT_TOKEN").
*/}}
{{- define "flotilla.tokenClientEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.tokenSecretName" . }}
      key: token
{{- end }}

{{/* The A2A Secret's name (NOTES, secret.yaml). */}}
{{- define "flotilla.a2aSecretName" -}}
{{- include "flotilla.tokenSecretName" (dict "root" . "kind" "a2a") }}
{{- end }}

{{/* "true" when the chart deploys an MCP server, or an MCP token is configured: then there is an MCP Secret. */}}
{{- define "flotilla.mcpAuth" -}}
{{- $servers := false }}
{{- range $c := (include "flotilla.components" . | fromYaml).components }}
{{- if and $c.mcpFor $c.values.enabled }}
{{- $servers = true }}
{{- end }}
{{- end }}
{{- if or $servers .Values.mcp.token .Values.mcp.existingSecret }}true{{ end }}
{{- end }}

{{/*
"true" when a domain agent sends the MCP token: to this chart's own MCP server (its mcp.enabled, no mcpUrl), or to
its external mcpUrl only when the token was chosen (mcp.token or mcp.existingSecret): a generated token never leaves
the release. Call with (dict "root" $ "values" $agentValues).
*/}}
{{- define "flotilla.agentSendsMcpToken" -}}
{{- $v := .values }}
{{- $own := and $v.mcp.enabled (not $v.mcpUrl) }}
{{- $chosen := and $v.mcpUrl (or .root.Values.mcp.token .root.Values.mcp.existingSecret) }}
{{- if or $own $chosen }}true{{ end }}
{{- end }}

{{/*
Checks of the a2a and mcp values the schema cannot express, and the credential variables reserved to the chart.
*/}}
{{- define "flotilla.a2aCheck" -}}
{{- if .Values.secrets.agentToken }}
{{- fail "secrets.agentToken was removed: the supervisor now sends the A2A token (a2a.token, a2a.existingSecret, or the generated one) that every agent of the release requires; move the value to a2a.token" }}
{{- end }}
{{- include "flotilla.tokenCheck" (dict "root" . "kind" "a2a") }}
{{- include "flotilla.tokenCheck" (dict "root" . "kind" "mcp") }}
{{- $reserved := list "FLOTILLA_A2A_TOKENS" "FLOTILLA_A2A_TOKEN" "FLOTILLA_A2A_PREVIOUS_TOKEN" "FLOTILLA_AGENT_TOKEN" "FLOTILLA_SUPERVISOR_TOKEN" "FLOTILLA_PUBLIC_URL" "FLOTILLA_MCP_TOKEN" "FLOTILLA_MCP_CURRENT_TOKEN" "FLOTILLA_MCP_PREVIOUS_TOKEN" }}
{{- include "flotilla.reservedEnvCheck" (dict "root" . "reserved" $reserved "why" "credentials come from the a2a and mcp values only (the chart always requires them), the public URL from the Service (or agents.<name>.a2aUrl)") }}
{{- end }}

{{/*
The in-cluster URL of one piece's Service: http://<fullname>-<name>.<namespace>.svc:<port>, the same form the
supervisor's discovery builds from a Service. Call with (dict "root" $ "name" "my-agent" "port" 8092).
*/}}
{{- define "flotilla.serviceUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "flotilla.componentFullname" (dict "root" .root "name" .name)) .root.Release.Namespace (int .port) }}
{{- end }}

{{/*
The base URL an A2A piece advertises in its card (FLOTILLA_PUBLIC_URL), which is also the one the supervisor calls
it at: its a2aUrl when set (it is the Service's flotilla.io/a2a-url annotation too), else its Service URL. The
supervisor refuses a card naming another origin than the one it reached the card at, so both must agree.
Call with (dict "root" $ "name" "my-agent" "values" $values).
*/}}
{{- define "flotilla.publicUrl" -}}
{{- .values.a2aUrl | default (include "flotilla.serviceUrl" (dict "root" .root "name" .name "port" .values.port)) | trimSuffix "/" }}
{{- end }}

{{/*
The MCP endpoint a domain agent uses: its mcpUrl when set; else, when this chart deploys the agent's MCP server
(its mcp.enabled), that server's Service URL plus /mcp; else empty (the tools run in the agent's process).
Call with (dict "root" $ "name" "my-agent" "values" $agentValues).
*/}}
{{- define "flotilla.agentMcpUrl" -}}
{{- $v := .values }}
{{- if $v.mcpUrl }}
{{- $v.mcpUrl }}
{{- else if $v.mcp.enabled }}
{{- printf "%s/mcp" (include "flotilla.serviceUrl" (dict "root" .root "name" (printf "%s-mcp" .name) "port" $v.mcp.port)) }}
{{- end }}
{{- end }}

{{/* The supervisor's in-cluster URL (for the Slack bot). */}}
{{- define "flotilla.supervisorUrl" -}}
{{- include "flotilla.serviceUrl" (dict "root" . "name" "supervisor" "port" .Values.supervisor.port) }}
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
{{- range $c := (include "flotilla.components" $ | fromYaml).components }}
{{- if and $c.agent $c.values.enabled }}
{{- $pairs = append $pairs (printf "%s=%s" $c.name (include "flotilla.publicUrl" (dict "root" $ "name" $c.name "values" $c.values))) }}
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
llm merged over them (an empty or null key keeps the shared value). Call with (dict "root" $ "own" $values.llm).
*/}}
{{- define "flotilla.llm" -}}
{{- $own := .own | default dict }}
{{- mergeOverwrite (deepCopy .root.Values.llm) (deepCopy $own) | toYaml }}
{{- end }}

{{/*
The LLM mode variables of one domain agent: FLOTILLA_MODE whenever its llm.mode is set, the others only when its
provider is not none. The API key comes only from a Secret (secretKeyRef). Fails when the provider needs a key and
none is named, and, as the agent itself would refuse to start, on mode llm or hybrid with provider none. Call with
(dict "root" $ "name" "my-agent" "key" "agents.my-agent" "own" $values.llm).
*/}}
{{- define "flotilla.llmEnv" -}}
{{- $llm := include "flotilla.llm" . | fromYaml }}
{{- $mode := $llm.mode | default "" }}
{{- if and (ne $mode "") (ne $mode "rules") (eq $llm.provider "none") }}
{{- fail (printf "%s: llm.mode %s needs a model, but the agent's llm.provider is none: set llm.provider (or %s.llm.provider) to openai or anthropic, or the mode to rules (%s.llm.mode: rules for this agent alone)" .name $mode .key .key) }}
{{- end }}
{{- with $mode }}
- name: FLOTILLA_MODE
  value: {{ . | quote }}
{{- end }}
{{- if ne $llm.provider "none" }}
{{- $secret := $llm.apiKeySecret | default dict }}
{{- if and (not $secret.name) (eq $llm.provider "anthropic") }}
{{- fail (printf "%s: llm.provider anthropic needs llm.apiKeySecret.name (an existing Secret holding the API key)" .name) }}
{{- end }}
{{- if and (not $secret.name) (not $llm.baseUrl) }}
{{- fail (printf "%s: llm.provider %s needs llm.apiKeySecret.name (an existing Secret holding the API key), or llm.baseUrl of an OpenAI-compatible server that takes no key" .name $llm.provider) }}
{{- end }}
{{- if and $secret.name (not $secret.key) }}
{{- fail (printf "%s: llm.apiKeySecret.key is empty (the key of the API key in Secret %s)" .name $secret.name) }}
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

{{/* "true" when the pieces keep their shared state in Redis (redis.url or redis.existingSecret.name), else empty. */}}
{{- define "flotilla.redisEnabled" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret.name }}true{{ end }}
{{- end }}

{{/* The Secret holding the Redis URL: redis.existingSecret.name, or the one this chart creates from redis.url. */}}
{{- define "flotilla.redisSecretName" -}}
{{- if .Values.redis.existingSecret.name }}
{{- .Values.redis.existingSecret.name }}
{{- else }}
{{- include "flotilla.suffixedName" (dict "root" . "name" "redis") }}
{{- end }}
{{- end }}

{{/* The key of the Redis URL in that Secret: redis.existingSecret.key, or redis-url in the chart's own Secret. */}}
{{- define "flotilla.redisSecretKey" -}}
{{- if .Values.redis.existingSecret.name }}
{{- .Values.redis.existingSecret.key }}
{{- else }}
{{- print "redis-url" }}
{{- end }}
{{- end }}

{{/* The Redis key prefix: redis.keyPrefix, else "<release name>:" (releases sharing one Redis stay apart). */}}
{{- define "flotilla.redisKeyPrefix" -}}
{{- .Values.redis.keyPrefix | default (printf "%s:" .Release.Name) }}
{{- end }}

{{/*
Checks of the redis values the schema cannot express, and the replicas they allow. Fails with a message naming the
values to change: without Redis every replica of a domain agent keeps its own sessions, conversation memory and
spilled results, every supervisor replica its own routing memory (which agent answered last), and every MCP server
replica its own spilled results, so a follow-up ("next page", "next batch") that lands on another replica finds
nothing.
*/}}
{{- define "flotilla.redisCheck" -}}
{{- $r := .Values.redis }}
{{- if and $r.existingSecret.name $r.url }}
{{- fail "redis.existingSecret.name is set: leave redis.url empty (put the URL in that Secret, under redis.existingSecret.key)" }}
{{- end }}
{{- if and $r.existingSecret.name (not $r.existingSecret.key) }}
{{- fail (printf "redis.existingSecret.key is empty (the key of the Redis URL in Secret %s)" $r.existingSecret.name) }}
{{- end }}
{{- $reserved := list "FLOTILLA_REDIS_URL" "FLOTILLA_REDIS_KEY_PREFIX" }}
{{- include "flotilla.reservedEnvCheck" (dict "root" . "reserved" $reserved "why" "Redis comes from the redis values only (redis.url or redis.existingSecret, read through a Secret; redis.keyPrefix)") }}
{{- if not (include "flotilla.redisEnabled" .) }}
{{- range $c := (include "flotilla.components" $ | fromYaml).components }}
{{- $v := $c.values }}
{{- if and $c.redis $v.enabled (gt (int $v.replicas) 1) }}
{{- fail (printf "%s.replicas is %d but Redis is not configured: each replica would keep its own %s, so a \"next page\" or \"next batch\" answered by another replica would fail. Set redis.url or redis.existingSecret.name (shared state), or %s.replicas to 1" $c.key (int $v.replicas) $c.state $c.key) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The Redis variables of a piece that shares its state (the supervisor, the domain agents, the MCP servers); nothing
without Redis. The URL (it may hold a password) comes only from a Secret, through a required secretKeyRef: a missing
Secret or key keeps the pod in CreateContainerConfigError instead of starting it without Redis (replicas that would
not share their state).
*/}}
{{- define "flotilla.redisEnv" -}}
{{- if include "flotilla.redisEnabled" . }}
- name: FLOTILLA_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "flotilla.redisSecretName" . }}
      key: {{ include "flotilla.redisSecretKey" . }}
- name: FLOTILLA_REDIS_KEY_PREFIX
  value: {{ include "flotilla.redisKeyPrefix" . | quote }}
{{- end }}
{{- end }}

{{/*
Bytes of a Kubernetes quantity (a memory request or limit, an emptyDir sizeLimit), as a float: plain bytes (a number
from a values file is a float), or a number with one suffix, Ki Mi Gi Ti (powers of 1024) or k K M G T (powers of
1000). Fails naming the value on anything else. Read it with float64. Call with (dict "value" "512Mi" "name"
"agents.my-agent.resources.limits.memory").
*/}}
{{- define "flotilla.bytes" -}}
{{- $q := ternary (printf "%f" .value) (toString .value) (kindIs "float64" .value) | trim }}
{{- if not (regexMatch "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|K|M|G|T)?$" $q) }}
{{- fail (printf "%s is %q: write a size as plain bytes or a number with one of the suffixes Ki, Mi, Gi, Ti, k, M, G, T (e.g. 512Mi)" .name $q) }}
{{- end }}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $q }}
{{- $scale := dict "" 1.0 "k" 1000.0 "K" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 }}
{{- mulf (float64 $number) (get $scale (trimPrefix $number $q)) }}
{{- end }}

{{/*
Seconds of a Prometheus duration (ms s m h d w y, possibly combined: 1m30s), as a float; the schema checks the
syntax. Read it with float64.
*/}}
{{- define "flotilla.seconds" -}}
{{- $scale := dict "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0 "d" 86400.0 "w" 604800.0 "y" 31536000.0 }}
{{- $total := 0.0 }}
{{- range regexFindAll "[0-9]+(ms|s|m|h|d|w|y)" (toString .) -1 }}
{{- $number := regexFind "^[0-9]+" . }}
{{- $total = addf $total (mulf (float64 $number) (get $scale (trimPrefix $number .))) }}
{{- end }}
{{- $total }}
{{- end }}

{{/* The port of a URL: its own, else its scheme's (http 80, https 443, redis and rediss 6379). */}}
{{- define "flotilla.urlPort" -}}
{{- $url := urlParse . }}
{{- with regexFind ":[0-9]+$" $url.host }}
{{- trimPrefix ":" . }}
{{- else }}
{{- get (dict "http" "80" "https" "443" "redis" "6379" "rediss" "6379") $url.scheme | default "443" }}
{{- end }}
{{- end }}

{{/*
Memory ceilings of every piece, in bytes: a limit above 4Gi or a request above 2Gi is refused (the design note's
sizing; helm/README.md, Sizing).
*/}}
{{- define "flotilla.memoryLimitMax" -}}4294967296{{- end }}
{{- define "flotilla.memoryRequestMax" -}}2147483648{{- end }}

{{/*
Checks of values the schema cannot compare, each failing with a message that names the values and what to do:
  - per enabled piece: memory request and limit above zero, within the ceilings, and the request at most the limit
    (the API server refuses a request above the limit);
  - the data volume (storage.dataSizeLimit) at least what the result store may hold at its peak (storage.resultDiskCapMiB,
    plus one result being written, plus the sessions of the agents that persist them) when a piece spills tool results
    to it (a domain agent running its tools in process, or an MCP server, without Redis):
    the kubelet evicts a pod whose emptyDir outgrows its sizeLimit; /tmp above zero;
  - with the ServiceMonitor: interval and scrapeTimeout above zero, the timeout at most the interval (Prometheus
    refuses a longer timeout).
*/}}
{{- define "flotilla.valuesCheck" -}}
{{- $limitMax := include "flotilla.memoryLimitMax" . | float64 }}
{{- $requestMax := include "flotilla.memoryRequestMax" . | float64 }}
{{- range $c := (include "flotilla.components" $ | fromYaml).components }}
{{- $v := $c.values }}
{{- if $v.enabled }}
{{- $limitName := printf "%s.resources.limits.memory" $c.key }}
{{- $requestName := printf "%s.resources.requests.memory" $c.key }}
{{- $limitValue := $v.resources.limits.memory }}
{{- $requestValue := $v.resources.requests.memory }}
{{- $limit := include "flotilla.bytes" (dict "value" $limitValue "name" $limitName) | float64 }}
{{- $request := include "flotilla.bytes" (dict "value" $requestValue "name" $requestName) | float64 }}
{{- if le $limit 0.0 }}
{{- fail (printf "%s is %v, which is zero: the container could not start. Set a memory limit above zero, e.g. 512Mi (the V8 heap gets %s.heapPercent of it)" $limitName $limitValue $c.key) }}
{{- end }}
{{- if le $request 0.0 }}
{{- fail (printf "%s is %v, which is zero: the scheduler would reserve no memory for the pod. Set a memory request above zero, e.g. 256Mi" $requestName $requestValue) }}
{{- end }}
{{- if gt $limit $limitMax }}
{{- fail (printf "%s is %v, above the chart's ceiling of 4Gi: set it to at most 4Gi (helm/README.md, Sizing)" $limitName $limitValue) }}
{{- end }}
{{- if gt $request $requestMax }}
{{- fail (printf "%s is %v, above the chart's ceiling of 2Gi: set it to at most 2Gi (helm/README.md, Sizing)" $requestName $requestValue) }}
{{- end }}
{{- if gt $request $limit }}
{{- fail (printf "%s (%v) is above %s (%v): the API server refuses a request above the limit. Lower the request or raise the limit" $requestName $requestValue $limitName $limitValue) }}
{{- end }}
{{- end }}
{{- end }}
{{- $s := .Values.storage }}
{{- $volume := include "flotilla.bytes" (dict "value" $s.dataSizeLimit "name" "storage.dataSizeLimit") | float64 }}
{{- if le $volume 0.0 }}
{{- fail (printf "storage.dataSizeLimit is %v, which is zero: the kubelet would evict the pods at their first write. Set it above zero, e.g. 512Mi" $s.dataSizeLimit) }}
{{- end }}
{{- if le (include "flotilla.bytes" (dict "value" $s.tmpSizeLimit "name" "storage.tmpSizeLimit") | float64) 0.0 }}
{{- fail (printf "storage.tmpSizeLimit is %v, which is zero: the kubelet would evict the pods at their first write to /tmp. Set it above zero, e.g. 64Mi" $s.tmpSizeLimit) }}
{{- end }}
{{- $spillers := list }}
{{- $sessions := list }}
{{- /* At its peak the store holds its cap plus the result being written before the oldest go (one result: 64 MiB, or
the cap when smaller); an agent that persists its sessions keeps them (sessions.sizeMiB at most) on the same volume. */}}
{{- $capMiB := int $s.resultDiskCapMiB }}
{{- $needMiB := add $capMiB (min 64 $capMiB) }}
{{- if not (include "flotilla.redisEnabled" .) }}
{{- range $c := (include "flotilla.components" $ | fromYaml).components }}
{{- $v := $c.values }}
{{- if and $c.mcpFor $v.enabled }}
{{- $spillers = append $spillers $c.name }}
{{- end }}
{{- if and $c.agent $v.enabled }}
{{- if not (include "flotilla.agentMcpUrl" (dict "root" $ "name" $c.name "values" $v)) }}
{{- $spillers = append $spillers $c.name }}
{{- end }}
{{- if and $v.sessions.persist (gt (int $v.sessions.sizeMiB) 0) }}
{{- $sessions = append $sessions (printf " plus the %s agent's sessions (%d MiB)" $v.title (int $v.sessions.sizeMiB)) }}
{{- $needMiB = add $needMiB (int $v.sessions.sizeMiB) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $spillers (lt $volume (mulf $needMiB 1048576.0)) }}
{{- fail (printf "storage.dataSizeLimit (%v) is smaller than what the result store of %s may hold on it: storage.resultDiskCapMiB (%d MiB) plus the result being written before the oldest go (%d MiB)%s, %d MiB in all. The kubelet evicts a pod whose data volume outgrows its sizeLimit: raise storage.dataSizeLimit to at least %dMi, or lower storage.resultDiskCapMiB" $s.dataSizeLimit (join ", " $spillers) $capMiB (min 64 $capMiB) (join "" $sessions) $needMiB $needMiB) }}
{{- end }}
{{- $sm := .Values.serviceMonitor }}
{{- if $sm.enabled }}
{{- $interval := include "flotilla.seconds" $sm.interval | float64 }}
{{- $timeout := include "flotilla.seconds" $sm.scrapeTimeout | float64 }}
{{- if le $interval 0.0 }}
{{- fail (printf "serviceMonitor.interval is %s, which is zero: set a scrape interval above zero, e.g. 30s" $sm.interval) }}
{{- end }}
{{- if le $timeout 0.0 }}
{{- fail (printf "serviceMonitor.scrapeTimeout is %s, which is zero: set a scrape timeout above zero and at most the interval, e.g. 10s" $sm.scrapeTimeout) }}
{{- end }}
{{- if gt $timeout $interval }}
{{- fail (printf "serviceMonitor.scrapeTimeout (%s) is longer than serviceMonitor.interval (%s): Prometheus refuses a scrape timeout greater than the scrape interval. Set scrapeTimeout to at most the interval (e.g. 10s with 30s), or lengthen the interval" $sm.scrapeTimeout $sm.interval) }}
{{- end }}
{{- end }}
{{- end }}

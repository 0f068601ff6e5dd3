#!/usr/bin/env bash
# Entrypoint of the Flotilla image: sizes the V8 heap to the container's memory limit, then execs the CLI.
#
#   docker run IMAGE mcp argocd        # the piece to start comes from the arguments...
#   docker run -e FLOTILLA_COMPONENT='sim argocd' IMAGE   # ...or, with no arguments, from FLOTILLA_COMPONENT
#
# Heap: V8 sizes its old space from the host's memory, not the cgroup's, so a pod with a 512 MiB limit can be
# OOM-killed before V8 ever collects hard. We set --max-old-space-size to FLOTILLA_HEAP_PERCENT (default 75)
# percent of the limit, leaving the rest for code, buffers, stacks and native memory (tokenizer ranks, sockets).
#   - limit from the process's own cgroup (read from /proc/self/cgroup) and its ancestors, the smallest wins:
#     cgroup v2 (memory.max) or cgroup v1 (memory/memory.limit_in_bytes). With a cgroup namespace (a container)
#     the own cgroup is the mount root; without one (a pod's process seen from the host, a systemd service) it is
#     a folder below it, and the root's file would be the whole machine's;
#   - no limit ("max", a v1 "unlimited" sentinel, or no cgroup file): no flag, node's own default applies;
#   - NODE_OPTIONS that already sets --max-old-space-size is left exactly as it is.
#
# Test hooks (used by test/deploy/entrypoint.test.ts, harmless in production):
#   FLOTILLA_CGROUP_ROOT  where the cgroup filesystem is mounted (default /sys/fs/cgroup)
#   FLOTILLA_PROC_SELF_CGROUP  the process's cgroup membership file (default /proc/self/cgroup)
#   FLOTILLA_NODE_BIN     the node binary to exec (default node)
#   FLOTILLA_CLI_MAIN     the CLI entry file (default /app/packages/cli/dist/bundle/flotilla.mjs, the bundle;
#                         /app/packages/cli/dist/main.js runs the same CLI unbundled)
set -euo pipefail

readonly cgroup_root="${FLOTILLA_CGROUP_ROOT:-/sys/fs/cgroup}"
readonly proc_self_cgroup="${FLOTILLA_PROC_SELF_CGROUP:-/proc/self/cgroup}"
readonly node_bin="${FLOTILLA_NODE_BIN:-node}"
readonly cli_main="${FLOTILLA_CLI_MAIN:-/app/packages/cli/dist/bundle/flotilla.mjs}"
readonly heap_percent="${FLOTILLA_HEAP_PERCENT:-75}"

# A cgroup v1 "no limit" is PAGE_COUNTER_MAX rounded to the page size (9223372036854771712 on 4 KiB pages);
# anything at or above 1 PiB is treated as no limit. Also keeps the arithmetic below far from 64-bit overflow.
readonly unlimited_bytes=$((1 << 50))

fail() {
  printf 'flotilla entrypoint: %s\n' "$1" >&2
  exit 64
}

if ! [[ "$heap_percent" =~ ^[0-9]{1,3}$ ]] || ((10#$heap_percent < 10 || 10#$heap_percent > 100)); then
  fail "FLOTILLA_HEAP_PERCENT must be a whole number from 10 to 100 (got \"${heap_percent}\")"
fi

# Prints the smallest limit in bytes found in file $3 of folder $1$2 and of each of its ancestors up to $1, or
# nothing. "max" (v2 unlimited), empty or anything unexpected is no limit; at most 18 digits rules out overflow.
smallest_limit() {
  local top="$1" rel="$2" file="$3" best='' raw
  # Never leave the cgroup mount.
  if [[ "$rel" == *..* ]]; then rel=''; fi
  rel="${rel%/}"
  while true; do
    if [[ -r "${top}${rel}/${file}" ]]; then
      raw="$(<"${top}${rel}/${file}")"
      raw="${raw//[[:space:]]/}"
      if [[ "$raw" =~ ^[0-9]{1,18}$ ]] && ((10#$raw > 0 && 10#$raw < unlimited_bytes)); then
        if [[ -z "$best" ]] || ((10#$raw < best)); then best=$((10#$raw)); fi
      fi
    fi
    if [[ -z "$rel" ]]; then break; fi
    rel="${rel%/*}"
  done
  if [[ -n "$best" ]]; then printf '%d\n' "$best"; fi
}

# Prints the container memory limit in bytes, or nothing when there is none: the process's own cgroup from
# /proc/self/cgroup (v2 line "0::/path"; v1 line whose controllers include memory), v2 first, then v1.
memory_limit_bytes() {
  local line v2='' v1='' limit=''
  if [[ -r "$proc_self_cgroup" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do
      if [[ "$line" == 0::* ]]; then
        v2="${line#0::}"
      elif [[ "$line" =~ ^[0-9]+:([^:]*,)?memory(,[^:]*)?:(.*)$ ]]; then
        v1="${BASH_REMATCH[3]}"
      fi
    done <"$proc_self_cgroup"
  fi
  limit="$(smallest_limit "$cgroup_root" "$v2" memory.max)"
  if [[ -z "$limit" ]]; then limit="$(smallest_limit "${cgroup_root}/memory" "$v1" memory.limit_in_bytes)"; fi
  if [[ -n "$limit" ]]; then printf '%d\n' "$limit"; fi
}

case " ${NODE_OPTIONS:-} " in
  *' --max-old-space-size='* | *' --max_old_space_size='* | *' --max-old-space-size '* | *' --max_old_space_size '*)
    : # the user chose a heap size: keep it
    ;;
  *)
    limit="$(memory_limit_bytes)"
    if [[ -n "$limit" ]]; then
      heap_mib=$((limit * 10#$heap_percent / 100 / 1048576))
      if ((heap_mib > 0)); then
        export NODE_OPTIONS="${NODE_OPTIONS:+${NODE_OPTIONS} }--max-old-space-size=${heap_mib}"
      fi
    fi
    ;;
esac

# The piece to start: the arguments if any, else FLOTILLA_COMPONENT (e.g. "mcp argocd"), else the CLI's help.
if (($# == 0)); then
  if [[ -n "${FLOTILLA_COMPONENT:-}" ]]; then
    read -r -a component <<<"$FLOTILLA_COMPONENT"
    set -- "${component[@]}"
  else
    set -- --help
  fi
fi

# exec: node replaces this shell, so the SIGTERM that tini forwards reaches node itself.
exec "$node_bin" "$cli_main" "$@"

#!/usr/bin/env bash
# bench-machine: what a benchmark ran on, for its report: the CPU model,
# and the load average before and after the run, with a warning when other
# work already shared the CPUs (figures then come out lower and noisier).
# Sourced by the benchmark scripts; run alone, it prints the "before" part.

# bench_machine_before prints the CPU and the load average; it warns on
# standard error when the 1-minute load is above BENCH_MAX_LOAD (0.5).
bench_machine_before() {
	local model load
	model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
	[ -n "$model" ] || model="unknown ($(uname -m))"
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "cpu: $model, $(nproc) CPUs"
	# How the kernel backs a large heap: with huge pages only where asked
	# ("madvise"), edge serve asks (--huge-pages); a hit's misses cost more
	# without them (docs/edge.md).
	local thp
	thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
	echo "transparent huge pages: ${thp:-unknown}; hypervisor: $(grep -q '^flags.* hypervisor' /proc/cpuinfo && echo yes || echo no)"
	echo "load average before: $load"
	if awk -v l="${load%% *}" -v max="${BENCH_MAX_LOAD:-0.5}" 'BEGIN {exit !(l > max)}'; then
		echo "warning: load average ${load%% *} before the run is above ${BENCH_MAX_LOAD:-0.5}:" \
			"other work shares the CPUs, so the figures are lower and noisier than on an idle machine" >&2
	fi
}

# bench_machine_after prints the load average at the end of the run.
bench_machine_after() {
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	bench_machine_before
fi

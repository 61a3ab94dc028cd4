#!/usr/bin/env bash
# bench-machine: what a benchmark ran on, for its report: the CPU model,
# and the load average before and after the run, with a warning when other
# work already shared the CPUs (figures then come out lower and noisier);
# how fast one CPU ran a fixed loop and filled memory before the run, and
# the share of the CPUs' time the hypervisor took (steal) over it. A
# virtual machine of one kind is not always as fast: on one day its
# servers took 1.5 to 2 times the CPU a request that they took the day
# before, with no load and little steal, so a figure compared across runs
# needs these beside it.
# Sourced by the benchmark scripts; run alone, it prints the "before" part.

# bench_machine_before prints the CPU and the load average; it warns on
# standard error when the 1-minute load is above BENCH_MAX_LOAD (0.5).
# It first waits, up to BENCH_SETTLE seconds (120), for that load to fall
# to BENCH_MAX_LOAD: a make target builds before its benchmark starts,
# and the build's own load (2 or more on 2 CPUs) takes a minute and a half
# to leave the 1-minute average, which otherwise says "other work" of
# what is only the benchmark's own build, and measures its first rounds
# beside the tail of it.
bench_machine_before() {
	local model load
	model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
	[ -n "$model" ] || model="unknown ($(uname -m))"
	bench_settle
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "cpu: $model$(bench_cpu_kind), $(nproc) CPUs"
	# How the kernel backs a large heap: with huge pages only where asked
	# ("madvise"), edge serve asks (--huge-pages); a hit's misses cost more
	# without them (docs/edge.md).
	local thp
	thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
	echo "transparent huge pages: ${thp:-unknown}; hypervisor: $(grep -q '^flags.* hypervisor' /proc/cpuinfo && echo yes || echo no)"
	echo "load average before: $load"
	echo "one CPU: $(bench_loop_ms) ms for a fixed loop, $(bench_fill_gbs) GB/s filling memory (bench_loop_ms, bench_fill_gbs)"
	bench_stat_before=$(head -1 /proc/stat 2>/dev/null || true)
	if bench_load_high "${load%% *}"; then
		echo "warning: load average ${load%% *} before the run is above ${BENCH_MAX_LOAD:-0.5}:" \
			"other work shares the CPUs, so the figures are lower and noisier than on an idle machine" >&2
	fi
}

# bench_cpu_kind is the CPU's family and model numbers, and its L3, as
# ", family 26 model 2, L3 32 MiB": a model name such as "AMD EPYC" names
# machines of several generations (Zen 3 is family 25, Zen 5 family 26),
# whose figures differ by more than any change measured on them.
bench_cpu_kind() {
	local fam mod l3
	fam=$(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
	mod=$(sed -n 's/^model[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
	l3=$(bench_l3_mib)
	[ -z "$fam" ] || printf ', family %s model %s' "$fam" "$mod"
	[ "$l3" -eq 0 ] || printf ', L3 %s MiB' "$l3"
}

# bench_l3_mib is the size of the L3 in MiB, 0 when the kernel does not say.
bench_l3_mib() {
	local l3
	l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo 0K)
	case $l3 in
	*K) echo $((${l3%K} / 1024)) ;;
	*M) echo "${l3%M}" ;;
	*) echo 0 ;;
	esac
}

# bench_load_high says whether a 1-minute load (the argument, else now's)
# is above BENCH_MAX_LOAD.
bench_load_high() {
	awk -v l="${1:-$(cut -d' ' -f1 /proc/loadavg)}" -v max="${BENCH_MAX_LOAD:-0.5}" 'BEGIN {exit !(l > max)}'
}

# bench_settle waits while the 1-minute load is above BENCH_MAX_LOAD, for
# BENCH_SETTLE seconds (120) at most, and says how long it waited.
bench_settle() {
	local waited=0 from
	from=$(cut -d' ' -f1 /proc/loadavg)
	while [ "$waited" -lt "${BENCH_SETTLE:-120}" ] && bench_load_high; do
		sleep 5
		waited=$((waited + 5))
	done
	[ "$waited" -eq 0 ] || echo "waited ${waited} s for the load to settle (1-minute load $from, now $(cut -d' ' -f1 /proc/loadavg))"
}

# bench_machine_after prints the load average at the end of the run, and
# the hypervisor's share of the CPUs' time since bench_machine_before.
bench_machine_after() {
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${bench_stat_before:-}" ] || return 0
	# /proc/stat's first line: cpu user nice system idle iowait irq softirq
	# steal guest guest_nice (guest time is counted in user too).
	awk -v a="$bench_stat_before" -v b="$(head -1 /proc/stat)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		for (i = 2; i <= 9; i++) all += y[i] - x[i]
		if (all > 0) printf "steal: %.1f %% of the CPUs\047 time over the run\n", 100 * (y[9] - x[9]) / all
	}'
}

# bench_loop_ms is how long one CPU takes for a fixed loop of awk, in
# milliseconds: the machine's speed at this moment, beside the load. The
# loop runs on the last CPU, which the benchmarks give their clients.
bench_loop_ms() {
	local t0 t1 cpu=$(($(nproc) - 1))
	t0=$(date +%s%N)
	taskset -c "$cpu" awk 'BEGIN { for (i = 0; i < 5000000; i++) s += i % 7; exit s < 0 }'
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

# bench_fill_gbs is how fast one CPU fills memory, in GB/s: buffers of
# twice the machine's L3 (64 MiB at least; the Zen 3's L3 is 32 MiB, the
# Intel's measured here 260 MiB) read from /dev/zero, at least 2 GiB and
# 16 buffers in all, so that the figure is the memory's and not a cache's
# nor the first touch of the buffer's pages. A hit's misses of the
# processor's caches are much of the edge's own work (docs/edge.md), and
# a loop in the L1 does not see what slows them.
bench_fill_gbs() {
	local cpu=$(($(nproc) - 1)) mib
	mib=$(bench_l3_mib)
	mib=$((2 * mib > 64 ? 2 * mib : 64))
	LC_ALL=C taskset -c "$cpu" dd if=/dev/zero of=/dev/null bs="${mib}M" count=$((2048 / mib > 16 ? 2048 / mib : 16)) 2>&1 |
		awk '/copied/ { printf "%.1f", $1 / $(NF - 3) / 1e9 }'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	bench_machine_before
fi

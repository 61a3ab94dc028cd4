# bench-scale-edge: what bench-scale.sh and bench-scale-ab.sh ask of the
# edges they run. Sourced.
#
#   free_port            a port free on 127.0.0.1, and the one after it (for
#                        --debug-listen): other benchmarks may run on the
#                        machine, and an answer from their edge would be
#                        measured as ours
#   scale_counters PORT  the edge's pack lookups by tier, its store reads and
#                        composed-range cache lookups, as "name value" lines
#   cpu_ticks PID        the process's CPU time (user and system), in clock
#                        ticks (getconf CLK_TCK)
#   remove_output DIR... remove each DIR (an earlier run's output: its disk
#                        cache), and when that freed many files, wait until
#                        the file system creates files at its usual cost again

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		(exec 8<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || (exec 8<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null ||
			{ echo "$p"; return; }
	done
}

scale_counters() {
	curl -s "http://127.0.0.1:$1/metrics" | awk '
		/^edge_pack_reads_total\{/ { match($0, /tier="[a-z_]*"/); t = substr($0, RSTART + 6, RLENGTH - 7); print t, $2 }
		/^edge_store_requests_total\{op="(get|get_range)"/ { reads += $2 }
		/^edge_cache_requests_total\{cache="composed",result="hit"/ { print "composed_hit", $2 }
		/^edge_cache_requests_total\{cache="composed",result="miss"/ { print "composed_miss", $2 }
		END { print "store_reads", reads + 0 }'
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# An ext4 without a journal (this kind of VM's) skips, when it allocates an
# inode, every inode freed in the last 30 s or so, and looks each one up to
# know: after tens of thousands of files were deleted, creating one cost 4
# to 6 times as much (docs/edge.md, "The disk cache's files"), which would be
# measured as the next run's disk-cache writes.
remove_output() {
	local n=0 d
	for d in "$@"; do
		# All of them counted: a pipe that stops reading early kills find
		# with SIGPIPE, which pipefail and set -e make the script's end.
		[ -d "$d" ] && n=$((n + $(find "$d" -type f | wc -l)))
		rm -rf "$d"
	done
	if [ "$n" -ge 2000 ]; then
		echo "removed an earlier run's disk cache; waiting 40 s for the file system to settle" >&2
		sleep 40
	fi
}

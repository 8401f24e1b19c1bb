#!/usr/bin/env bash
# perfetto_load FILE [--expect-slices N] [--expect-instants N] [--expect-threads N] [--expect-depth N]:
# load a latency --perfetto file into a real consumer, Chrome DevTools'
# Performance-panel trace engine (npm @paulirish/trace_engine, pinned by
# tests/host/perfetto_load/package-lock.json), headless in node, and check
# what it would draw (tests/host/perfetto_load/load.mjs). Source this file
# and call perfetto_load, or run it: bash tests/host/perfetto_load.sh FILE ...
#
# The node modules are installed once, into .output/perfetto_load (never
# into the source tree), again only when the lock file changes. Returns
# load.mjs's status: 0 loaded as expected, 1 the consumer's failure (its
# reasons on stderr), 2 usage; 77 when the consumer cannot be had (no node or
# npm, or the npm registry unreachable), after a line "SKIP: ...".
# Bounded: the install by PERFETTO_LOAD_INSTALL_TIMEOUT (300 s), a load by
# PERFETTO_LOAD_TIMEOUT (60 s).

PERFETTO_LOAD_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/perfetto_load
PERFETTO_LOAD_DIR=${PERFETTO_LOAD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.output/perfetto_load}

# perfetto_load_install: 0 installed (or already), 77 cannot be had (said on stdout), 1 other failure.
perfetto_load_install() {
	local src=$PERFETTO_LOAD_SRC dir=$PERFETTO_LOAD_DIR log rc
	local tmo=${PERFETTO_LOAD_INSTALL_TIMEOUT:-300}
	command -v node > /dev/null && command -v npm > /dev/null || {
		echo "SKIP: cannot install the trace consumer from npm: node or npm is not installed"
		return 77
	}
	mkdir -p "$dir" || return 1
	(
		# one install at a time (suites may run side by side); a lock holder
		# is itself bounded, so the wait is too
		if command -v flock > /dev/null; then
			flock -w $((tmo + 30)) 9 || { echo "perfetto_load: install lock busy" >&2; exit 1; }
		fi
		if cmp -s "$src/package-lock.json" "$dir/.installed-lock" &&
			[ -d "$dir/node_modules/@paulirish/trace_engine" ]; then
			exit 0
		fi
		rm -rf "$dir/node_modules" "$dir/.installed-lock"
		cp "$src/package.json" "$src/package-lock.json" "$dir/" || exit 1
		log=$dir/npm-ci.log
		# (in a subshell of its own, so that a "Killed" note goes to the log too)
		(timeout -k 5 "$tmo" npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund \
			--prefer-offline --fetch-retries=1 --fetch-timeout=60000; exit $?) > "$log" 2>&1
		rc=$?
		if [ "$rc" = 0 ]; then
			cp "$src/package-lock.json" "$dir/.installed-lock"
			exit 0
		fi
		rm -rf "$dir/node_modules"
		if [ "$rc" = 124 ] || [ "$rc" = 137 ] ||
			grep -Eqi 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up|request to .* failed' "$log"; then
			local why
			why=$(grep -m1 -Eo 'request to .* failed, reason: .*' "$log" ||
				grep -m1 -E 'npm error code' "$log" | sed 's/^npm error //')
			if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				why="npm ci did not finish within ${tmo}s${why:+ ($why)}"
			fi
			echo "SKIP: cannot install the trace consumer from npm: ${why:-registry unreachable (see $log)}"
			exit 77
		fi
		echo "perfetto_load: npm ci failed (exit $rc), see $log:" >&2
		tail -5 "$log" >&2
		exit 1
	) 9> "$dir/.install.lock"
}

perfetto_load() {
	local rc
	[ $# -ge 1 ] || { echo "usage: perfetto_load FILE [--expect-slices N] [--expect-instants N] [--expect-threads N] [--expect-depth N]" >&2; return 2; }
	perfetto_load_install
	rc=$?
	[ "$rc" = 0 ] || return "$rc"
	# load.mjs resolves the modules from where it lies: beside them
	if ! cmp -s "$PERFETTO_LOAD_SRC/load.mjs" "$PERFETTO_LOAD_DIR/load.mjs"; then
		cp "$PERFETTO_LOAD_SRC/load.mjs" "$PERFETTO_LOAD_DIR/.load.mjs.$$" &&
			mv -f "$PERFETTO_LOAD_DIR/.load.mjs.$$" "$PERFETTO_LOAD_DIR/load.mjs" || return 1
	fi
	timeout -k 5 "${PERFETTO_LOAD_TIMEOUT:-60}" node "$PERFETTO_LOAD_DIR/load.mjs" "$@"
	rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "perfetto_load: $1: the trace consumer did not finish within ${PERFETTO_LOAD_TIMEOUT:-60}s" >&2
		return 1
	fi
	return "$rc"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	perfetto_load "$@"
	exit $?
fi

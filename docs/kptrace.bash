# bash completion for kptrace(8)                          -*- shell-script -*-
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Subcommands, options and their values; in a definition, kernel function
# names, tracepoints (SUBSYS/EVENT), a function's parameter names (from
# kptrace list --json) and a binary's functions after PATH:.
#
# kptrace list is read once per boot and kernel into
# ${XDG_CACHE_HOME:-~/.cache}/kptrace/RELEASE-BOOTID/: listing takes ~0.3 s,
# a prefix looked up in the cache a few ms (grep over 60,000 names).

_kptrace_subcommands="explain hist latency count profile timechart why list serve diff"
_kptrace_options="--file --output --json --pid --command --keep-running --duration --dry-run --unsafe
	--buffer-size --verbose --filter --tid --comm --cgroup --linear --by --top --zeros --sum
	--avg --min --max --sort --interval --svg --unit --from --to --key --max-keys --unwind-rows --over
	--container --containers --error --slower --under
	--no-tracepoint --perfetto --time --le-every --slack --budget --cost --backend --btf --kstack --ustack
	--no-demangle --frequency --no-idle --slice --folded --pmu --help --usage --version"
_kptrace_serve_options="--jobs --listen --check --gone-after --help --usage --version"
_kptrace_diff_options="--threshold --min-shift --json --svg --help"
# the options that take the next word as their value
_kptrace_valued="-f|--file|-o|--output|-p|--pid|-c|--command|-d|--duration|--buffer-size|--filter|-t|--tid|--comm|--cgroup|--container|--linear|--by|--top|--sum|--avg|--min|--max|--sort|-i|--interval|--svg|--unit|--from|--to|--key|--max-keys|--unwind-rows|--over|--perfetto|--time|--le-every|--budget|--cost|--backend|--btf|--pmu|-F|--frequency|--slice|--jobs|-l|--listen|-g|--gone-after|--threshold|--min-shift|--slower|--under"

# The cache directory for this boot and kernel, built when missing; fails
# (no names) where kptrace list gives nothing, e.g. without the rights.
_kptrace_cache() {
	local kpt=$1 boot rel base dir tmp
	read -r boot < /proc/sys/kernel/random/boot_id || return 1
	read -r rel < /proc/sys/kernel/osrelease || return 1
	base=${XDG_CACHE_HOME:-$HOME/.cache}/kptrace
	dir=$base/$rel-$boot
	if [[ ! -s $dir/functions ]]; then
		command -v -- "$kpt" > /dev/null 2>&1 || kpt=kptrace
		# built beside its place, so that the rename is atomic
		mkdir -p "$base" && tmp=$(mktemp -d "$base/.new.XXXXXX") || return 1
		"$kpt" list --json '*' 2> /dev/null | LC_ALL=C awk -v d="$tmp" '
			# "name":"X" pairs of a params or fields array, space-separated
			function names(key,   s, out) {
				s = substr($0, index($0, key)); out = ""
				while (match(s, /\{"name":"[^"]*"/)) {
					out = out " " substr(s, RSTART + 9, RLENGTH - 10)
					s = substr(s, RSTART + RLENGTH)
				}
				return substr(out, 2)
			}
			function str(key,   s) {
				s = substr($0, index($0, "\"" key "\":\"") + length(key) + 4)
				return substr(s, 1, index(s, "\"") - 1)
			}
			/^\{"type":"function"/ {
				n = str("name"); if (n in seen) next; seen[n] = 1
				print n > (d "/functions")
				if (index($0, "\"params\":[")) print n "\t" names("\"params\":[") > (d "/params")
			}
			/^\{"type":"tracepoint"/ {
				n = str("group") "/" str("event")
				print n > (d "/tracepoints")
				print n "\t" names("\"fields\":[") > (d "/fields")
			}'
		if [[ -s $tmp/functions || -s $tmp/tracepoints ]]; then
			touch "$tmp/functions" "$tmp/params" "$tmp/tracepoints" "$tmp/fields"
			# an older boot's or kernel's lists are stale
			rm -rf "$base"/*-*-*-*-*-* 2> /dev/null
			mv -T "$tmp" "$dir" 2> /dev/null
		fi
		rm -rf "$tmp"
	fi
	[[ -s $dir/functions || -s $dir/tracepoints ]] && _kptrace_dir=$dir
}

# grep's pattern for a literal prefix
_kptrace_re() {
	local s=$1
	s=${s//\\/\\\\}; s=${s//./\\.}; s=${s//[/\\[}; s=${s//\*/\\*}; s=${s//^/\\^}; s=${s//$/\\$}
	printf '^%s' "$s"
}

# _kptrace_lookup FILE PREFIX: the names in the cache's FILE starting with PREFIX
_kptrace_lookup() {
	[[ -n $_kptrace_dir ]] || return 0
	LC_ALL=C grep -- "$(_kptrace_re "$2")" "$_kptrace_dir/$1" 2> /dev/null | cut -f1
}

# _kptrace_params FILE NAME: the parameter (or field) names of NAME
_kptrace_params() {
	[[ -n $_kptrace_dir ]] || return 0
	LC_ALL=C grep -m1 -- "$(_kptrace_re "$2")	" "$_kptrace_dir/$1" 2> /dev/null | cut -f2 |
		tr ' ' '\n'
}

# A binary's functions (ELF .symtab, else .dynsym) starting with PREFIX
_kptrace_syms() {
	local path=$1 pre=$2
	[[ $path == "~/"* ]] && path=$HOME/${path#"~/"}
	# both tables (nm exits 0 on a stripped file), without .dynsym's @VERSION
	{ nm --defined-only -P "$path"; nm -D --defined-only -P "$path"; } 2> /dev/null |
		LC_ALL=C awk -v p="$pre" '$2 ~ /^[TtWw]$/ && substr($1, 1, length(p)) == p {
			sub(/@.*/, "", $1); print $1 }' | LC_ALL=C sort -u
}

# Probe points and fetch arguments of the definition text $1 (unquoted);
# prints whole-definition candidates.
_kptrace_def() {
	local d=$1 kpt=$2 head first rest t1 t2 fn cand last pre
	if [[ $d != *" "* ]]; then
		if [[ $d =~ ^([prf][0-9]*:|t:)(.*)$ ]]; then
			head=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
		else
			head= rest=$d
		fi
		if [[ $rest == [/.~]*:* ]]; then
			_kptrace_syms "${rest%:*}" "${rest##*:}" | sed "s|^|$head${rest%:*}:|"
		elif [[ $rest == [/.~]* ]]; then
			compgen -f -- "$rest" | while read -r cand; do
				[[ -d $cand ]] && cand+=/
				printf '%s%s\n' "$head" "$cand"
			done
		elif [[ $head == t: || $rest == */* ]]; then
			_kptrace_cache "$kpt" && _kptrace_lookup tracepoints "$rest" | sed "s|^|$head|"
		else
			_kptrace_cache "$kpt" && _kptrace_lookup functions "$rest" | sed "s|^|$head|"
		fi
		return
	fi
	# the arguments: whose parameters? p:SYM, p:EVENT SYM, p SYM, t:SUBSYS/EVENT
	read -r t1 t2 _ <<< "$d"
	last=${d##* }
	first=${d%"$last"}
	_kptrace_cache "$kpt" || return 0
	if [[ $t1 =~ ^[prf][0-9]*(:(.*))?$ ]]; then
		fn=${BASH_REMATCH[2]}
		if [[ -z $fn || $fn == */* || ( -n $t2 && $first == *" $t2 "* &&
			-n $(_kptrace_params params "$t2") ) ]]; then
			[[ $fn == /* ]] && return 0	# a uprobe: no BTF parameters
			if [[ $first != *" "*" "* ]]; then	# the function itself
				_kptrace_lookup functions "$last" | sed "s|^|$first|"
				return
			fi
			fn=$t2
		fi
		cand=$(_kptrace_params params "$fn")
		[[ $t1 == r* ]] && cand+=$'\n$retval'
	elif [[ $t1 == t:* ]]; then
		cand=$(_kptrace_params fields "${t1#t:}" | grep -v '^common_')
	fi
	# NAME=FIELD: the part after '=' is completed
	pre=${last%"${last##*=}"}
	compgen -W "$cand" -- "${last##*=}" | sed "s|^|$first$pre|"
}

# The argument names of the definitions among the words, --by keys too:
# NAME=FETCHARG's NAME, a BTF parameter's or a tracepoint field's name (a
# member chain is named argN, as ftrace names it: left out)
_kptrace_argnames() {
	local w t n
	[[ -n $_kptrace_dir ]] || _kptrace_cache "$kpt"
	for w in "${words[@]:1:cw-1}"; do
		w=${w//[\'\"]/}
		[[ $w == [prft]*:*" "* || $w == [prf]" "* ]] || continue
		n=0
		for t in $w; do
			n=$((n + 1))
			[[ $t == if ]] && break
			# the probe point; p:EVENT SYMBOL's symbol
			((n == 1)) && continue
			((n == 2)) && [[ $t != *[=:]* && -n $(_kptrace_params params "$t") ]] && continue
			t=${t%%=*}
			t=${t%%:*}
			[[ $t =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && echo "$t"
		done
	done
}

# The value of option $1 starting with $2
_kptrace_value() {
	local opt=$1 cur=$2 kpt=$3 lst pre
	case $opt in
	--backend) compgen -W "auto fentry kprobe-multi kprobe" -- "$cur" ;;
	--unit) compgen -W "ns us ms" -- "$cur" ;;
	--cost) compgen -W "sampled exact" -- "$cur" ;;
	--time) compgen -W "mono boot wall delta" -- "$cur" ;;
	--sort) compgen -W "count sum avg min max" -- "$cur" ;;
	--by | --pmu)
		# a comma list: the last element is completed
		pre=${cur%"${cur##*,}"}
		if [[ $opt == --by ]]; then
			lst="comm pid tid cpu probe kstack ustack $(_kptrace_argnames)"
		else
			lst="cycles instructions cache-misses cache-references branch-misses page-faults
				context-switches cpu-migrations cpu-clock task-clock"
		fi
		compgen -W "$lst" -- "${cur##*,}" | sed "s|^|$pre|"
		;;
	--from | --to) _kptrace_def "$cur" "$kpt" ;;
	-f | --file | -o | --output | --svg | --perfetto | --jobs | --btf) compgen -f -- "$cur" ;;
	-c | --command) compgen -c -- "$cur" ;;
	-p | --pid) compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur" ;;
	esac
}

_kptrace() {
	local words=() w k cw cur prev sub= quoted= q= kpt=${COMP_WORDS[0]} pfx
	local _kptrace_dir=
	COMPREPLY=()
	# join what COMP_WORDBREAKS split: p : vfs_read, --backend = auto
	for ((k = 0; k <= COMP_CWORD; k++)); do
		w=${COMP_WORDS[k]}
		if ((k > 1)) && [[ $w == [:=]* || ${words[-1]} == *[:=] ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
	done
	cw=$((${#words[@]} - 1))
	cur=${words[cw]}
	prev=${words[cw - 1]}
	# inside an open quote readline completes the whole definition
	if [[ $cur == [\"\']* ]]; then
		q=${cur:0:1} cur=${cur:1} quoted=1
	fi
	for ((k = 1; k < cw; k++)); do
		w=${words[k]}
		if [[ $w == -* ]]; then
			[[ $w != *=* && $w =~ ^($_kptrace_valued)$ ]] && ((k++))
		elif [[ -z $sub ]]; then
			sub=$w
			break
		fi
	done

	if [[ $prev =~ ^($_kptrace_valued)$ ]]; then
		mapfile -t COMPREPLY < <(_kptrace_value "$prev" "$cur" "$kpt")
	elif [[ $cur == --*=* ]]; then
		mapfile -t COMPREPLY < <(_kptrace_value "${cur%%=*}" "${cur#*=}" "$kpt" |
			sed "s|^|${cur%%=*}=|")
	elif [[ $cur == -* ]]; then
		case $sub in
		serve) w=$_kptrace_serve_options ;;
		diff) w=$_kptrace_diff_options ;;
		*) w=$_kptrace_options ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
	elif [[ -z $sub && -z $quoted && $cur != *[:/]* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$_kptrace_subcommands" -- "$cur")
	elif [[ $sub == diff ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	elif [[ $sub == list && $cur != *:* ]]; then
		_kptrace_cache "$kpt" &&
			mapfile -t COMPREPLY < <(_kptrace_lookup functions "$cur"
				_kptrace_lookup tracepoints "$cur")
	elif [[ $sub != serve ]]; then
		mapfile -t COMPREPLY < <(_kptrace_def "$cur" "$kpt")
		compopt -o nospace 2> /dev/null
	fi
	# unquoted, readline replaces only what follows the last ':' or '='
	if [[ -z $quoted && $cur == *[:=]* ]]; then
		pfx=${cur%"${cur##*[:=]}"}
		COMPREPLY=("${COMPREPLY[@]#"$pfx"}")
	fi
	return 0
}
complete -F _kptrace kptrace

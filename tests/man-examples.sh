#!/usr/bin/env bash
# man-examples.sh [PAGE]: the commands of kptrace(8)'s EXAMPLES as the
# rendered page prints them, one a line ("\"-continued lines joined), each
# after its example block's number and a tab: a block's commands go together
# (before.json, after.json, then the diff of the two). Host-install runs the
# ones this kernel can, the VM's "more" boot (examples-guest.sh) the rest.
set -euo pipefail
page=${1:-$(dirname "$0")/../docs/kptrace.8}
# LC_ALL=C: ASCII hyphens and quotes, as typed; wide: no folded command
LC_ALL=C MANWIDTH=400 man -l "$page" 2> /dev/null | sed -n '/^EXAMPLES$/,/^SEE ALSO$/p' |
awk '
	/^ *$/ { if (cmd == "") gap = 1; next }
	cmd != "" { sub(/^ +/, ""); cmd = cmd " " $0 }
	cmd == "" && /^ +kptrace / { if (gap || !block) block++; gap = 0; sub(/^ +/, ""); cmd = $0 }
	cmd == "" && !/^ +kptrace / { gap = 1 }
	cmd != "" { if (sub(/ +\\$/, "", cmd)) next; print block "\t" cmd; cmd = "" }
'

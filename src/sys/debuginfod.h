/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Debug files fetched by build id from the debuginfod servers named by
 * DEBUGINFOD_URLS (http:// only), into the cache elfutils' client uses
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client: DIR/HEX/debuginfo), each fetch bounded by
 * DEBUGINFOD_WAIT_MS; a server that did not answer in time is not asked
 * again by this process.
 */
#ifndef KPT_DEBUGINFOD_H
#define KPT_DEBUGINFOD_H

#include <stddef.h>

#define DEBUGINFOD_WAIT_MS	2000	/* per server and file: connect, ask, read */

/*
 * The debug file of build id hex (lowercase hex digits): cached, else
 * fetched. 0 with its path, or -ENOENT (no server has it, none is named,
 * or none answered in time).
 */
int debuginfod_find(const char *hex, char *path, size_t size);

#endif /* KPT_DEBUGINFOD_H */

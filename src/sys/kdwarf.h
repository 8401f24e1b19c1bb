/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The running kernel's DWARF, for the functions of its source files (why
 * --under ':GLOB'): BTF and kallsyms name no files. vmlinux's debug file by
 * the kernel's build id (/sys/kernel/notes: under /usr/lib/debug/.build-id/,
 * else from debuginfod), else at the distributions' paths
 * (/usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/vmlinux,
 * /boot/vmlinux-R), its build id checked; each loaded module's .ko (by
 * modules.dep) when it has DWARF and the loaded one's build id, else its
 * debug file by that build id (/sys/module/NAME/notes/.note.gnu.build-id).
 */
#ifndef KPT_KDWARF_H
#define KPT_KDWARF_H

#include <stddef.h>

/*
 * fn(mod, name, arg) on each function with code of the source files
 * matching glob (dwline_cu_funcs()), mod NULL for vmlinux's, else the
 * module's name as /sys/module spells it. The count of files matched (msg
 * then says what was not read, or is ""); -ENOENT with msg naming where
 * kptrace looked and the fix when no file matched; fn's non-zero return.
 */
int kdwarf_src_functions(const char *glob, int (*fn)(const char *mod, const char *name, void *arg),
			 void *arg, char *msg, size_t msglen);

#endif /* KPT_KDWARF_H */

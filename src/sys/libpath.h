/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A user binary by name, for messages that suggest a uprobe's path: where
 * "libc:malloc" names no kernel module but a library, or bpftrace's
 * "uprobe:libc:malloc" is translated.
 */
#ifndef KPT_LIBPATH_H
#define KPT_LIBPATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A library or binary called name, found as the dynamic linker and the
 * shell would: NAME.so* or libNAME.so* in the linker's directories
 * (ld.so.conf, then the defaults), else NAME in $PATH. The first ELF file's
 * path into path: 0, or -ENOENT.
 */
int libpath_find(const char *name, char *path, size_t len);

/*
 * The program command (a command line, as -c takes it) runs: its first
 * word as execvp() finds it, a "#!" script's interpreter in its place
 * ("/usr/bin/env NAME": NAME in $PATH). Its path into path: 0, -EINVAL for
 * an empty or unparsable command, -ENOENT, or -ENOEXEC for no ELF program.
 */
int libpath_program(const char *command, char *path, size_t len);

#define LIBPATH_OBJECTS	256	/* a program and the objects it links, at most */
/*
 * The objects command's program maps when it starts: the program, its
 * dynamic loader (PT_INTERP) and the libraries it needs, each found as the
 * loader would (DT_NEEDED through DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH and
 * the system's directories; of the program's class and machine). fn on
 * each path, the program first, until it returns non-zero (returned).
 * Libraries it will dlopen() are not known here.
 */
int libpath_command_objects(const char *command, int (*fn)(const char *path, void *arg),
			    void *arg);

/*
 * Whether kernel module name is loaded (/proc/modules; '-' and '_' are one
 * to the kernel). True when that cannot be read (nothing to say then), false
 * on a kernel without modules.
 */
bool libpath_module_loaded(const char *name);

/* /proc/modules's whole text (free it), or NULL with errno (ENOENT: no modules in this kernel). */
char *libpath_modules_read(void);
/*
 * Module name's line in mods, /proc/modules's text ("name size refs deps
 * state address"): its state ("Live", "Loading", "Unloading") and load
 * address into state and addr; false if it is not there.
 */
bool libpath_module_find(const char *mods, const char *name, char *state, size_t slen, char *addr,
			 size_t alen);

/* Two kernel module names the same, '-' and '_' alike (as modprobe takes them). */
bool libpath_module_name_eq(const char *a, const char *b);

#endif /* KPT_LIBPATH_H */

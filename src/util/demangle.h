/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol names as people read them: C++ (Itanium ABI), Rust (legacy and
 * v0) and D names demangled by libiberty's cplus_demangle, the demangler
 * of binutils' c++filt and gdb, so a name reads as c++filt prints it.
 */
#ifndef KPT_DEMANGLE_H
#define KPT_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * name demangled, a symbol version ("@@GLIBCXX_3.4") kept after it; malloc'd.
 * NULL when name is not a mangled name (or on ENOMEM).
 */
char *demangle(const char *name);

/*
 * The length of a demangled name without its parameter list and what
 * follows it ("shop::checkout(int) const" -> "shop::checkout"): the name
 * a user writes in source. A name without parameters: its whole length.
 */
size_t demangle_base_len(const char *dem);

/*
 * Whether raw (a symbol as in the file) demangles to a name that pattern
 * names: the whole demangled name or its source name (demangle_base_len()),
 * equal, or matched by pattern as an fnmatch(3) glob when glob is set.
 */
bool demangle_match(const char *raw, const char *pattern, bool glob);

#endif /* KPT_DEMANGLE_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol names as people read them: C++ (Itanium ABI), Rust (legacy and
 * v0) and D names demangled by libiberty's cplus_demangle, the demangler
 * of binutils' c++filt and gdb, so a name reads as c++filt prints it.
 */
#ifndef KPT_DEMANGLE_H
#define KPT_DEMANGLE_H

/*
 * name demangled, a symbol version ("@@GLIBCXX_3.4") kept after it; malloc'd.
 * NULL when name is not a mangled name (or on ENOMEM).
 */
char *demangle(const char *name);

#endif /* KPT_DEMANGLE_H */

/* C++ demangling for display: see demangle.c (the demangler) and
 * demangle_simple.c (the short form the call views print). */
#ifndef ASMSPY_HOST_DEMANGLE_H
#define ASMSPY_HOST_DEMANGLE_H

#include <stddef.h>

/* The demangled form of an Itanium-mangled name ("_Z..."), malloc'd, or
 * NULL when name is not mangled or no demangler is available. */
char *demangle_cxx(const char *name);

/* A second mode for display, uftrace's --demangle=simple: a demangled name
 * without its parameter list, template arguments and return type
 * ("void ns::C<int>::f(int) const" -> "ns::C::f"); the host's "@plt" is
 * kept, the compiler's clone suffixes (" [clone .isra.0]", " [clone .cold]")
 * are dropped, as uftrace does. A plain C name comes back as is (its
 * "f.constprop.0" too: uftrace keeps that).
 * Pure string work (no demangler), so the view plugins compile it in.
 * Writes at most cap bytes (NUL included) to out; returns strlen(out). */
size_t demangle_simplify(const char *in, char *out, size_t cap);

#endif

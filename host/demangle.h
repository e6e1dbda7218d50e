/* C++ demangling for display: see demangle.c. */
#ifndef ASMSPY_HOST_DEMANGLE_H
#define ASMSPY_HOST_DEMANGLE_H

/* The demangled form of an Itanium-mangled name ("_Z..."), malloc'd, or
 * NULL when name is not mangled or no demangler is available. */
char *demangle_cxx(const char *name);

#endif

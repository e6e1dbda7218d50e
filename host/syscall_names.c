/* Syscall names, from a table generated at build time from the system's own
 * <asm/unistd_64.h> (host/tables/gen_syscall_names.py), so the names never
 * lag the kernel headers asmspy was built against. */
#include "host/host.h"
#include "syscall_names_gen.h"

const char *host_syscall_name(int64_t nr) { return asmspy_syscall_name_of(nr); }

/* Symbol tables for a live process (host service).
 *
 * Built once per process through libdw (dwfl_linux_proc_report: every ELF
 * mapped into the pid with its load bias), plus
 *   - PLT stubs named `name@plt`, synthesized from each module's .rela.plt
 *     (and .plt / .plt.sec layout), kind EXTERNAL;
 *   - the JIT perf-map /tmp/perf-<pid>.map layered on top, kind JIT, used only
 *     when the file is owned by the target's uid, and re-read on a lookup miss
 *     at most once per second (a running JIT keeps compiling).
 * Lookup is by address (binary search over a sorted array); a per-table
 * address cache makes the hot path of --stream cheap. An address in a second
 * mapping of a file (same file, another address) is named through the file's
 * symbols at that file offset. A miss at an address in no known executable
 * mapping re-reads /proc/<pid>/maps (backing off when that explains nothing)
 * and loads the libraries mapped since (ld.so's after a launch, dlopen).
 */
#ifndef ASMSPY_HOST_SYMBOLS_H
#define ASMSPY_HOST_SYMBOLS_H

#include <asmspy/plugin.h>
#include <stdint.h>
#include <sys/types.h>

struct asmspy_symtab;

/* One function symbol as stored. Strings owned by the table. */
struct symtab_entry {
  uint64_t start, size;     /* runtime address, bytes (0 = unknown size) */
  const char *name;         /* for display: demangled for C++ ("ns::work(int)") */
  const char *linkage_name; /* the ELF name when it differs (mangled C++), else NULL */
  const char *module;       /* basename */
  const char *module_path;  /* full path */
  uint32_t kind;            /* enum asmspy_sym_kind */
};

/* Load every mapped module of pid. Returns NULL with errno set on failure
 * (ESRCH no such process, EACCES cannot read /proc/<pid>/maps). A process
 * whose ELF files are unreadable or hostile still gets a table (those modules
 * contribute no symbols); a hostile ELF never crashes the loader. */
struct asmspy_symtab *symtab_load(pid_t pid);
void symtab_free(struct asmspy_symtab *t);

/* Drop everything and load again (after exec, dlopen, F3 reload). */
int symtab_reload(struct asmspy_symtab *t);

/* Fill out for addr. Always returns 0; out->kind == ASMSPY_SYM_UNKNOWN (name
 * NULL, module "?" or the mapping's basename) when no symbol covers addr. A
 * miss may re-read the perf-map and /proc/<pid>/maps (both rate-limited) and
 * load newly mapped modules; names handed out before stay valid (until
 * symtab_reload/free), entry pointers from symtab_at/find_name do not. */
int symtab_lookup(struct asmspy_symtab *t, uint64_t addr, struct asmspy_symbol *out);

/* Number of function symbols, and indexed access in address order. */
size_t symtab_count(const struct asmspy_symtab *t);
const struct symtab_entry *symtab_at(const struct asmspy_symtab *t, size_t i);

/* First symbol named exactly `name` (or `name@plt`), by display or linkage
 * name; for C++, `ns::work` also finds `ns::work(int)`. NULL if none. */
const struct symtab_entry *symtab_find_name(const struct asmspy_symtab *t, const char *name);

/* Basename of the executable's module (for [int] vs [EXT]). */
const char *symtab_main_module(const struct asmspy_symtab *t);

/* Changes whenever a lookup may answer differently than before (reload, a
 * perf-map or maps re-read that changed the table): a caller caching
 * rendered lookups drops its cache when this moves. */
uint64_t symtab_generation(const struct asmspy_symtab *t);

struct symtab_stats {
  uint64_t maps_reads;   /* re-reads of /proc/<pid>/maps after misses */
  uint64_t module_syncs; /* module loads: the first one, then one per maps change */
  uint64_t modules;      /* modules loaded now */
};
void symtab_get_stats(const struct asmspy_symtab *t, struct symtab_stats *out);

#endif

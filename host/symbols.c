/* Symbol tables for a live process (host service; interface in symbols.h).
 *
 * What is in a table:
 *   - every STT_FUNC / STT_GNU_IFUNC symbol of every ELF module mapped into the
 *     pid, found through libdw's Dwfl (which prefers .symtab, including one in
 *     a separate debug file, and falls back to .dynsym), at runtime addresses;
 *   - synthesized `name@plt` stubs for .plt, .plt.sec and .plt.got (x86-64)
 *     and .plt (AArch64);
 *   - synthesized `name@got` for the GOT slot (8 bytes, data) of each
 *     imported function a GLOB_DAT relocation fills (x86-64): what -fno-plt
 *     code calls through (add_got_slots);
 *   - the JIT perf-map /tmp/perf-<pid>.map, kept in its own array and only
 *     consulted when no ELF symbol covers an address;
 *   - the executable mappings of /proc/<pid>/maps, to name the module of an
 *     address no symbol covers and to bound size-0 symbols.
 *
 * Modules and mappings. A module is one file (by path), loaded once, at the
 * load bias of its "primary" copy: the mapping of the lowest file offset
 * (the one holding the ELF header). Its symbols sit at runtime addresses of
 * that copy. Every executable mapping knows its file offset; a mapping of the
 * same file at another bias (node maps its embedded builtins a second time;
 * a program may mmap a library's text again) is an ALIAS: an address in it is
 * turned into a file offset, then into the primary copy's address through the
 * ELF's PT_LOAD segments, and named from there (start/offset reported in the
 * alias's own addresses). libdw's own grouping of /proc/<pid>/maps is not
 * trusted for this: it merges non-adjacent mappings of one file into a single
 * module, or reports a second module with a bias computed from a mapping that
 * does not start at offset 0.
 *
 * Libraries mapped after the load (the executable's DT_NEEDED ones under
 * --launch, where the table is read at exec; dlopen at any time) are picked up
 * by symtab_lookup: a miss at an address in no known executable mapping (or
 * in a file mapping without a module) re-reads /proc/<pid>/maps; when the set
 * of executable file mappings changed, the new files are loaded and the
 * modules whose mappings went away (dlclose) are dropped. Unproductive
 * re-reads back off exponentially in misses (see MAPS_BACKOFF_MAX).
 *
 * Everything is copied out of libdw/libelf during the load (the Dwfl is closed
 * before symtab_load returns), so a table holds no file descriptors.
 *
 * Strings (names, module names, paths) live in string arenas owned by the
 * table, only ever appended to until symtab_reload/free: a name handed out by
 * a lookup stays valid while the table lives, even across the implicit
 * perf-map and maps re-reads a lookup may do. Paths and module basenames are
 * interned (one copy per distinct string), so re-reading maps does not grow
 * the arena and two equal paths are the same pointer. symtab_reload
 * invalidates every pointer handed out before it (callers drop their caches
 * after a reload). Entry pointers (symtab_at, symtab_find_name) are valid only
 * until the next lookup, which may rebuild the arrays.
 *
 * Not thread-safe: one tracer thread owns a table (lookups mutate the cache).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getline, st_mtim, O_CLOEXEC|O_NOFOLLOW */
#endif
#include "symbols.h"
#include "demangle.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* Tunables                                                                   */
/* ------------------------------------------------------------------------- */

/* Direct-mapped lookup cache: a single-stepped loop revisits the same few
 * hundred addresses, so a small table of exact-address hits removes the binary
 * search from the hot path. Power of two. */
#define LOOKUP_CACHE_SLOTS 4096u

/* A running JIT rewrites its perf-map constantly; re-reading it on every miss
 * would make a miss-heavy trace quadratic. */
#define PERFMAP_RECHECK_NS 1000000000ll

/* The perf-map is written by the target, which we do not trust: bound what it
 * can make us allocate. */
#define PERFMAP_MAX_ENTRIES (1u << 22)

/* When the symbol starting just below an address does not cover it, look this
 * many symbols further back for an enclosing one (nested/overlapping symbols,
 * e.g. a sized function containing a sized local label). Bounded so a lookup
 * stays O(log n). */
#define OVERLAP_LOOKBACK 16

#define ARENA_CHUNK_BYTES (64u * 1024u)

/* A lookup miss at an address in no known executable mapping re-reads
 * /proc/<pid>/maps (a library was mapped since). When that re-read does not
 * explain the miss (a data address, a wild pointer), the next re-read waits
 * for 1, 2, 4, ... further qualifying misses, up to this many: a library
 * mapped after a run of such misses is found within this many misses, and a
 * flood of them costs one maps read (tens of microseconds) per this many. */
#define MAPS_BACKOFF_MAX 256u

/* PT_LOAD segments kept per module for file offset -> address translation;
 * a real ELF has 2-5, a hostile one may claim 65535. */
#define MAX_LOAD_SEGMENTS 64u

#define PAGE_MASK_4K (~(uint64_t)0xfff)

/* ------------------------------------------------------------------------- */
/* String arena                                                               */
/* ------------------------------------------------------------------------- */

struct arena_chunk {
  struct arena_chunk *next;
  size_t used, cap;
  char data[];
};

struct string_arena {
  struct arena_chunk *head;
};

static const char *arena_strndup(struct string_arena *arena, const char *s, size_t len) {
  struct arena_chunk *chunk = arena->head;
  if (!chunk || chunk->cap - chunk->used < len + 1) {
    size_t cap = len + 1 > ARENA_CHUNK_BYTES ? len + 1 : ARENA_CHUNK_BYTES;
    chunk = malloc(sizeof(*chunk) + cap);
    if (!chunk) return NULL;
    chunk->next = arena->head;
    chunk->used = 0;
    chunk->cap = cap;
    arena->head = chunk;
  }
  char *dst = chunk->data + chunk->used;
  memcpy(dst, s, len);
  dst[len] = '\0';
  chunk->used += len + 1;
  return dst;
}

static const char *arena_strdup(struct string_arena *arena, const char *s) {
  return arena_strndup(arena, s, strlen(s));
}

static void arena_free(struct string_arena *arena) {
  struct arena_chunk *chunk = arena->head;
  while (chunk) {
    struct arena_chunk *next = chunk->next;
    free(chunk);
    chunk = next;
  }
  arena->head = NULL;
}

/* ------------------------------------------------------------------------- */
/* Table                                                                      */
/* ------------------------------------------------------------------------- */

/* One PT_LOAD segment, page-aligned as the kernel maps it: file offsets
 * [off_lo, off_hi) appear at link-time addresses vaddr_lo + (off - off_lo). */
struct load_segment {
  uint64_t off_lo, off_hi, vaddr_lo;
  bool exec;
};

/* One loaded file. */
struct module_rec {
  const char *path;     /* interned: equal paths are equal pointers */
  const char *basename; /* interned */
  uint64_t bias;        /* runtime = link-time address + bias, for the primary copy */
  uint64_t low;         /* start of the primary copy (confirms a segment-less module) */
  struct load_segment *segs;
  size_t n_segs;
};

/* One executable mapping of /proc/<pid>/maps. */
struct exec_mapping {
  uint64_t start, end;
  uint64_t offset;      /* file offset of start */
  const char *path;     /* "" for anonymous; interned */
  const char *basename; /* "?" for anonymous */
  int32_t module;       /* index into modules, -1 when no module is loaded for it */
  bool alias;           /* a copy of module at another bias: translate (see top) */
};

/* Any named mapping (every permission), only while modules are synced. */
struct file_mapping {
  uint64_t start, end, offset;
  const char *path; /* interned */
};

/* One parse of /proc/<pid>/maps. */
struct maps_snapshot {
  struct exec_mapping *maps; /* executable, sorted by start */
  size_t n_maps;
  struct file_mapping *files; /* named, sorted by start */
  size_t n_files;
  uint64_t exec_hash; /* every executable mapping */
  uint64_t file_hash; /* executable mappings of named files */
  const char *main_path;
};

/* Open-addressing set of interned strings (pointers into `strings`). */
struct intern_set {
  const char **slots;
  size_t cap, n;
};

struct lookup_cache_slot {
  uint64_t addr;
  bool used;
  struct asmspy_symbol sym;
};

struct perfmap_state {
  char path[64];
  bool have_identity; /* the fields below describe the last file we parsed */
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  int64_t last_check_ns; /* CLOCK_MONOTONIC of the last stat (rate limit) */
};

struct asmspy_symtab {
  pid_t pid;
  uid_t target_uid;

  struct string_arena strings;     /* ELF names, module names, paths: append-only */
  struct string_arena jit_strings; /* perf-map names: append-only (see top) */
  struct intern_set interned;      /* paths and basenames in `strings` */

  struct symtab_entry *elf_syms; /* sorted by start, unique starts */
  size_t n_elf;
  struct symtab_entry *jit_syms; /* sorted by start */
  size_t n_jit;
  /* symtab_count/symtab_at view: ELF and JIT merged in address order. Points
   * at elf_syms while there is no JIT entry, otherwise owned. */
  struct symtab_entry *all_syms;
  size_t n_all;

  struct exec_mapping *maps; /* sorted by start (as /proc lists them) */
  size_t n_maps;
  uint64_t exec_hash, file_hash; /* of the snapshot maps came from */

  struct module_rec *modules;
  size_t n_modules;

  const char *main_module; /* basename of the executable */
  const char *main_path;

  uint32_t maps_skip;    /* qualifying misses to let pass before the next re-read */
  uint32_t maps_backoff; /* the skip set after the next unproductive re-read */
  uint64_t generation;
  struct symtab_stats stats;

  struct perfmap_state perfmap;
  struct lookup_cache_slot *cache; /* LOOKUP_CACHE_SLOTS */
};

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static int64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static bool has_suffix(const char *s, size_t len, const char *suffix) {
  size_t sl = strlen(suffix);
  return len >= sl && memcmp(s + len - sl, suffix, sl) == 0;
}

/* FNV-1a over a byte range, chained through h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
#define FNV_OFFSET 0xcbf29ce484222325ull

static bool intern_grow(struct intern_set *set) {
  size_t cap = set->cap ? set->cap * 2 : 256;
  const char **slots = calloc(cap, sizeof(*slots));
  if (!slots) return false;
  for (size_t i = 0; i < set->cap; i++) {
    const char *s = set->slots[i];
    if (!s) continue;
    size_t j = (size_t)fnv1a(FNV_OFFSET, s, strlen(s)) & (cap - 1);
    while (slots[j]) j = (j + 1) & (cap - 1);
    slots[j] = s;
  }
  free(set->slots);
  set->slots = slots;
  set->cap = cap;
  return true;
}

/* The one arena copy of s[0..len): the same pointer for every equal string
 * interned into this table. NULL when out of memory. */
static const char *intern(struct asmspy_symtab *table, const char *s, size_t len) {
  struct intern_set *set = &table->interned;
  if ((set->n + 1) * 2 > set->cap && !intern_grow(set)) return NULL;
  size_t j = (size_t)fnv1a(FNV_OFFSET, s, len) & (set->cap - 1);
  while (set->slots[j]) {
    const char *have = set->slots[j];
    if (strncmp(have, s, len) == 0 && have[len] == '\0') return have;
    j = (j + 1) & (set->cap - 1);
  }
  const char *copy = arena_strndup(&table->strings, s, len);
  if (!copy) return NULL;
  set->slots[j] = copy;
  set->n++;
  return copy;
}

static const char *intern_str(struct asmspy_symtab *table, const char *s) {
  return intern(table, s, strlen(s));
}

/* Display basename of a module path: "/usr/lib/x/libc.so.6" -> "libc.so.6".
 * Drops the " (deleted)" /proc appends for a replaced file (the path keeps it)
 * and folds libdw's "[vdso: 1234]" into "[vdso]". */
static const char *intern_basename(struct asmspy_symtab *table, const char *path) {
  if (!path || !*path) return "?";
  if (strncmp(path, "[vdso", 5) == 0) return "[vdso]";
  if (path[0] == '[') return intern_str(table, path);
  size_t len = strlen(path);
  if (has_suffix(path, len, " (deleted)")) len -= strlen(" (deleted)");
  const char *base = path;
  for (size_t i = 0; i < len; i++)
    if (path[i] == '/') base = path + i + 1;
  size_t blen = (size_t)(path + len - base);
  if (blen == 0) return intern_str(table, path);
  return intern(table, base, blen);
}

/* ------------------------------------------------------------------------- */
/* Candidate collection (before sorting and alias dedupe)                     */
/* ------------------------------------------------------------------------- */

struct sym_candidate {
  struct symtab_entry entry;
  uint32_t preference; /* higher wins among aliases at the same address */
  uint32_t order;      /* insertion order: last tie-break, keeps qsort deterministic */
};

struct candidate_list {
  struct sym_candidate *items;
  size_t n, cap;
  bool oom;
};

static struct sym_candidate *candidate_push(struct candidate_list *list) {
  if (list->oom) return NULL;
  if (list->n == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 4096;
    if (cap > SIZE_MAX / sizeof(*list->items)) {
      list->oom = true;
      return NULL;
    }
    struct sym_candidate *items = realloc(list->items, cap * sizeof(*items));
    if (!items) {
      list->oom = true;
      return NULL;
    }
    list->items = items;
    list->cap = cap;
  }
  struct sym_candidate *c = &list->items[list->n];
  memset(c, 0, sizeof(*c));
  c->order = (uint32_t)list->n;
  list->n++;
  return c;
}

/* Which alias names an address. The exported (GLOBAL/WEAK) name is the one a
 * user types; among exported names fewer leading underscores wins, because
 * glibc exports the public name as WEAK and the implementation name as GLOBAL
 * (puts WEAK vs _IO_puts GLOBAL, rawmemchr WEAK vs __rawmemchr GLOBAL), and
 * "puts" is what people expect to see. Then GLOBAL over WEAK. Remaining ties
 * are broken by shorter name, then strcmp (see candidate_compare). */
#define PREF_PLT_STUB 5000u /* synthesized stubs never share an address with a symbol */
static uint32_t alias_preference(unsigned bind, const char *name) {
  uint32_t pref = 0;
  if (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) pref += 1000;
  unsigned underscores = 0;
  while (name[underscores] == '_' && underscores < 3) underscores++;
  pref += (3 - underscores) * 100;
  if (bind == STB_GLOBAL || bind == STB_GNU_UNIQUE)
    pref += 10;
  else if (bind == STB_WEAK)
    pref += 5;
  return pref;
}

static int candidate_compare(const void *pa, const void *pb) {
  const struct sym_candidate *a = pa, *b = pb;
  if (a->entry.start != b->entry.start) return a->entry.start < b->entry.start ? -1 : 1;
  if (a->preference != b->preference) return a->preference > b->preference ? -1 : 1;
  size_t la = strlen(a->entry.name), lb = strlen(b->entry.name);
  if (la != lb) return la < lb ? -1 : 1;
  int c = strcmp(a->entry.name, b->entry.name);
  if (c) return c;
  return a->order < b->order ? -1 : (a->order > b->order);
}

/* Everything the per-module passes need to know about the module. */
struct module_info {
  const char *path;     /* interned */
  const char *basename; /* interned */
  uint32_t kind;        /* INTERNAL for the executable, else EXTERNAL */
  uint64_t low, high;   /* runtime range of the module's mappings */
};

/* ------------------------------------------------------------------------- */
/* PLT stubs                                                                  */
/* ------------------------------------------------------------------------- */

/* A dynamic relocation that fills a GOT slot a PLT stub jumps through. */
struct got_reloc {
  uint64_t slot;    /* r_offset: link-time address of the GOT slot */
  uint32_t type;    /* GOT_JUMP_SLOT / GOT_GLOB_DAT / GOT_IRELATIVE (per machine below) */
  const char *name; /* symbol name from the dynamic symbol table (libelf-owned), or NULL */
  int64_t addend;   /* IRELATIVE: link-time address of the ifunc resolver */
  bool import_func; /* the symbol is an undefined STT_FUNC: an imported function */
};

struct got_reloc_list {
  struct got_reloc *items;
  size_t n, cap;
};

static bool got_reloc_push(struct got_reloc_list *list, const struct got_reloc *r) {
  if (list->n == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 64;
    struct got_reloc *items = realloc(list->items, cap * sizeof(*items));
    if (!items) return false;
    list->items = items;
    list->cap = cap;
  }
  list->items[list->n++] = *r;
  return true;
}

static int got_reloc_compare(const void *pa, const void *pb) {
  const struct got_reloc *a = pa, *b = pb;
  if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
  return 0;
}

static const struct got_reloc *got_reloc_find(const struct got_reloc_list *sorted, uint64_t slot) {
  size_t lo = 0, hi = sorted->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted->items[mid].slot < slot)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < sorted->n && sorted->items[lo].slot == slot ? &sorted->items[lo] : NULL;
}

/* The relocation kinds a PLT stub or GOT slot can carry, whatever the
 * machine calls them (x86-64 R_X86_64_*, AArch64 R_AARCH64_*). */
enum { GOT_OTHER = 0, GOT_JUMP_SLOT, GOT_GLOB_DAT, GOT_IRELATIVE };

static uint32_t got_kind(GElf_Half machine, uint32_t type) {
  if (machine == EM_AARCH64)
    return type == R_AARCH64_JUMP_SLOT   ? GOT_JUMP_SLOT
           : type == R_AARCH64_GLOB_DAT  ? GOT_GLOB_DAT
           : type == R_AARCH64_IRELATIVE ? GOT_IRELATIVE
                                         : GOT_OTHER;
  return type == R_X86_64_JUMP_SLOT   ? GOT_JUMP_SLOT
         : type == R_X86_64_GLOB_DAT  ? GOT_GLOB_DAT
         : type == R_X86_64_IRELATIVE ? GOT_IRELATIVE
                                      : GOT_OTHER;
}

/* Read the dynamic relocations of one SHT_RELA section. Every index taken from
 * the file (sh_link, symbol index, st_name) is checked against the sizes libelf
 * reports, because the file may be hostile. Relocations of .rela.plt are also
 * kept in file order (`in_order`) for the layout fallback. */
static void collect_got_relocs(Elf *elf, Elf_Scn *rela_scn, const GElf_Shdr *rela_shdr,
                               size_t section_count, struct got_reloc_list *by_slot,
                               struct got_reloc_list *in_order) {
  Elf_Data *rela_data = elf_getdata(rela_scn, NULL);
  if (!rela_data || !rela_data->d_buf) return;
  size_t rela_size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  if (rela_size == 0) return;
  size_t rela_count = rela_data->d_size / rela_size;
  GElf_Ehdr ehdr;
  GElf_Half machine = gelf_getehdr(elf, &ehdr) ? ehdr.e_machine : EM_NONE;

  /* The symbol table the relocations index (normally .dynsym). */
  Elf_Data *sym_data = NULL;
  size_t sym_count = 0, strtab_index = 0;
  if (rela_shdr->sh_link != 0 && rela_shdr->sh_link < section_count) {
    Elf_Scn *sym_scn = elf_getscn(elf, rela_shdr->sh_link);
    GElf_Shdr sym_shdr;
    if (sym_scn && gelf_getshdr(sym_scn, &sym_shdr) &&
        (sym_shdr.sh_type == SHT_DYNSYM || sym_shdr.sh_type == SHT_SYMTAB) &&
        sym_shdr.sh_link != 0 && sym_shdr.sh_link < section_count) {
      sym_data = elf_getdata(sym_scn, NULL);
      size_t sym_size = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
      if (sym_data && sym_data->d_buf && sym_size) {
        sym_count = sym_data->d_size / sym_size;
        strtab_index = sym_shdr.sh_link;
      }
    }
  }

  for (size_t i = 0; i < rela_count; i++) {
    GElf_Rela rela;
    if (i > INT_MAX || !gelf_getrela(rela_data, (int)i, &rela)) break;
    struct got_reloc r = {.slot = rela.r_offset,
                          .type = got_kind(machine, (uint32_t)GELF_R_TYPE(rela.r_info)),
                          .name = NULL,
                          .addend = rela.r_addend};
    if (r.type == GOT_JUMP_SLOT || r.type == GOT_GLOB_DAT) {
      size_t sym_index = GELF_R_SYM(rela.r_info);
      if (sym_index != 0 && sym_index < sym_count && sym_index <= INT_MAX) {
        GElf_Sym sym;
        if (gelf_getsym(sym_data, (int)sym_index, &sym)) {
          const char *name = elf_strptr(elf, strtab_index, sym.st_name);
          if (name && *name) r.name = name;
          r.import_func = sym.st_shndx == SHN_UNDEF && GELF_ST_TYPE(sym.st_info) == STT_FUNC;
        }
      }
    } else if (r.type != GOT_IRELATIVE) {
      continue; /* RELATIVE, 64, TPOFF...: never behind a PLT stub */
    }
    if (in_order && !got_reloc_push(in_order, &r)) return;
    if (r.type == GOT_GLOB_DAT && !r.name) continue;
    if (!got_reloc_push(by_slot, &r)) return;
  }
}

/* The GOT slot a PLT stub jumps through, decoded from the stub's
 * `[endbr64] [bnd] jmp *disp32(%rip)` (ff 25), or 0 when the stub does not
 * start that way (the lazy entries of an IBT .plt, an unknown layout).
 * `stub_vaddr` is the link-time address of the stub. */
static uint64_t decode_stub_got_slot(const uint8_t *stub, size_t stub_size, uint64_t stub_vaddr) {
  size_t off = 0;
  static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (stub_size >= 4 && memcmp(stub, endbr64, 4) == 0) off = 4;
  if (off < stub_size && stub[off] == 0xf2) /* MPX bnd prefix (older binutils' IBT PLT) */
    off++;
  if (off + 6 > stub_size || stub[off] != 0xff || stub[off + 1] != 0x25) return 0;
  int32_t disp;
  memcpy(&disp, stub + off + 2, sizeof(disp));
  return stub_vaddr + off + 6 + (uint64_t)(int64_t)disp;
}

/* The same for an AArch64 stub: `[bti c] adrp x16, page; ldr x17, [x16,
 * #off]; add x16, x16, #off; br x17` — the slot is page + off. */
static uint64_t decode_stub_got_slot_a64(const uint8_t *stub, size_t stub_size,
                                         uint64_t stub_vaddr) {
  size_t off = 0;
  uint32_t w[2];
  if (stub_size >= 4) {
    memcpy(&w[0], stub, 4);
    if (w[0] == 0xd503245fu) off = 4; /* bti c */
  }
  if (off + 8 > stub_size) return 0;
  memcpy(w, stub + off, 8);
  if ((w[0] & 0x9f00001fu) != 0x90000010u) return 0; /* adrp x16, ... */
  if ((w[1] & 0xffc003ffu) != 0xf9400211u) return 0; /* ldr x17, [x16, #imm] */
  uint64_t immlo = (w[0] >> 29) & 3u, immhi = (w[0] >> 5) & 0x7ffffu;
  int64_t pages = (int64_t)((immhi << 2) | immlo);
  if (pages & (1 << 20)) pages -= (int64_t)1 << 21; /* 21-bit signed */
  uint64_t page = ((stub_vaddr + off) & ~(uint64_t)0xfff) + (uint64_t)(pages * 4096);
  return page + (uint64_t)((w[1] >> 10) & 0xfffu) * 8;
}

/* The name for an IRELATIVE stub: the ifunc symbol at the resolver address
 * (objdump would print "*ABS*+0x9f550@plt"; "strnlen@plt" says more).
 * module_syms is this module's candidates, sorted by candidate_compare, so the
 * first match at an address is the preferred alias. */
static const char *ifunc_name_at(const struct sym_candidate *module_syms, size_t n,
                                 uint64_t runtime_addr) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (module_syms[mid].entry.start < runtime_addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && module_syms[lo].entry.start == runtime_addr ? module_syms[lo].entry.name : NULL;
}

enum plt_section_kind { PLT_LAZY, PLT_SEC, PLT_GOT };

struct plt_context {
  struct asmspy_symtab *table;
  struct candidate_list *out;
  const struct module_info *module;
  GElf_Addr bias;
  GElf_Half machine;                       /* EM_X86_64 or EM_AARCH64: the stub encodings differ */
  const struct sym_candidate *module_syms; /* sorted; for IRELATIVE names */
  size_t n_module_syms;
  struct got_reloc_list relocs_by_slot; /* sorted by slot */
  struct got_reloc_list jmprel_order;   /* .rela.plt in file order */
  bool have_plt_sec;
};

static void add_stub(struct plt_context *ctx, uint64_t link_addr, uint64_t size, const char *name) {
  uint64_t start = link_addr + ctx->bias;
  if (start < ctx->module->low || start >= ctx->module->high)
    return; /* garbage section address: not ours to name */
  struct sym_candidate *c = candidate_push(ctx->out);
  if (!c) return;
  c->entry.start = start;
  c->entry.size = size;
  c->entry.name = arena_strdup(&ctx->table->strings, name);
  if (!c->entry.name) {
    ctx->out->n--;
    ctx->out->oom = true;
    return;
  }
  /* "_ZdlPv@plt" -> "operator delete(void*)@plt" (and @got) */
  const char *at = strstr(name, "@plt");
  if (!at) at = strstr(name, "@got");
  char *d = NULL;
  if (at && name[0] == '_' && name[1] == 'Z') {
    char base[512];
    size_t n = (size_t)(at - name) < sizeof base ? (size_t)(at - name) : sizeof base - 1;
    memcpy(base, name, n);
    base[n] = '\0';
    d = demangle_cxx(base);
  }
  if (d) {
    char full[1024];
    snprintf(full, sizeof full, "%s%s", d, at);
    free(d);
    const char *kept = arena_strdup(&ctx->table->strings, full);
    if (kept) {
      c->entry.linkage_name = c->entry.name;
      c->entry.name = kept;
    }
  }
  c->entry.module = ctx->module->basename;
  c->entry.module_path = ctx->module->path;
  c->entry.kind = ASMSPY_SYM_EXTERNAL;
  c->preference = PREF_PLT_STUB;
}

static void add_stub_for_reloc(struct plt_context *ctx, uint64_t link_addr, uint64_t size,
                               const struct got_reloc *reloc) {
  char buf[512];
  if (reloc->name) {
    snprintf(buf, sizeof(buf), "%s@plt", reloc->name);
  } else if (reloc->type == GOT_IRELATIVE) {
    const char *ifunc =
        ifunc_name_at(ctx->module_syms, ctx->n_module_syms, (uint64_t)reloc->addend + ctx->bias);
    if (ifunc)
      snprintf(buf, sizeof(buf), "%s@plt", ifunc);
    else
      snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64 "@plt", (uint64_t)reloc->addend);
  } else {
    return;
  }
  add_stub(ctx, link_addr, size, buf);
}

/* Name every stub of one PLT section. Primary method: decode the GOT slot the
 * stub jumps through and find the relocation filling that slot, which is what
 * objdump does. The "stub i <-> .rela.plt[i]" layout rule is only a fallback:
 * it is wrong for glibc's own libc.so.6, whose .rela.plt lists the IRELATIVE
 * relocations after all JUMP_SLOTs while the stubs are in creation order. */
static void add_plt_section_stubs(struct plt_context *ctx, Elf_Scn *scn, const GElf_Shdr *shdr,
                                  enum plt_section_kind kind) {
  Elf_Data *data = elf_getdata(scn, NULL);
  if (!data || !data->d_buf || data->d_size == 0) return;
  size_t bytes = data->d_size < shdr->sh_size ? data->d_size : shdr->sh_size;
  const uint8_t *base = data->d_buf;

  uint64_t entry_size = 16;
  if (kind == PLT_GOT) {
    /* 8-byte `jmp *; xchg` entries, or 16 with endbr64 under IBT. */
    if (shdr->sh_entsize == 8 || shdr->sh_entsize == 16)
      entry_size = shdr->sh_entsize;
    else
      entry_size = (bytes >= 4 && base[0] == 0xf3 && base[1] == 0x0f) ? 16 : 8;
  }
  size_t entries = bytes / entry_size;

  size_t first = 0;
  if (ctx->machine == EM_AARCH64) {
    /* AArch64: PLT0 is 32 bytes (the resolver call), then 16-byte entries
     * decoded from their adrp/ldr; no .plt.sec / .plt.got */
    if (kind != PLT_LAZY || bytes < 32) return;
    add_stub(ctx, shdr->sh_addr, 32, ".plt");
    for (size_t i = 0; 32 + (i + 1) * 16 <= bytes; i++) {
      uint64_t link_addr = shdr->sh_addr + 32 + i * 16;
      uint64_t slot = decode_stub_got_slot_a64(base + 32 + i * 16, 16, link_addr);
      const struct got_reloc *reloc = slot ? got_reloc_find(&ctx->relocs_by_slot, slot) : NULL;
      if (!reloc && i < ctx->jmprel_order.n) reloc = &ctx->jmprel_order.items[i];
      if (reloc) add_stub_for_reloc(ctx, link_addr, 16, reloc);
    }
    return;
  }
  if (kind == PLT_LAZY) {
    if (ctx->have_plt_sec) {
      /* IBT layout: .plt holds only the resolver stub and the lazy-binding
       * entries the GOT initially points at; the named stubs are in
       * .plt.sec. One entry for the whole section, as objdump labels it. */
      add_stub(ctx, shdr->sh_addr, bytes, ".plt");
      return;
    }
    /* Entry 0 pushes the link map and jumps to the resolver; name it so a
     * step through lazy binding does not show up as "_init+0x20". */
    if (entries > 0) add_stub(ctx, shdr->sh_addr, entry_size, ".plt");
    first = 1;
  }

  for (size_t i = first; i < entries; i++) {
    uint64_t link_addr = shdr->sh_addr + i * entry_size;
    uint64_t slot = decode_stub_got_slot(base + i * entry_size, entry_size, link_addr);
    const struct got_reloc *reloc = slot ? got_reloc_find(&ctx->relocs_by_slot, slot) : NULL;
    if (!reloc && kind != PLT_GOT) {
      size_t index = kind == PLT_SEC ? i : i - 1; /* layout fallback */
      if (index < ctx->jmprel_order.n) reloc = &ctx->jmprel_order.items[index];
    }
    if (reloc) add_stub_for_reloc(ctx, link_addr, entry_size, reloc);
  }
}

/* `name@got`: the GOT slot (8 bytes, kind EXTERNAL) of each imported
 * function a GLOB_DAT relocation fills, x86-64. Code built -fno-plt calls
 * it as `call *name@GOTPCREL(%rip)`, with no PLT stub; entrypatch traces
 * such calls by pointing the slot at a stub, and names the call by the
 * slot's address (plugins/entrypatch/got.c). The slot is data: no code
 * lookup ever lands in it, and select-by-code callers skip it (not in an
 * executable mapping). */
static void add_got_slots(struct plt_context *ctx) {
  for (size_t i = 0; i < ctx->relocs_by_slot.n; i++) {
    const struct got_reloc *r = &ctx->relocs_by_slot.items[i];
    if (r->type != GOT_GLOB_DAT || !r->name || !r->import_func) continue;
    if (i > 0 && ctx->relocs_by_slot.items[i - 1].slot == r->slot)
      continue; /* a hostile file: one slot, one name */
    char buf[512];
    snprintf(buf, sizeof buf, "%s@got", r->name);
    add_stub(ctx, r->slot, 8, buf);
  }
}

static void add_plt_stubs(struct asmspy_symtab *table, struct candidate_list *out,
                          const struct module_info *module, Elf *elf, GElf_Addr bias,
                          const struct sym_candidate *module_syms, size_t n_module_syms) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf, &ehdr) || gelf_getclass(elf) != ELFCLASS64 ||
      (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_AARCH64))
    return; /* the stub encodings below are x86-64 and AArch64 ones */
  size_t section_count, shstrndx;
  if (elf_getshdrnum(elf, &section_count) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0) return;

  struct plt_context ctx = {.table = table,
                            .out = out,
                            .module = module,
                            .bias = bias,
                            .machine = ehdr.e_machine,
                            .module_syms = module_syms,
                            .n_module_syms = n_module_syms};
  Elf_Scn *plt = NULL, *plt_sec = NULL, *plt_got = NULL;
  GElf_Shdr plt_shdr = {0}, plt_sec_shdr = {0}, plt_got_shdr = {0};

  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name) continue;
    if (shdr.sh_type == SHT_RELA && (shdr.sh_flags & SHF_ALLOC)) {
      bool is_jmprel = strcmp(name, ".rela.plt") == 0;
      collect_got_relocs(elf, scn, &shdr, section_count, &ctx.relocs_by_slot,
                         is_jmprel ? &ctx.jmprel_order : NULL);
    } else if (shdr.sh_type == SHT_PROGBITS && (shdr.sh_flags & SHF_EXECINSTR)) {
      if (strcmp(name, ".plt") == 0 && !plt) {
        plt = scn;
        plt_shdr = shdr;
      } else if (strcmp(name, ".plt.sec") == 0 && !plt_sec) {
        plt_sec = scn;
        plt_sec_shdr = shdr;
      } else if (strcmp(name, ".plt.got") == 0 && !plt_got) {
        plt_got = scn;
        plt_got_shdr = shdr;
      }
    }
  }

  if (ctx.relocs_by_slot.n)
    qsort(ctx.relocs_by_slot.items, ctx.relocs_by_slot.n, sizeof(struct got_reloc),
          got_reloc_compare);
  ctx.have_plt_sec = plt_sec != NULL;
  if (plt) add_plt_section_stubs(&ctx, plt, &plt_shdr, PLT_LAZY);
  if (plt_sec) add_plt_section_stubs(&ctx, plt_sec, &plt_sec_shdr, PLT_SEC);
  if (plt_got) add_plt_section_stubs(&ctx, plt_got, &plt_got_shdr, PLT_GOT);
  if (ctx.machine == EM_X86_64) add_got_slots(&ctx);

  free(ctx.relocs_by_slot.items);
  free(ctx.jmprel_order.items);
}

/* ------------------------------------------------------------------------- */
/* Modules through libdw                                                      */
/* ------------------------------------------------------------------------- */

struct module_walk {
  struct asmspy_symtab *table;
  struct candidate_list *out;
};

/* C++: show the demangled name, keep the ELF one for lookups by name. */
static void set_display_name(struct asmspy_symtab *table, struct symtab_entry *e) {
  char *d = demangle_cxx(e->name);
  if (!d) return;
  const char *kept = arena_strdup(&table->strings, d);
  free(d);
  if (!kept) return;
  e->linkage_name = e->name;
  e->name = kept;
}

/* Function symbols of one module. libdw places them at its own bias; `delta`
 * moves them to the module's primary copy (0 unless libdw guessed another). */
static void add_module_symbols(struct module_walk *walk, Dwfl_Module *mod,
                               const struct module_info *module, uint64_t delta) {
  int nsyms = dwfl_module_getsymtab(mod);
  for (int i = 1; i < nsyms; i++) { /* index 0 is the null symbol */
    GElf_Sym sym;
    GElf_Addr libdw_addr;
    GElf_Word shndx;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &libdw_addr, &shndx, NULL, NULL);
    if (!name || !*name) continue;
    unsigned type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    /* Undefined imports carry no code here (their stubs come from the PLT
     * pass); SHN_ABS values are not addresses in this module. */
    if (shndx == SHN_UNDEF || shndx == SHN_ABS) continue;
    uint64_t addr = libdw_addr + delta;
    /* A symbol outside the module's mappings is garbage (hostile file, or a
     * debug file that does not match): drop rather than misname others. */
    if (addr < module->low || addr >= module->high) continue;
    struct sym_candidate *c = candidate_push(walk->out);
    if (!c) return;
    uint64_t size = sym.st_size;
    if (size > module->high - addr) size = module->high - addr;
    c->entry.start = addr;
    c->entry.size = size;
    /* A .symtab built from .symver directives (glibc's, via its debug file)
     * names the default version "fclose@@GLIBC_2.2.5": that IS fclose, and
     * users type "fclose". A compat version ("memcpy@GLIBC_2.2.5") keeps its
     * suffix so it stays distinguishable from the default one. */
    const char *default_version = strstr(name, "@@");
    size_t name_len = default_version ? (size_t)(default_version - name) : strlen(name);
    if (name_len == 0) name_len = strlen(name);
    c->entry.name = arena_strndup(&walk->table->strings, name, name_len);
    if (!c->entry.name) {
      walk->out->n--;
      walk->out->oom = true;
      return;
    }
    set_display_name(walk->table, &c->entry);
    c->entry.module = module->basename;
    c->entry.module_path = module->path;
    c->entry.kind = module->kind;
    c->preference = alias_preference(GELF_ST_BIND(sym.st_info), c->entry.name);
  }
}

/* Symbols and PLT stubs of one module, at runtime bias `bias` (libdw's own
 * placement of the module was at `libdw_bias`). */
static void load_module_symbols(struct module_walk *walk, Dwfl_Module *mod, Elf *elf,
                                const struct module_info *module, uint64_t libdw_bias,
                                uint64_t bias) {
  size_t first = walk->out->n;
  add_module_symbols(walk, mod, module, bias - libdw_bias);
  if (!elf || walk->out->oom) return;
  /* Sort this module's symbols now so IRELATIVE stubs can find their ifunc
   * by address (candidate_compare is a total order, so the global sort
   * later gives the same result whatever order it starts from). */
  size_t n_module = walk->out->n - first;
  if (n_module > 1)
    qsort(walk->out->items + first, n_module, sizeof(struct sym_candidate), candidate_compare);
  /* add_plt_stubs may grow (realloc) the list, so pass a stable copy. */
  struct sym_candidate *module_syms = NULL;
  if (n_module) {
    module_syms = malloc(n_module * sizeof(*module_syms));
    if (module_syms) memcpy(module_syms, walk->out->items + first, n_module * sizeof(*module_syms));
  }
  add_plt_stubs(walk->table, walk->out, module, elf, bias, module_syms, module_syms ? n_module : 0);
  free(module_syms);
}

/* ------------------------------------------------------------------------- */
/* Load segments: file offset <-> address                                     */
/* ------------------------------------------------------------------------- */

/* The PT_LOAD segments of elf, page-aligned. Returns how many (at most
 * MAX_LOAD_SEGMENTS); *out is malloc'd, or NULL when there are none. Every
 * value comes from a file that may be hostile: only overflow-free segments
 * are kept, and they are only ever used for arithmetic. */
static size_t read_load_segments(Elf *elf, struct load_segment **out) {
  *out = NULL;
  size_t phnum;
  if (!elf || elf_getphdrnum(elf, &phnum) != 0 || phnum == 0) return 0;
  struct load_segment *segs = NULL;
  size_t n = 0;
  for (size_t i = 0; i < phnum && i <= INT_MAX && n < MAX_LOAD_SEGMENTS; i++) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0 ||
        ph.p_offset + ph.p_filesz < ph.p_offset)
      continue;
    if (!segs) {
      segs = calloc(MAX_LOAD_SEGMENTS, sizeof(*segs));
      if (!segs) return 0;
    }
    segs[n].off_lo = ph.p_offset & PAGE_MASK_4K;
    segs[n].off_hi = ph.p_offset + ph.p_filesz;
    segs[n].vaddr_lo = ph.p_vaddr - (ph.p_offset - segs[n].off_lo);
    segs[n].exec = (ph.p_flags & PF_X) != 0;
    n++;
  }
  *out = segs;
  return n;
}

/* The segment holding file offset `off`, an executable one first (page
 * rounding can make a read-only segment's last page overlap the text). */
static const struct load_segment *segment_for_offset(const struct load_segment *segs, size_t n,
                                                     uint64_t off) {
  const struct load_segment *any = NULL;
  for (size_t i = 0; i < n; i++) {
    if (off < segs[i].off_lo || off >= segs[i].off_hi) continue;
    if (segs[i].exec) return &segs[i];
    if (!any) any = &segs[i];
  }
  return any;
}

/* The load bias a mapping of file offset `offset` at `start` gives the file. */
static bool implied_bias(const struct load_segment *segs, size_t n, uint64_t start, uint64_t offset,
                         uint64_t *bias) {
  const struct load_segment *s = segment_for_offset(segs, n, offset);
  if (!s) return false;
  *bias = start - (s->vaddr_lo + (offset - s->off_lo));
  return true;
}

/* Where `path` is loaded: the bias of its mapping of the lowest file offset
 * (the one holding the ELF header, for a normal load), and the address range
 * of every mapping of the file at that bias. false when no mapping of the
 * file lies in a segment. */
static bool primary_placement(const struct maps_snapshot *snap, const char *path,
                              const struct load_segment *segs, size_t n_segs, uint64_t *bias,
                              uint64_t *low, uint64_t *high) {
  const struct file_mapping *best = NULL;
  for (size_t i = 0; i < snap->n_files; i++) {
    const struct file_mapping *f = &snap->files[i];
    uint64_t b;
    if (f->path == path && (!best || f->offset < best->offset) &&
        implied_bias(segs, n_segs, f->start, f->offset, &b)) {
      best = f;
      *bias = b;
    }
  }
  if (!best) return false;
  *low = UINT64_MAX;
  *high = 0;
  for (size_t i = 0; i < snap->n_files; i++) {
    const struct file_mapping *f = &snap->files[i];
    uint64_t b;
    if (f->path == path && implied_bias(segs, n_segs, f->start, f->offset, &b) && b == *bias) {
      if (f->start < *low) *low = f->start;
      if (f->end > *high) *high = f->end;
    }
  }
  return true;
}

/* A loaded module is still there when some mapping of its file still places
 * it at the same bias (a segment-less one: still starts at the same address). */
static bool module_still_mapped(const struct module_rec *r, const struct maps_snapshot *snap) {
  for (size_t i = 0; i < snap->n_files; i++) {
    const struct file_mapping *f = &snap->files[i];
    if (f->path != r->path) continue;
    uint64_t b;
    if (r->n_segs ? implied_bias(r->segs, r->n_segs, f->start, f->offset, &b) && b == r->bias
                  : f->start == r->low)
      return true;
  }
  return false;
}

/* ------------------------------------------------------------------------- */
/* Modules through libdw                                                      */
/* ------------------------------------------------------------------------- */

struct module_ref {
  Dwfl_Module *mod;
  const char *path; /* interned */
  Dwarf_Addr low, high;
};

struct module_refs {
  struct asmspy_symtab *table;
  struct module_ref *items;
  size_t n, cap;
  bool oom;
};

static int collect_module_ref(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                              void *arg) {
  (void)userdata;
  (void)start;
  struct module_refs *refs = arg;
  Dwarf_Addr low = 0, high = 0;
  dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  if (high <= low) return DWARF_CB_OK;
  const char *path = name ? name : "?";
  if (strncmp(path, "[vdso", 5) == 0) path = "[vdso]";
  if (refs->n == refs->cap) {
    size_t cap = refs->cap ? refs->cap * 2 : 64;
    struct module_ref *items = realloc(refs->items, cap * sizeof(*items));
    if (!items) {
      refs->oom = true;
      return DWARF_CB_ABORT;
    }
    refs->items = items;
    refs->cap = cap;
  }
  const char *interned = intern_str(refs->table, path);
  if (!interned) {
    refs->oom = true;
    return DWARF_CB_ABORT;
  }
  refs->items[refs->n++] = (struct module_ref){mod, interned, low, high};
  return DWARF_CB_OK;
}

static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = NULL, /* default: ":.debug:/usr/lib/debug" */
};

static bool path_has_record(const struct module_rec *records, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++)
    if (records[i].path == path) return true;
  return false;
}

/* Sort, then keep one entry per address: the preferred alias, with the largest
 * size any alias declared (an alias may be size-0 while another knows it).
 * Returns a malloc'd array (or NULL when out of memory) and its length. */
static struct symtab_entry *finalize_candidates(struct candidate_list *list, size_t *n_out) {
  if (list->n > 1) qsort(list->items, list->n, sizeof(struct sym_candidate), candidate_compare);
  struct symtab_entry *entries = malloc((list->n ? list->n : 1) * sizeof(*entries));
  if (!entries) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < list->n; i++) {
    const struct symtab_entry *e = &list->items[i].entry;
    if (n && entries[n - 1].start == e->start) {
      if (e->size > entries[n - 1].size) entries[n - 1].size = e->size;
      continue;
    }
    entries[n++] = *e;
  }
  *n_out = n;
  return entries;
}

static int rebuild_merged_view(struct asmspy_symtab *table);
static void drop_jit(struct asmspy_symtab *table);

static bool path_dropped(const char *const *dropped, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++)
    if (dropped[i] == path) return true;
  return false;
}

/* Whether a libdw module after refs->items[i] is of the same file. */
static bool file_reported_later(const struct module_refs *refs, size_t i) {
  for (size_t j = i + 1; j < refs->n; j++)
    if (refs->items[j].path == refs->items[i].path) return true;
  return false;
}

/* The table's modules still mapped at the same bias into records (their
 * count back), the paths of the others into dropped[*n_dropped]. */
static size_t keep_mapped_modules(const struct asmspy_symtab *table,
                                  const struct maps_snapshot *snap, struct module_rec *records,
                                  const char **dropped, size_t *n_dropped) {
  size_t n = 0;
  for (size_t i = 0; i < table->n_modules; i++) {
    if (module_still_mapped(&table->modules[i], snap))
      records[n++] = table->modules[i];
    else
      dropped[(*n_dropped)++] = table->modules[i].path;
  }
  return n;
}

/* A file libdw reports that has no module yet: its record (load segments,
 * placement and bias in the snapshot, else libdw's) and its module_info.
 * 0, or ENOMEM with nothing to free. */
static int new_module_record(struct asmspy_symtab *table, const struct maps_snapshot *snap,
                             const struct module_ref *ref, Elf *elf, GElf_Addr libdw_bias,
                             struct module_rec *out, struct module_info *module_out) {
  struct module_rec rec = {.path = ref->path};
  rec.n_segs = read_load_segments(elf, &rec.segs);
  struct module_info module = {.path = ref->path};
  module.basename = intern_basename(table, ref->path);
  if (!module.basename) {
    free(rec.segs);
    return ENOMEM;
  }
  rec.basename = module.basename;
  module.kind = table->main_path && strcmp(ref->path, table->main_path) == 0 ? ASMSPY_SYM_INTERNAL
                                                                             : ASMSPY_SYM_EXTERNAL;
  if (!primary_placement(snap, ref->path, rec.segs, rec.n_segs, &rec.bias, &module.low,
                         &module.high)) {
    rec.bias = libdw_bias; /* no usable mapping (the vdso without segments): trust libdw */
    module.low = ref->low;
    module.high = ref->high;
  }
  rec.low = module.low;
  *out = rec;
  *module_out = module;
  return 0;
}

/* The table's ELF entries but those of dropped modules, merged with fresh
 * (both sorted by start) into merged; a start both have keeps the old
 * entry (modules do not overlap; this keeps starts unique). Returns how
 * many were written. */
static size_t merge_symbols(const struct asmspy_symtab *table, const char **dropped,
                            size_t n_dropped, const struct symtab_entry *fresh, size_t n_fresh,
                            struct symtab_entry *merged) {
  size_t i = 0, j = 0, k = 0;
  while (i < table->n_elf || j < n_fresh) {
    if (i < table->n_elf && path_dropped(dropped, n_dropped, table->elf_syms[i].module_path)) {
      i++;
      continue;
    }
    if (j == n_fresh || (i < table->n_elf && table->elf_syms[i].start <= fresh[j].start)) {
      if (j < n_fresh && fresh[j].start == table->elf_syms[i].start) j++;
      merged[k++] = table->elf_syms[i++];
    } else {
      merged[k++] = fresh[j++];
    }
  }
  return k;
}

/* Install records (the table's modules from now on) and merged (its ELF
 * symbols), free the dropped modules' segments, rebuild the merged view. */
static void commit_modules(struct asmspy_symtab *table, size_t n_old, const char **dropped,
                           size_t n_dropped, struct module_rec *records, size_t n_records,
                           struct symtab_entry *merged, size_t n_merged) {
  for (size_t d = 0; d < n_old; d++)
    if (path_dropped(dropped, n_dropped, table->modules[d].path)) free(table->modules[d].segs);
  free(table->modules);
  table->modules = records;
  table->n_modules = n_records;
  if (table->all_syms != table->elf_syms) free(table->all_syms);
  free(table->elf_syms);
  table->elf_syms = merged;
  table->n_elf = n_merged;
  table->all_syms = table->elf_syms;
  table->n_all = table->n_elf;
  if (rebuild_merged_view(table) != 0) {
    /* Without the merged view the JIT entries would be half-visible. */
    drop_jit(table);
    rebuild_merged_view(table);
  }
  table->stats.modules = table->n_modules;
}

/* Bring the modules in line with `snap`: keep those still mapped at the same
 * bias, drop the others (and their symbols), load every file libdw reports
 * that has no module yet. On failure (an errno: ESRCH, ENOMEM) the table is
 * unchanged. */
static int sync_modules(struct asmspy_symtab *table, const struct maps_snapshot *snap) {
  table->stats.module_syncs++;
  size_t n_old = table->n_modules;
  struct module_refs refs = {.table = table};
  struct candidate_list candidates = {0};
  struct module_rec *records = NULL;
  size_t n_records = 0;
  const char **dropped = calloc(n_old ? n_old : 1, sizeof(*dropped));
  size_t n_dropped = 0;
  size_t n_kept = 0;
  struct symtab_entry *fresh = NULL, *merged = NULL;
  int err = 0;
  if (!dropped) return ENOMEM;

  Dwfl *dwfl = dwfl_begin(&proc_callbacks);
  if (!dwfl) {
    free(dropped);
    return ENOMEM;
  }
  int rc = dwfl_linux_proc_report(dwfl, table->pid);
  if (rc == ENOENT || rc == ESRCH) {
    err = ESRCH;
    goto out;
  }
  /* Another errno from reading /proc, or a libdwfl error after we could read
   * maps ourselves: proceed with no new modules. */
  if (rc == 0 && dwfl_report_end(dwfl, NULL, NULL) == 0)
    dwfl_getmodules(dwfl, collect_module_ref, &refs, 0);
  if (refs.oom) {
    err = ENOMEM;
    goto out;
  }

  records = malloc((n_old + refs.n + 1) * sizeof(*records));
  if (!records) {
    err = ENOMEM;
    goto out;
  }
  n_kept = n_records = keep_mapped_modules(table, snap, records, dropped, &n_dropped);

  struct module_walk walk = {.table = table, .out = &candidates};
  for (size_t i = 0; i < refs.n; i++) {
    const struct module_ref *ref = &refs.items[i];
    if (path_has_record(records, n_records, ref->path))
      continue; /* loaded before, or a second libdw module for the same file */
    GElf_Addr libdw_bias = 0;
    Elf *elf = dwfl_module_getelf(ref->mod, &libdw_bias);
    if (!elf) {
      /* libdw may group a file's mappings into several modules; let a later
       * one of the same file try before recording the file as unreadable. */
      if (file_reported_later(&refs, i)) continue;
    }
    struct module_rec rec;
    struct module_info module;
    err = new_module_record(table, snap, ref, elf, libdw_bias, &rec, &module);
    if (err) goto out;
    records[n_records++] = rec;
    load_module_symbols(&walk, ref->mod, elf, &module, libdw_bias, rec.bias);
    if (candidates.oom) {
      err = ENOMEM;
      goto out;
    }
  }

  size_t n_fresh = 0;
  fresh = finalize_candidates(&candidates, &n_fresh);
  merged = malloc((table->n_elf + n_fresh + 1) * sizeof(*merged));
  if (!fresh || !merged) {
    err = ENOMEM;
    goto out;
  }
  size_t n_merged = merge_symbols(table, dropped, n_dropped, fresh, n_fresh, merged);
  commit_modules(table, n_old, dropped, n_dropped, records, n_records, merged, n_merged);
  records = NULL;
  merged = NULL;
  n_kept = n_records = 0;

out:
  if (records)
    for (size_t r = n_kept; r < n_records; r++) free(records[r].segs);
  free(records);
  free(fresh);
  free(merged);
  free(candidates.items);
  free(refs.items);
  free(dropped);
  dwfl_end(dwfl);
  return err;
}

/* ------------------------------------------------------------------------- */
/* /proc/<pid>/maps and the executable                                         */
/* ------------------------------------------------------------------------- */

static void snapshot_free(struct maps_snapshot *snap) {
  free(snap->maps);
  free(snap->files);
  memset(snap, 0, sizeof(*snap));
}

static uint64_t hash_mapping(uint64_t h, uint64_t start, uint64_t end, uint64_t offset,
                             const char *path) {
  uint64_t key[4] = {start, end, offset, (uint64_t)(uintptr_t)path};
  return fnv1a(h, key, sizeof(key));
}

/* The executable's identity, to recognise its mappings (and so its libdw
 * module) even when readlink's string and the maps path differ. Only looked
 * up while the table does not know the executable yet (want). */
struct exe_identity {
  bool want;
  char path[PATH_MAX];
  struct stat st;
  bool have_stat;
};

static void exe_identity_read(const struct asmspy_symtab *table, struct exe_identity *exe) {
  exe->want = table->main_path == NULL;
  exe->path[0] = '\0';
  exe->have_stat = false;
  if (!exe->want) return;
  char exe_link[64];
  snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)table->pid);
  ssize_t exe_len = readlink(exe_link, exe->path, sizeof(exe->path) - 1);
  exe->path[exe_len > 0 ? exe_len : 0] = '\0';
  exe->have_stat = stat(exe_link, &exe->st) == 0;
}

/* Is the mapping of file name (inode on dev_major:dev_minor) the executable? */
static bool exe_identity_matches(const struct exe_identity *exe, const char *name,
                                 unsigned long long inode, unsigned dev_major, unsigned dev_minor) {
  return name[0] == '/' &&
         ((exe->path[0] && strcmp(name, exe->path) == 0) ||
          (exe->have_stat && inode == (unsigned long long)exe->st.st_ino &&
           dev_major == major(exe->st.st_dev) && dev_minor == minor(exe->st.st_dev)));
}

/* One file-backed mapping (any permissions) into snap->files. Returns 0 or
 * ENOMEM. */
static int snapshot_add_file(struct maps_snapshot *snap, size_t *files_cap, uint64_t start,
                             uint64_t end, uint64_t file_offset, const char *interned) {
  if (snap->n_files == *files_cap) {
    size_t cap = *files_cap ? *files_cap * 2 : 64;
    *files_cap = cap;
    struct file_mapping *files = realloc(snap->files, cap * sizeof(*files));
    if (!files) return ENOMEM;
    snap->files = files;
  }
  snap->files[snap->n_files++] = (struct file_mapping){start, end, file_offset, interned};
  return 0;
}

/* One executable mapping into snap->maps, folded into the snapshot's
 * hashes (the file-backed ones into file_hash too). Returns 0 or ENOMEM. */
static int snapshot_add_exec(struct asmspy_symtab *table, struct maps_snapshot *snap,
                             size_t *maps_cap, uint64_t start, uint64_t end, uint64_t file_offset,
                             const char *name, const char *interned) {
  if (snap->n_maps == *maps_cap) {
    size_t cap = *maps_cap ? *maps_cap * 2 : 64;
    *maps_cap = cap;
    struct exec_mapping *maps = realloc(snap->maps, cap * sizeof(*maps));
    if (!maps) return ENOMEM;
    snap->maps = maps;
  }
  struct exec_mapping *m = &snap->maps[snap->n_maps];
  m->start = start;
  m->end = end;
  m->offset = file_offset;
  m->path = interned;
  m->basename = name[0] ? intern_basename(table, interned) : "?";
  m->module = -1;
  m->alias = false;
  if (!m->basename) return ENOMEM;
  snap->n_maps++;
  snap->exec_hash = hash_mapping(snap->exec_hash, start, end, file_offset, interned);
  if (name[0]) snap->file_hash = hash_mapping(snap->file_hash, start, end, file_offset, interned);
  return 0;
}

/* Parse /proc/<pid>/maps. Looks for the executable's mapping only while the
 * table does not know it yet (the first load). Returns 0 or an errno (ESRCH,
 * EACCES, ENOMEM); the caller frees the snapshot either way. */
static int read_maps_snapshot(struct asmspy_symtab *table, struct maps_snapshot *snap) {
  memset(snap, 0, sizeof(*snap));
  snap->exec_hash = snap->file_hash = FNV_OFFSET;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/maps", (int)table->pid);
  FILE *f = fopen(path, "re");
  if (!f) return errno == ENOENT ? ESRCH : errno;

  struct exe_identity exe;
  exe_identity_read(table, &exe);

  size_t maps_cap = 0, files_cap = 0;
  char *line = NULL;
  size_t line_cap = 0;
  int err = 0;
  const char *main_path = NULL;
  while (getline(&line, &line_cap, f) > 0) {
    unsigned long long start, end, file_offset, inode;
    unsigned dev_major, dev_minor;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &file_offset,
               &dev_major, &dev_minor, &inode, &name_at) < 7)
      continue;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = '\0';
    if (end <= start) continue;
    const char *interned = "";
    if (name[0]) {
      interned = intern_str(table, name);
      if (!interned) {
        err = ENOMEM;
        break;
      }
    }

    if (exe.want && !main_path && exe_identity_matches(&exe, name, inode, dev_major, dev_minor))
      main_path = interned;

    if (name[0]) {
      err = snapshot_add_file(snap, &files_cap, start, end, file_offset, interned);
      if (err) break;
    }
    if (!strchr(perms, 'x')) continue;
    err = snapshot_add_exec(table, snap, &maps_cap, start, end, file_offset, name, interned);
    if (err) break;
  }
  free(line);
  fclose(f);
  if (err) return err;
  if (exe.want && !main_path && exe.path[0]) {
    main_path = intern_str(table, exe.path);
    if (!main_path) return ENOMEM;
  }
  snap->main_path = main_path;
  return 0;
}

/* Make snap's executable mappings the table's, each linked to its module and
 * marked when it is an alias (another copy of the file, see top). */
static void install_snapshot(struct asmspy_symtab *table, struct maps_snapshot *snap) {
  free(table->maps);
  table->maps = snap->maps;
  table->n_maps = snap->n_maps;
  table->exec_hash = snap->exec_hash;
  table->file_hash = snap->file_hash;
  snap->maps = NULL;
  snap->n_maps = 0;
  for (size_t i = 0; i < table->n_maps; i++) {
    struct exec_mapping *m = &table->maps[i];
    m->module = -1;
    m->alias = false;
    if (!m->path[0]) continue;
    for (size_t r = 0; r < table->n_modules && r <= INT32_MAX; r++) {
      const struct module_rec *rec = &table->modules[r];
      if (rec->path != m->path) continue;
      m->module = (int32_t)r;
      uint64_t b;
      m->alias = rec->n_segs && implied_bias(rec->segs, rec->n_segs, m->start, m->offset, &b) &&
                 b != rec->bias;
      break;
    }
  }
}

static const struct exec_mapping *mapping_containing(const struct asmspy_symtab *table,
                                                     uint64_t addr) {
  size_t lo = 0, hi = table->n_maps;
  while (lo < hi) { /* first mapping with start > addr */
    size_t mid = lo + (hi - lo) / 2;
    if (table->maps[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return NULL;
  const struct exec_mapping *m = &table->maps[lo - 1];
  return addr < m->end ? m : NULL;
}

/* ------------------------------------------------------------------------- */
/* JIT perf-map                                                               */
/* ------------------------------------------------------------------------- */

static int jit_compare(const void *pa, const void *pb) {
  const struct sym_candidate *a = pa, *b = pb;
  if (a->entry.start != b->entry.start) return a->entry.start < b->entry.start ? -1 : 1;
  /* Same start: the later line wins (a JIT reuses freed code memory and
   * appends the new name), so order by line and keep the last. */
  return a->order < b->order ? -1 : (a->order > b->order);
}

/* Rebuild all_syms (ELF + JIT in address order) for symtab_count/symtab_at. */
static int rebuild_merged_view(struct asmspy_symtab *table) {
  if (table->all_syms != table->elf_syms) free(table->all_syms);
  table->all_syms = table->elf_syms;
  table->n_all = table->n_elf;
  if (table->n_jit == 0) return 0;
  size_t n = table->n_elf + table->n_jit;
  struct symtab_entry *merged = malloc(n * sizeof(*merged));
  if (!merged) return ENOMEM;
  size_t i = 0, j = 0, k = 0;
  while (i < table->n_elf || j < table->n_jit) {
    if (j == table->n_jit ||
        (i < table->n_elf && table->elf_syms[i].start <= table->jit_syms[j].start))
      merged[k++] = table->elf_syms[i++];
    else
      merged[k++] = table->jit_syms[j++];
  }
  table->all_syms = merged;
  table->n_all = n;
  return 0;
}

/* Parse an already opened and vetted perf-map. On success replaces jit_syms. */
static int parse_perfmap(struct asmspy_symtab *table, FILE *f) {
  struct candidate_list list = {0};
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t len;
  const char *module_path = arena_strdup(&table->jit_strings, table->perfmap.path);
  if (!module_path) return ENOMEM;
  while ((len = getline(&line, &line_cap, f)) > 0 && list.n < PERFMAP_MAX_ENTRIES) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    char *p = line, *end;
    errno = 0;
    uint64_t start = strtoull(p, &end, 16); /* accepts an optional 0x */
    if (end == p || (*end != ' ' && *end != '\t') || errno) continue;
    p = end;
    uint64_t size = strtoull(p, &end, 16);
    if (end == p || (*end != ' ' && *end != '\t') || errno) continue;
    p = end;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || size == 0 || start + size < start) continue;
    struct sym_candidate *c = candidate_push(&list);
    if (!c) break;
    c->entry.start = start;
    c->entry.size = size;
    c->entry.name = arena_strdup(&table->jit_strings, p); /* may contain spaces */
    if (!c->entry.name) {
      list.oom = true;
      break;
    }
    c->entry.module = "[jit]";
    c->entry.module_path = module_path;
    c->entry.kind = ASMSPY_SYM_JIT;
  }
  free(line);
  if (list.oom) {
    free(list.items);
    return ENOMEM;
  }
  if (list.n > 1) qsort(list.items, list.n, sizeof(*list.items), jit_compare);
  struct symtab_entry *entries = malloc((list.n ? list.n : 1) * sizeof(*entries));
  if (!entries) {
    free(list.items);
    return ENOMEM;
  }
  size_t n = 0;
  for (size_t i = 0; i < list.n; i++) {
    if (n && entries[n - 1].start == list.items[i].entry.start)
      n--; /* later line for the same start replaces the earlier one */
    entries[n++] = list.items[i].entry;
  }
  free(list.items);
  free(table->jit_syms);
  table->jit_syms = entries;
  table->n_jit = n;
  return 0;
}

static void drop_jit(struct asmspy_symtab *table) {
  free(table->jit_syms);
  table->jit_syms = NULL;
  table->n_jit = 0;
  table->perfmap.have_identity = false;
}

static void cache_clear(struct asmspy_symtab *table) {
  if (table->cache) memset(table->cache, 0, LOOKUP_CACHE_SLOTS * sizeof(*table->cache));
}

/* Check the perf-map and re-read it when its identity (inode, size, mtime)
 * changed. Returns true when the JIT entries changed. Trust rule: only a
 * regular file owned by the target's uid counts (anyone can create files in
 * /tmp; a file planted by another user must not name the target's code). The
 * open uses O_NOFOLLOW so a symlink is refused, and O_NONBLOCK so a FIFO
 * cannot block the tracer before fstat rejects it. */
static bool refresh_perfmap(struct asmspy_symtab *table) {
  struct perfmap_state *pm = &table->perfmap;
  pm->last_check_ns = monotonic_ns();
  int fd = open(pm->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    /* Gone (the JIT exited or never wrote one): keep what we had. A symlink
     * (ELOOP) is refused outright. */
    if (errno == ELOOP && table->n_jit) {
      drop_jit(table);
      return true;
    }
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != table->target_uid) {
    close(fd);
    if (table->n_jit) {
      drop_jit(table);
      return true;
    }
    return false;
  }
  if (pm->have_identity && pm->dev == st.st_dev && pm->ino == st.st_ino && pm->size == st.st_size &&
      pm->mtime.tv_sec == st.st_mtim.tv_sec && pm->mtime.tv_nsec == st.st_mtim.tv_nsec) {
    close(fd);
    return false;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return false;
  }
  int err = parse_perfmap(table, f);
  fclose(f);
  if (err) return false;
  pm->have_identity = true;
  pm->dev = st.st_dev;
  pm->ino = st.st_ino;
  pm->size = st.st_size;
  pm->mtime = st.st_mtim;
  if (rebuild_merged_view(table) != 0) {
    /* Without the merged view the JIT entries would be half-visible. */
    drop_jit(table);
    rebuild_merged_view(table);
  }
  return true;
}

/* ------------------------------------------------------------------------- */
/* Load / free / reload                                                       */
/* ------------------------------------------------------------------------- */

static void table_release(struct asmspy_symtab *table) {
  if (table->all_syms != table->elf_syms) free(table->all_syms);
  free(table->elf_syms);
  free(table->jit_syms);
  free(table->maps);
  for (size_t i = 0; i < table->n_modules; i++) free(table->modules[i].segs);
  free(table->modules);
  free(table->interned.slots);
  free(table->cache);
  arena_free(&table->strings);
  arena_free(&table->jit_strings);
  memset(table, 0, sizeof(*table));
}

/* Build a complete table for pid into *table (zeroed by the caller). Returns
 * 0 or an errno; on failure the caller releases. */
static int table_build(struct asmspy_symtab *table, pid_t pid) {
  table->pid = pid;
  if (pid <= 0) return ESRCH;
  char proc_dir[32];
  snprintf(proc_dir, sizeof(proc_dir), "/proc/%d", (int)pid);
  struct stat proc_stat;
  if (stat(proc_dir, &proc_stat) != 0) return errno == ENOENT ? ESRCH : errno;
  /* /proc/<pid> is owned by the target's (effective) uid. */
  table->target_uid = proc_stat.st_uid;

  table->cache = calloc(LOOKUP_CACHE_SLOTS, sizeof(*table->cache));
  if (!table->cache) return ENOMEM;

  struct maps_snapshot snap;
  int err = read_maps_snapshot(table, &snap);
  if (!err) {
    table->main_path = snap.main_path;
    table->main_module = table->main_path ? intern_basename(table, table->main_path) : "?";
    if (!table->main_module) err = ENOMEM;
  }
  if (!err) err = sync_modules(table, &snap);
  if (!err) install_snapshot(table, &snap);
  snapshot_free(&snap);
  if (err) return err;

  snprintf(table->perfmap.path, sizeof(table->perfmap.path), "/tmp/perf-%d.map", (int)pid);
  refresh_perfmap(table);
  return 0;
}

struct asmspy_symtab *symtab_load(pid_t pid) {
  struct asmspy_symtab *table = calloc(1, sizeof(*table));
  if (!table) {
    errno = ENOMEM;
    return NULL;
  }
  int err = table_build(table, pid);
  if (err) {
    table_release(table);
    free(table);
    errno = err;
    return NULL;
  }
  return table;
}

void symtab_free(struct asmspy_symtab *t) {
  if (!t) return;
  table_release(t);
  free(t);
}

/* Builds the new table first and swaps it in only on success: if the process
 * is gone, the caller keeps a usable (if stale) table. */
int symtab_reload(struct asmspy_symtab *t) {
  if (!t) {
    errno = EINVAL;
    return -1;
  }
  struct asmspy_symtab fresh;
  memset(&fresh, 0, sizeof(fresh));
  int err = table_build(&fresh, t->pid);
  if (err) {
    table_release(&fresh);
    errno = err;
    return -1;
  }
  fresh.generation = t->generation + 1;
  fresh.stats.maps_reads += t->stats.maps_reads;
  fresh.stats.module_syncs += t->stats.module_syncs;
  table_release(t);
  *t = fresh;
  return 0;
}

/* Re-read /proc/<pid>/maps. Returns true when lookups may now answer
 * differently (the executable mappings changed; when the set of file
 * mappings changed, the modules were synced too). */
static bool refresh_maps(struct asmspy_symtab *table) {
  table->stats.maps_reads++;
  struct maps_snapshot snap;
  bool changed = false;
  if (read_maps_snapshot(table, &snap) == 0 && snap.exec_hash != table->exec_hash &&
      (snap.file_hash == table->file_hash || sync_modules(table, &snap) == 0)) {
    install_snapshot(table, &snap);
    changed = true;
  }
  snapshot_free(&snap);
  return changed;
}

/* ------------------------------------------------------------------------- */
/* Lookup                                                                     */
/* ------------------------------------------------------------------------- */

/* The entry covering addr in a sorted array, or NULL. A sized entry covers
 * [start, start+size). A size-0 entry (hand-written asm, _init) covers up to
 * the next entry, but never past the end of its own executable mapping, so
 * the last size-0 symbol of a library does not swallow the gap after it. */
static const struct symtab_entry *find_covering(const struct asmspy_symtab *table,
                                                const struct symtab_entry *entries, size_t n,
                                                uint64_t addr, bool allow_size0_span) {
  size_t lo = 0, hi = n;
  while (lo < hi) { /* first entry with start > addr */
    size_t mid = lo + (hi - lo) / 2;
    if (entries[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return NULL;
  size_t i = lo - 1;
  const struct symtab_entry *e = &entries[i];
  if (e->size) {
    if (addr - e->start < e->size) return e;
  } else if (allow_size0_span) {
    const struct exec_mapping *m = mapping_containing(table, e->start);
    if (m && addr < m->end) return e;
  }
  for (size_t back = 1; back <= OVERLAP_LOOKBACK && back <= i; back++) {
    const struct symtab_entry *prev = &entries[i - back];
    if (prev->size && addr - prev->start < prev->size) return prev;
  }
  return NULL;
}

static void fill_from_entry(struct asmspy_symbol *out, const struct symtab_entry *e,
                            uint64_t addr) {
  out->name = e->name;
  out->module = e->module;
  out->module_path = e->module_path;
  out->start = e->start;
  out->size = e->size;
  out->offset = addr - e->start;
  out->kind = e->kind;
}

/* No symbol: name the mapping if there is one. start/size then describe the
 * mapping (offset = addr - mapping start), which lets a caller print
 * "libfoo.so+0x1234"; outside every executable mapping start = addr. */
static void fill_unknown(const struct asmspy_symtab *table, struct asmspy_symbol *out,
                         uint64_t addr) {
  const struct exec_mapping *m = table ? mapping_containing(table, addr) : NULL;
  out->name = NULL;
  out->kind = ASMSPY_SYM_UNKNOWN;
  if (m) {
    out->module = m->basename;
    out->module_path = m->path[0] ? m->path : "?";
    out->start = m->start;
    out->size = m->end - m->start;
    out->offset = addr - m->start;
  } else {
    out->module = "?";
    out->module_path = "?";
    out->start = addr;
    out->size = 0;
    out->offset = 0;
  }
}

/* addr lies in an alias mapping m (another copy of m's module): name it
 * through the primary copy at the same file offset. false when the primary
 * copy has no symbol of that module there. */
static bool resolve_alias(const struct asmspy_symtab *table, const struct exec_mapping *m,
                          uint64_t addr, struct asmspy_symbol *out) {
  const struct module_rec *r = &table->modules[m->module];
  uint64_t off = m->offset + (addr - m->start);
  const struct load_segment *s = segment_for_offset(r->segs, r->n_segs, off);
  if (!s) return false;
  uint64_t primary = r->bias + s->vaddr_lo + (off - s->off_lo);
  const struct symtab_entry *e = find_covering(table, table->elf_syms, table->n_elf, primary, true);
  if (!e || e->module_path != r->path) return false;
  fill_from_entry(out, e, primary);
  out->start = addr - out->offset; /* the function as this copy holds it */
  return true;
}

static void resolve_uncached(const struct asmspy_symtab *table, uint64_t addr,
                             struct asmspy_symbol *out) {
  const struct exec_mapping *m = mapping_containing(table, addr);
  const struct symtab_entry *e = NULL;
  if (m && m->alias) {
    if (resolve_alias(table, m, addr, out)) return;
  } else {
    e = find_covering(table, table->elf_syms, table->n_elf, addr, true);
  }
  if (!e) e = find_covering(table, table->jit_syms, table->n_jit, addr, false);
  if (e)
    fill_from_entry(out, e, addr);
  else
    fill_unknown(table, out, addr);
}

static size_t cache_index(uint64_t addr) {
  /* Fibonacci hashing: neighbouring instruction addresses spread over the
   * table instead of colliding every 4 KiB. */
  return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 52) & (LOOKUP_CACHE_SLOTS - 1);
}

/* A miss a newer /proc/<pid>/maps may explain: addr lies in no known
 * executable mapping, or in a file mapping no module was loaded for. (A miss
 * in anonymous memory is JIT code: the perf-map's business.) */
static bool miss_wants_maps(const struct asmspy_symtab *t, uint64_t addr) {
  const struct exec_mapping *m = mapping_containing(t, addr);
  return !m || (m->path[0] == '/' && m->module < 0);
}

/* After a miss at addr: re-read the perf-map (at most once per
 * PERFMAP_RECHECK_NS) and /proc/<pid>/maps (see MAPS_BACKOFF_MAX). Returns
 * true when the table changed (the cache is then cleared). */
static bool retry_miss(struct asmspy_symtab *t, uint64_t addr) {
  bool changed = false;
  if (monotonic_ns() - t->perfmap.last_check_ns >= PERFMAP_RECHECK_NS && refresh_perfmap(t))
    changed = true;
  if (miss_wants_maps(t, addr)) {
    if (t->maps_skip) {
      t->maps_skip--;
    } else {
      if (refresh_maps(t)) changed = true;
      if (miss_wants_maps(t, addr)) { /* not explained: back off */
        t->maps_skip = t->maps_backoff;
        t->maps_backoff = t->maps_backoff ? t->maps_backoff * 2 : 1;
        if (t->maps_backoff > MAPS_BACKOFF_MAX) t->maps_backoff = MAPS_BACKOFF_MAX;
      } else {
        t->maps_skip = 0;
        t->maps_backoff = 0;
      }
    }
  }
  if (changed) {
    cache_clear(t); /* cached misses may be found now, cached JIT names stale */
    t->generation++;
  }
  return changed;
}

int symtab_lookup(struct asmspy_symtab *t, uint64_t addr, struct asmspy_symbol *out) {
  if (!out) return 0;
  /* Fills the whole struct as this host compiled it; a caller copying into a
   * plugin's struct respects that struct's struct_size. */
  ASMSPY_INIT_HEADER(out);
  if (!t) {
    fill_unknown(NULL, out, addr);
    return 0;
  }
  struct lookup_cache_slot *slot = t->cache ? &t->cache[cache_index(addr)] : NULL;
  bool retried = false;
  if (slot && slot->used && slot->addr == addr) {
    *out = slot->sym;
    if (out->kind != ASMSPY_SYM_UNKNOWN) return 0;
    /* A cached miss is still a miss: the JIT or the loader may have named
     * it since. */
    if (!retry_miss(t, addr)) return 0;
    retried = true;
    ASMSPY_INIT_HEADER(out);
  }

  resolve_uncached(t, addr, out);
  if (out->kind == ASMSPY_SYM_UNKNOWN && !retried && retry_miss(t, addr)) {
    ASMSPY_INIT_HEADER(out);
    resolve_uncached(t, addr, out);
  }
  if (slot) {
    slot->addr = addr;
    slot->used = true;
    slot->sym = *out;
  }
  return 0;
}

/* ------------------------------------------------------------------------- */
/* Enumeration                                                                */
/* ------------------------------------------------------------------------- */

size_t symtab_count(const struct asmspy_symtab *t) { return t ? t->n_all : 0; }

const struct symtab_entry *symtab_at(const struct asmspy_symtab *t, size_t i) {
  return t && i < t->n_all ? &t->all_syms[i] : NULL;
}

/* Linear: name lookups are rare (a user naming a function), lookups by
 * address are the hot path and get the sorted array. An exact name wins over
 * its PLT stub, so "puts" finds libc's puts, not the executable's puts@plt. */
const struct symtab_entry *symtab_find_name(const struct asmspy_symtab *t, const char *name) {
  if (!t || !name) return NULL;
  for (size_t i = 0; i < t->n_all; i++)
    if (strcmp(t->all_syms[i].name, name) == 0 ||
        (t->all_syms[i].linkage_name && strcmp(t->all_syms[i].linkage_name, name) == 0))
      return &t->all_syms[i];
  size_t len = strlen(name);
  for (size_t i = 0; i < t->n_all; i++) /* C++ without the parameter list */
    if (t->all_syms[i].linkage_name && strncmp(t->all_syms[i].name, name, len) == 0 &&
        t->all_syms[i].name[len] == '(')
      return &t->all_syms[i];
  for (size_t i = 0; i < t->n_all; i++) {
    const char *candidate = t->all_syms[i].name;
    if (strncmp(candidate, name, len) == 0 && strcmp(candidate + len, "@plt") == 0)
      return &t->all_syms[i];
  }
  return NULL;
}

const char *symtab_main_module(const struct asmspy_symtab *t) {
  return t && t->main_module ? t->main_module : "?";
}

uint64_t symtab_generation(const struct asmspy_symtab *t) { return t ? t->generation : 0; }

void symtab_get_stats(const struct asmspy_symtab *t, struct symtab_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof(*out));
  if (t) *out = t->stats;
}

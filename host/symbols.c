/* Symbol tables for a live process (host service; interface in symbols.h).
 *
 * What is in a table:
 *   - every STT_FUNC / STT_GNU_IFUNC symbol of every ELF module mapped into the
 *     pid, found through libdw's Dwfl (which prefers .symtab, including one in
 *     a separate debug file, and falls back to .dynsym), at runtime addresses;
 *   - synthesized `name@plt` stubs for .plt, .plt.sec and .plt.got (x86-64);
 *   - the JIT perf-map /tmp/perf-<pid>.map, kept in its own array and only
 *     consulted when no ELF symbol covers an address;
 *   - the executable mappings of /proc/<pid>/maps, to name the module of an
 *     address no symbol covers and to bound size-0 symbols.
 *
 * Everything is copied out of libdw/libelf during the load (the Dwfl is closed
 * before symtab_load returns), so a table holds no file descriptors.
 *
 * Strings (names, module names, paths) live in string arenas owned by the
 * table. The perf-map can be re-read implicitly by symtab_lookup, so its names
 * go to an arena that is only ever appended to until symtab_reload/free: a
 * name handed out by a lookup stays valid while the table lives, even across
 * perf-map re-reads. symtab_reload invalidates every pointer handed out before
 * it (callers drop their caches after a reload).
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
    if (!chunk)
      return NULL;
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

/* One executable mapping of /proc/<pid>/maps. */
struct exec_mapping {
  uint64_t start, end;
  const char *path;     /* "" for anonymous */
  const char *basename; /* "?" for anonymous */
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

  struct string_arena strings;     /* ELF names, module names, paths */
  struct string_arena jit_strings; /* perf-map names: append-only (see top) */

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

  const char *main_module; /* basename of the executable */
  const char *main_path;

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

/* Display basename of a module path: "/usr/lib/x/libc.so.6" -> "libc.so.6".
 * Drops the " (deleted)" /proc appends for a replaced file (the path keeps it)
 * and folds libdw's "[vdso: 1234]" into "[vdso]". */
static const char *intern_basename(struct string_arena *arena, const char *path) {
  if (!path || !*path)
    return "?";
  if (strncmp(path, "[vdso", 5) == 0)
    return "[vdso]";
  if (path[0] == '[')
    return arena_strdup(arena, path);
  size_t len = strlen(path);
  if (has_suffix(path, len, " (deleted)"))
    len -= strlen(" (deleted)");
  const char *base = path;
  for (size_t i = 0; i < len; i++)
    if (path[i] == '/')
      base = path + i + 1;
  size_t blen = (size_t)(path + len - base);
  if (blen == 0)
    return arena_strdup(arena, path);
  return arena_strndup(arena, base, blen);
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
  if (list->oom)
    return NULL;
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
  if (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE)
    pref += 1000;
  unsigned underscores = 0;
  while (name[underscores] == '_' && underscores < 3)
    underscores++;
  pref += (3 - underscores) * 100;
  if (bind == STB_GLOBAL || bind == STB_GNU_UNIQUE)
    pref += 10;
  else if (bind == STB_WEAK)
    pref += 5;
  return pref;
}

static int candidate_compare(const void *pa, const void *pb) {
  const struct sym_candidate *a = pa, *b = pb;
  if (a->entry.start != b->entry.start)
    return a->entry.start < b->entry.start ? -1 : 1;
  if (a->preference != b->preference)
    return a->preference > b->preference ? -1 : 1;
  size_t la = strlen(a->entry.name), lb = strlen(b->entry.name);
  if (la != lb)
    return la < lb ? -1 : 1;
  int c = strcmp(a->entry.name, b->entry.name);
  if (c)
    return c;
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
  uint32_t type;    /* R_X86_64_JUMP_SLOT / GLOB_DAT / IRELATIVE */
  const char *name; /* symbol name from the dynamic symbol table (libelf-owned), or NULL */
  int64_t addend;   /* IRELATIVE: link-time address of the ifunc resolver */
};

struct got_reloc_list {
  struct got_reloc *items;
  size_t n, cap;
};

static bool got_reloc_push(struct got_reloc_list *list, const struct got_reloc *r) {
  if (list->n == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 64;
    struct got_reloc *items = realloc(list->items, cap * sizeof(*items));
    if (!items)
      return false;
    list->items = items;
    list->cap = cap;
  }
  list->items[list->n++] = *r;
  return true;
}

static int got_reloc_compare(const void *pa, const void *pb) {
  const struct got_reloc *a = pa, *b = pb;
  if (a->slot != b->slot)
    return a->slot < b->slot ? -1 : 1;
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

/* Read the dynamic relocations of one SHT_RELA section. Every index taken from
 * the file (sh_link, symbol index, st_name) is checked against the sizes libelf
 * reports, because the file may be hostile. Relocations of .rela.plt are also
 * kept in file order (`in_order`) for the layout fallback. */
static void collect_got_relocs(Elf *elf, Elf_Scn *rela_scn, const GElf_Shdr *rela_shdr,
                               size_t section_count, struct got_reloc_list *by_slot,
                               struct got_reloc_list *in_order) {
  Elf_Data *rela_data = elf_getdata(rela_scn, NULL);
  if (!rela_data || !rela_data->d_buf)
    return;
  size_t rela_size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  if (rela_size == 0)
    return;
  size_t rela_count = rela_data->d_size / rela_size;

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
    if (i > INT_MAX || !gelf_getrela(rela_data, (int)i, &rela))
      break;
    struct got_reloc r = {.slot = rela.r_offset,
                          .type = (uint32_t)GELF_R_TYPE(rela.r_info),
                          .name = NULL,
                          .addend = rela.r_addend};
    if (r.type == R_X86_64_JUMP_SLOT || r.type == R_X86_64_GLOB_DAT) {
      size_t sym_index = GELF_R_SYM(rela.r_info);
      if (sym_index != 0 && sym_index < sym_count && sym_index <= INT_MAX) {
        GElf_Sym sym;
        if (gelf_getsym(sym_data, (int)sym_index, &sym)) {
          const char *name = elf_strptr(elf, strtab_index, sym.st_name);
          if (name && *name)
            r.name = name;
        }
      }
    } else if (r.type != R_X86_64_IRELATIVE) {
      continue; /* RELATIVE, 64, TPOFF...: never behind a PLT stub */
    }
    if (in_order && !got_reloc_push(in_order, &r))
      return;
    if (r.type == R_X86_64_GLOB_DAT && !r.name)
      continue;
    if (!got_reloc_push(by_slot, &r))
      return;
  }
}

/* The GOT slot a PLT stub jumps through, decoded from the stub's
 * `[endbr64] [bnd] jmp *disp32(%rip)` (ff 25), or 0 when the stub does not
 * start that way (the lazy entries of an IBT .plt, an unknown layout).
 * `stub_vaddr` is the link-time address of the stub. */
static uint64_t decode_stub_got_slot(const uint8_t *stub, size_t stub_size, uint64_t stub_vaddr) {
  size_t off = 0;
  static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (stub_size >= 4 && memcmp(stub, endbr64, 4) == 0)
    off = 4;
  if (off < stub_size && stub[off] == 0xf2) /* MPX bnd prefix (older binutils' IBT PLT) */
    off++;
  if (off + 6 > stub_size || stub[off] != 0xff || stub[off + 1] != 0x25)
    return 0;
  int32_t disp;
  memcpy(&disp, stub + off + 2, sizeof(disp));
  return stub_vaddr + off + 6 + (uint64_t)(int64_t)disp;
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
  return lo < n && module_syms[lo].entry.start == runtime_addr ? module_syms[lo].entry.name
                                                               : NULL;
}

enum plt_section_kind { PLT_LAZY, PLT_SEC, PLT_GOT };

struct plt_context {
  struct asmspy_symtab *table;
  struct candidate_list *out;
  const struct module_info *module;
  GElf_Addr bias;
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
  if (!c)
    return;
  c->entry.start = start;
  c->entry.size = size;
  c->entry.name = arena_strdup(&ctx->table->strings, name);
  if (!c->entry.name) {
    ctx->out->n--;
    ctx->out->oom = true;
    return;
  }
  /* "_ZdlPv@plt" -> "operator delete(void*)@plt" */
  const char *at = strstr(name, "@plt");
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
    snprintf(full, sizeof full, "%s@plt", d);
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
  } else if (reloc->type == R_X86_64_IRELATIVE) {
    const char *ifunc = ifunc_name_at(ctx->module_syms, ctx->n_module_syms,
                                      (uint64_t)reloc->addend + ctx->bias);
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
  if (!data || !data->d_buf || data->d_size == 0)
    return;
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
    if (entries > 0)
      add_stub(ctx, shdr->sh_addr, entry_size, ".plt");
    first = 1;
  }

  for (size_t i = first; i < entries; i++) {
    uint64_t link_addr = shdr->sh_addr + i * entry_size;
    uint64_t slot = decode_stub_got_slot(base + i * entry_size, entry_size, link_addr);
    const struct got_reloc *reloc = slot ? got_reloc_find(&ctx->relocs_by_slot, slot) : NULL;
    if (!reloc && kind != PLT_GOT) {
      size_t index = kind == PLT_SEC ? i : i - 1; /* layout fallback */
      if (index < ctx->jmprel_order.n)
        reloc = &ctx->jmprel_order.items[index];
    }
    if (reloc)
      add_stub_for_reloc(ctx, link_addr, entry_size, reloc);
  }
}

static void add_plt_stubs(struct asmspy_symtab *table, struct candidate_list *out,
                          const struct module_info *module, Elf *elf, GElf_Addr bias,
                          const struct sym_candidate *module_syms, size_t n_module_syms) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf, &ehdr) || gelf_getclass(elf) != ELFCLASS64 ||
      ehdr.e_machine != EM_X86_64)
    return; /* the stub encodings below are x86-64 ones */
  size_t section_count, shstrndx;
  if (elf_getshdrnum(elf, &section_count) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return;

  struct plt_context ctx = {.table = table,
                            .out = out,
                            .module = module,
                            .bias = bias,
                            .module_syms = module_syms,
                            .n_module_syms = n_module_syms};
  Elf_Scn *plt = NULL, *plt_sec = NULL, *plt_got = NULL;
  GElf_Shdr plt_shdr = {0}, plt_sec_shdr = {0}, plt_got_shdr = {0};

  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr))
      continue;
    const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name)
      continue;
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
  if (plt)
    add_plt_section_stubs(&ctx, plt, &plt_shdr, PLT_LAZY);
  if (plt_sec)
    add_plt_section_stubs(&ctx, plt_sec, &plt_sec_shdr, PLT_SEC);
  if (plt_got)
    add_plt_section_stubs(&ctx, plt_got, &plt_got_shdr, PLT_GOT);

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

static void add_module_symbols(struct module_walk *walk, Dwfl_Module *mod,
                               const struct module_info *module) {
  int nsyms = dwfl_module_getsymtab(mod);
  for (int i = 1; i < nsyms; i++) { /* index 0 is the null symbol */
    GElf_Sym sym;
    GElf_Addr addr;
    GElf_Word shndx;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
    if (!name || !*name)
      continue;
    unsigned type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC)
      continue;
    /* Undefined imports carry no code here (their stubs come from the PLT
     * pass); SHN_ABS values are not addresses in this module. */
    if (shndx == SHN_UNDEF || shndx == SHN_ABS)
      continue;
    /* A symbol outside the module's mappings is garbage (hostile file, or a
     * debug file that does not match): drop rather than misname others. */
    if (addr < module->low || addr >= module->high)
      continue;
    struct sym_candidate *c = candidate_push(walk->out);
    if (!c)
      return;
    uint64_t size = sym.st_size;
    if (size > module->high - addr)
      size = module->high - addr;
    c->entry.start = addr;
    c->entry.size = size;
    /* A .symtab built from .symver directives (glibc's, via its debug file)
     * names the default version "fclose@@GLIBC_2.2.5": that IS fclose, and
     * users type "fclose". A compat version ("memcpy@GLIBC_2.2.5") keeps its
     * suffix so it stays distinguishable from the default one. */
    const char *default_version = strstr(name, "@@");
    size_t name_len = default_version ? (size_t)(default_version - name) : strlen(name);
    if (name_len == 0)
      name_len = strlen(name);
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

static int module_callback(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                           void *arg) {
  (void)userdata;
  (void)start;
  struct module_walk *walk = arg;
  struct asmspy_symtab *table = walk->table;
  if (walk->out->oom)
    return DWARF_CB_ABORT;

  struct module_info module = {0};
  Dwarf_Addr low = 0, high = 0;
  dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  if (high <= low)
    return DWARF_CB_OK;
  module.low = low;
  module.high = high;
  const char *path = name ? name : "?";
  if (strncmp(path, "[vdso", 5) == 0)
    path = "[vdso]";
  module.path = arena_strdup(&table->strings, path);
  module.basename = intern_basename(&table->strings, path);
  if (!module.path || !module.basename) {
    walk->out->oom = true;
    return DWARF_CB_ABORT;
  }
  module.kind = table->main_path && strcmp(path, table->main_path) == 0 ? ASMSPY_SYM_INTERNAL
                                                                         : ASMSPY_SYM_EXTERNAL;

  size_t first = walk->out->n;
  add_module_symbols(walk, mod, &module);

  GElf_Addr bias = 0;
  Elf *elf = dwfl_module_getelf(mod, &bias);
  if (elf && !walk->out->oom) {
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
      if (module_syms)
        memcpy(module_syms, walk->out->items + first, n_module * sizeof(*module_syms));
    }
    add_plt_stubs(table, walk->out, &module, elf, bias, module_syms,
                  module_syms ? n_module : 0);
    free(module_syms);
  }
  return walk->out->oom ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = NULL, /* default: ":.debug:/usr/lib/debug" */
};

/* Returns 0, or an errno (ESRCH when the process is gone). */
static int collect_elf_symbols(struct asmspy_symtab *table, struct candidate_list *out) {
  Dwfl *dwfl = dwfl_begin(&proc_callbacks);
  if (!dwfl)
    return ENOMEM;
  int rc = dwfl_linux_proc_report(dwfl, table->pid);
  if (rc != 0) {
    dwfl_end(dwfl);
    /* A positive errno from reading /proc; -1 is a libdwfl error, after we
     * could read maps ourselves: proceed with no ELF symbols. */
    if (rc == ENOENT || rc == ESRCH)
      return ESRCH;
    return 0;
  }
  if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
    dwfl_end(dwfl);
    return 0;
  }
  struct module_walk walk = {.table = table, .out = out};
  dwfl_getmodules(dwfl, module_callback, &walk, 0);
  dwfl_end(dwfl);
  return out->oom ? ENOMEM : 0;
}

/* Sort, then keep one entry per address: the preferred alias, with the largest
 * size any alias declared (an alias may be size-0 while another knows it). */
static int finalize_elf_symbols(struct asmspy_symtab *table, struct candidate_list *list) {
  if (list->n > 1)
    qsort(list->items, list->n, sizeof(struct sym_candidate), candidate_compare);
  struct symtab_entry *entries = malloc((list->n ? list->n : 1) * sizeof(*entries));
  if (!entries)
    return ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < list->n; i++) {
    const struct symtab_entry *e = &list->items[i].entry;
    if (n && entries[n - 1].start == e->start) {
      if (e->size > entries[n - 1].size)
        entries[n - 1].size = e->size;
      continue;
    }
    entries[n++] = *e;
  }
  table->elf_syms = entries;
  table->n_elf = n;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* /proc/<pid>/maps and the executable                                         */
/* ------------------------------------------------------------------------- */

/* Returns 0 or an errno (ESRCH, EACCES, ENOMEM). */
static int read_proc_maps(struct asmspy_symtab *table) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/maps", (int)table->pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return errno == ENOENT ? ESRCH : errno;

  /* The executable's identity, to recognise its mappings (and so its libdw
   * module) even when readlink's string and the maps path differ. */
  char exe_link[64], exe_path[PATH_MAX];
  snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)table->pid);
  ssize_t exe_len = readlink(exe_link, exe_path, sizeof(exe_path) - 1);
  if (exe_len > 0)
    exe_path[exe_len] = '\0';
  else
    exe_path[0] = '\0';
  struct stat exe_stat;
  bool have_exe_stat = stat(exe_link, &exe_stat) == 0;

  size_t cap = 0;
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

    if (!main_path && name[0] == '/' &&
        ((exe_path[0] && strcmp(name, exe_path) == 0) ||
         (have_exe_stat && inode == (unsigned long long)exe_stat.st_ino &&
          dev_major == major(exe_stat.st_dev) && dev_minor == minor(exe_stat.st_dev)))) {
      main_path = arena_strdup(&table->strings, name);
      if (!main_path) {
        err = ENOMEM;
        break;
      }
    }
    if (!strchr(perms, 'x') || end <= start)
      continue;
    if (table->n_maps == cap) {
      cap = cap ? cap * 2 : 64;
      struct exec_mapping *maps = realloc(table->maps, cap * sizeof(*maps));
      if (!maps) {
        err = ENOMEM;
        break;
      }
      table->maps = maps;
    }
    struct exec_mapping *m = &table->maps[table->n_maps];
    m->start = start;
    m->end = end;
    m->path = arena_strdup(&table->strings, name);
    m->basename = name[0] ? intern_basename(&table->strings, name) : "?";
    if (!m->path || !m->basename) {
      err = ENOMEM;
      break;
    }
    table->n_maps++;
  }
  free(line);
  fclose(f);
  if (err)
    return err;

  if (!main_path && exe_path[0])
    main_path = arena_strdup(&table->strings, exe_path);
  table->main_path = main_path;
  table->main_module = main_path ? intern_basename(&table->strings, main_path) : "?";
  if (!table->main_module)
    return ENOMEM;
  return 0;
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
  if (lo == 0)
    return NULL;
  const struct exec_mapping *m = &table->maps[lo - 1];
  return addr < m->end ? m : NULL;
}

/* ------------------------------------------------------------------------- */
/* JIT perf-map                                                               */
/* ------------------------------------------------------------------------- */

static int jit_compare(const void *pa, const void *pb) {
  const struct sym_candidate *a = pa, *b = pb;
  if (a->entry.start != b->entry.start)
    return a->entry.start < b->entry.start ? -1 : 1;
  /* Same start: the later line wins (a JIT reuses freed code memory and
   * appends the new name), so order by line and keep the last. */
  return a->order < b->order ? -1 : (a->order > b->order);
}

/* Rebuild all_syms (ELF + JIT in address order) for symtab_count/symtab_at. */
static int rebuild_merged_view(struct asmspy_symtab *table) {
  if (table->all_syms != table->elf_syms)
    free(table->all_syms);
  table->all_syms = table->elf_syms;
  table->n_all = table->n_elf;
  if (table->n_jit == 0)
    return 0;
  size_t n = table->n_elf + table->n_jit;
  struct symtab_entry *merged = malloc(n * sizeof(*merged));
  if (!merged)
    return ENOMEM;
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
  if (!module_path)
    return ENOMEM;
  while ((len = getline(&line, &line_cap, f)) > 0 && list.n < PERFMAP_MAX_ENTRIES) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    char *p = line, *end;
    errno = 0;
    uint64_t start = strtoull(p, &end, 16); /* accepts an optional 0x */
    if (end == p || (*end != ' ' && *end != '\t') || errno)
      continue;
    p = end;
    uint64_t size = strtoull(p, &end, 16);
    if (end == p || (*end != ' ' && *end != '\t') || errno)
      continue;
    p = end;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p || size == 0 || start + size < start)
      continue;
    struct sym_candidate *c = candidate_push(&list);
    if (!c)
      break;
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
  if (list.n > 1)
    qsort(list.items, list.n, sizeof(*list.items), jit_compare);
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
  if (table->cache)
    memset(table->cache, 0, LOOKUP_CACHE_SLOTS * sizeof(*table->cache));
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
  if (pm->have_identity && pm->dev == st.st_dev && pm->ino == st.st_ino &&
      pm->size == st.st_size && pm->mtime.tv_sec == st.st_mtim.tv_sec &&
      pm->mtime.tv_nsec == st.st_mtim.tv_nsec) {
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
  if (err)
    return false;
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
  if (table->all_syms != table->elf_syms)
    free(table->all_syms);
  free(table->elf_syms);
  free(table->jit_syms);
  free(table->maps);
  free(table->cache);
  arena_free(&table->strings);
  arena_free(&table->jit_strings);
  memset(table, 0, sizeof(*table));
}

/* Build a complete table for pid into *table (zeroed by the caller). Returns
 * 0 or an errno; on failure the caller releases. */
static int table_build(struct asmspy_symtab *table, pid_t pid) {
  table->pid = pid;
  if (pid <= 0)
    return ESRCH;
  char proc_dir[32];
  snprintf(proc_dir, sizeof(proc_dir), "/proc/%d", (int)pid);
  struct stat proc_stat;
  if (stat(proc_dir, &proc_stat) != 0)
    return errno == ENOENT ? ESRCH : errno;
  /* /proc/<pid> is owned by the target's (effective) uid. */
  table->target_uid = proc_stat.st_uid;

  table->cache = calloc(LOOKUP_CACHE_SLOTS, sizeof(*table->cache));
  if (!table->cache)
    return ENOMEM;

  int err = read_proc_maps(table);
  if (err)
    return err;

  struct candidate_list candidates = {0};
  err = collect_elf_symbols(table, &candidates);
  if (!err)
    err = finalize_elf_symbols(table, &candidates);
  free(candidates.items);
  if (err)
    return err;
  table->all_syms = table->elf_syms;
  table->n_all = table->n_elf;

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
  if (!t)
    return;
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
  table_release(t);
  *t = fresh;
  return 0;
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
  if (lo == 0)
    return NULL;
  size_t i = lo - 1;
  const struct symtab_entry *e = &entries[i];
  if (e->size) {
    if (addr - e->start < e->size)
      return e;
  } else if (allow_size0_span) {
    const struct exec_mapping *m = mapping_containing(table, e->start);
    if (m && addr < m->end)
      return e;
  }
  for (size_t back = 1; back <= OVERLAP_LOOKBACK && back <= i; back++) {
    const struct symtab_entry *prev = &entries[i - back];
    if (prev->size && addr - prev->start < prev->size)
      return prev;
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

static void resolve_uncached(const struct asmspy_symtab *table, uint64_t addr,
                             struct asmspy_symbol *out) {
  const struct symtab_entry *e = find_covering(table, table->elf_syms, table->n_elf, addr, true);
  if (!e)
    e = find_covering(table, table->jit_syms, table->n_jit, addr, false);
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

int symtab_lookup(struct asmspy_symtab *t, uint64_t addr, struct asmspy_symbol *out) {
  if (!out)
    return 0;
  /* Fills the whole struct as this host compiled it; a caller copying into a
   * plugin's struct respects that struct's struct_size. */
  ASMSPY_INIT_HEADER(out);
  if (!t) {
    fill_unknown(NULL, out, addr);
    return 0;
  }
  struct lookup_cache_slot *slot = t->cache ? &t->cache[cache_index(addr)] : NULL;
  if (slot && slot->used && slot->addr == addr) {
    *out = slot->sym;
    if (out->kind != ASMSPY_SYM_UNKNOWN)
      return 0;
    /* A cached miss is still a miss: the JIT may have named it since. */
    if (monotonic_ns() - t->perfmap.last_check_ns < PERFMAP_RECHECK_NS || !refresh_perfmap(t))
      return 0;
    cache_clear(t);
  }

  resolve_uncached(t, addr, out);
  if (out->kind == ASMSPY_SYM_UNKNOWN &&
      monotonic_ns() - t->perfmap.last_check_ns >= PERFMAP_RECHECK_NS && refresh_perfmap(t)) {
    cache_clear(t); /* cached JIT results may be stale or cached misses found now */
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

size_t symtab_count(const struct asmspy_symtab *t) {
  return t ? t->n_all : 0;
}

const struct symtab_entry *symtab_at(const struct asmspy_symtab *t, size_t i) {
  return t && i < t->n_all ? &t->all_syms[i] : NULL;
}

/* Linear: name lookups are rare (a user naming a function), lookups by
 * address are the hot path and get the sorted array. An exact name wins over
 * its PLT stub, so "puts" finds libc's puts, not the executable's puts@plt. */
const struct symtab_entry *symtab_find_name(const struct asmspy_symtab *t, const char *name) {
  if (!t || !name)
    return NULL;
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

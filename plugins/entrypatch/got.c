/* got.c: which GOT slots of a module may be pointed at a stub (see got.h).
 * Everything here works on the module's file at link-time addresses; only
 * ep_got_plan turns the slot's runtime address into one (through the
 * mapping that holds it) and reads the slot's value from the target. */
#define _GNU_SOURCE
#include "plugins/entrypatch/got.h"
#include "plugins/entrypatch/agent_layout.h"

#include <capstone/capstone.h>
#include <stdarg.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GOT_CODE_MAX (64ull << 20) /* code decoded per module at most */
#define GOT_MAX_PLT 4

struct slot_info {
  uint64_t slot;  /* link-time address */
  uint32_t calls; /* call/jmp *slot(%rip) outside the PLT sections */
  uint32_t plt;   /* the same inside a PLT section (a PLT stub reads it) */
  uint32_t other; /* any other reference: its value can be copied */
  uint64_t other_at;
  char other_how[64]; /* the first one: its mnemonic and operands */
};

struct got_module {
  char *path;
  uint64_t dev, inode;
  char bad[200]; /* the module is refused whole: why */
  int fixed;     /* ET_EXEC: code may address a slot absolutely (disp32, no base) */
  struct slot_info *slots;
  size_t nslots;
  struct {
    uint64_t lo, hi;
  } plt[GOT_MAX_PLT];
  size_t nplt;
  struct {
    uint64_t off, filesz, vaddr;
  } * loads;
  size_t nloads;
};

struct ep_got {
  const struct ep_maps *maps;
  struct got_module *mods;
  size_t n;
};

int ep_is_got_slot(const char *name) {
  size_t n = name ? strlen(name) : 0;
  return n > 4 && !strcmp(name + n - 4, "@got");
}

static int cmp_slot(const void *a, const void *b) {
  const struct slot_info *x = a, *y = b;
  return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The slot holding address t ([slot, slot + 8)), or NULL. */
static struct slot_info *slot_holding(struct got_module *m, uint64_t t) {
  if (!m->nslots || t < m->slots[0].slot || t >= m->slots[m->nslots - 1].slot + 8) return NULL;
  size_t lo = 0, hi = m->nslots;
  while (lo < hi) { /* the first slot > t */
    size_t mid = lo + (hi - lo) / 2;
    if (m->slots[mid].slot <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo) return NULL;
  struct slot_info *s = &m->slots[lo - 1];
  return t - s->slot < 8 ? s : NULL;
}

static int blessed(const uint64_t *v, size_t n, uint64_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo] == a;
}

static void other_ref(struct slot_info *s, uint64_t at, const char *how, const char *ops) {
  if (s->other++) return;
  s->other_at = at;
  size_t n = strlen(how) < sizeof s->other_how - 1 ? strlen(how) : sizeof s->other_how - 1;
  memcpy(s->other_how, how, n);
  s->other_how[n] = '\0';
  if (ops && *ops && n + 2 < sizeof s->other_how) {
    s->other_how[n++] = ' ';
    for (const char *o = ops; *o && n + 1 < sizeof s->other_how;) s->other_how[n++] = *o++;
    s->other_how[n] = '\0';
  }
}

struct code_sec {
  uint64_t addr;
  const uint8_t *bytes;
  size_t size;
  int plt;
};

/* 1. the linear sweep: every memory operand that addresses a slot */
static int sweep(csh cs, struct got_module *m, const struct code_sec *sec, uint64_t **bless,
                 size_t *nbless, size_t *capbless) {
  cs_insn *in = cs_malloc(cs);
  if (!in) return -1;
  const uint8_t *code = sec->bytes;
  size_t left = sec->size;
  uint64_t ip = sec->addr;
  int rc = 0;
  while (left > 0) {
    if (!cs_disasm_iter(cs, &code, &left, &ip, in)) {
      /* padding at the end of a section (zeros, int3, nop) is no code */
      size_t k = 0;
      while (k < left && (code[k] == 0 || code[k] == 0xcc || code[k] == 0x90)) k++;
      if (k == left && left < 64) break;
      snprintf(m->bad, sizeof m->bad,
               "its module's code does not decode whole (at 0x%llx): a GOT slot's readers "
               "cannot all be known",
               (unsigned long long)ip);
      rc = -1;
      break;
    }
    const cs_x86 *x = &in->detail->x86;
    for (uint8_t i = 0; i < x->op_count; i++) {
      const cs_x86_op *o = &x->operands[i];
      if (o->type != X86_OP_MEM) continue;
      uint64_t t;
      if (o->mem.base == X86_REG_RIP && o->mem.index == X86_REG_INVALID)
        t = in->address + in->size + (uint64_t)o->mem.disp;
      else if (m->fixed && o->mem.base == X86_REG_INVALID && o->mem.index == X86_REG_INVALID &&
               o->mem.segment == X86_REG_INVALID)
        t = (uint64_t)o->mem.disp; /* absolute (non-PIE code) */
      else
        continue;
      struct slot_info *s = slot_holding(m, t);
      if (!s) continue;
      int callish = (in->id == X86_INS_CALL || in->id == X86_INS_JMP) && x->op_count == 1 &&
                    o->mem.base == X86_REG_RIP && o->mem.segment == X86_REG_INVALID &&
                    o->size == 8 && t == s->slot;
      if (!callish) {
        other_ref(s, in->address, in->mnemonic, in->op_str);
        continue;
      }
      if (sec->plt) {
        s->plt++;
      } else {
        s->calls++;
      }
      /* `ff 15/25 disp32` (with prefixes): the disp32 is the last 4 bytes */
      if (*nbless == *capbless) {
        size_t cap = *capbless ? *capbless * 2 : 256;
        uint64_t *nv = realloc(*bless, cap * sizeof *nv);
        if (!nv) {
          rc = -1;
          break;
        }
        *bless = nv, *capbless = cap;
      }
      (*bless)[(*nbless)++] = in->address + in->size - 4;
    }
    if (rc) break;
  }
  cs_free(in, 1);
  return rc;
}

/* 2. the byte pass: any 4 bytes that, read as a displacement, would address
 * a slot, and are not one of the calls the sweep blessed */
static void byte_pass(struct got_module *m, const struct code_sec *sec, const uint64_t *bless,
                      size_t nbless) {
  static const unsigned imm[] = {0, 1, 2, 4};
  for (size_t p = 0; p + 4 <= sec->size; p++) {
    int32_t d;
    memcpy(&d, sec->bytes + p, 4);
    uint64_t at = sec->addr + p;
    struct slot_info *hit = m->fixed ? slot_holding(m, (uint64_t)(int64_t)d) : NULL;
    for (size_t k = 0; !hit && k < sizeof imm / sizeof imm[0]; k++)
      hit = slot_holding(m, at + 4 + imm[k] + (uint64_t)(int64_t)d);
    if (hit && !blessed(bless, nbless, at)) other_ref(hit, at, "bytes that may address it", NULL);
  }
}

/* The module's file, if it is still the one mapped and an x86-64 ELF file
 * libelf reads (else m->bad says why, and NULL). *fd stays open with it. */
static Elf *open_module_elf(struct got_module *m, int *fd, size_t *shstrndx, size_t *nsec) {
  *fd = open(m->path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    snprintf(m->bad, sizeof m->bad, "its module's file cannot be read");
    return NULL;
  }
  struct stat st;
  if (fstat(*fd, &st) != 0 || (m->inode && (uint64_t)st.st_ino != m->inode)) {
    snprintf(m->bad, sizeof m->bad, "its module's file was replaced since it was mapped");
    close(*fd);
    return NULL;
  }
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr(elf, &eh) || gelf_getclass(elf) != ELFCLASS64 ||
      eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, shstrndx) != 0 ||
      elf_getshdrnum(elf, nsec) != 0) {
    snprintf(m->bad, sizeof m->bad, "its module is not an x86-64 ELF file libelf reads");
    if (elf) elf_end(elf);
    close(*fd);
    return NULL;
  }
  m->fixed = eh.e_type == ET_EXEC;
  return elf;
}

/* The PT_LOAD segments: file offset -> link-time address (ep_got_plan
 * turns a slot's runtime address into its link-time one through them). */
static void read_load_segments(struct got_module *m, Elf *elf) {
  size_t nph = 0;
  elf_getphdrnum(elf, &nph);
  m->loads = calloc(nph ? nph : 1, sizeof *m->loads);
  for (size_t i = 0; m->loads && i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
      m->loads[m->nloads].off = ph.p_offset, m->loads[m->nloads].filesz = ph.p_filesz,
      m->loads[m->nloads++].vaddr = ph.p_vaddr;
  }
}

/* What the section walk gathers: the code to decode, and the targets of
 * the RELATIVE relocations (pointers in data, maybe to a slot). */
struct elf_walk {
  struct code_sec *code;
  size_t ncode;
  uint64_t total; /* bytes of code */
  uint64_t *relative;
  size_t nrel, caprel;
  size_t capslots; /* of m->slots */
};

/* An executable section: code to sweep; a PLT section also bounds where a
 * slot's value is not resolved yet. */
static void add_code_section(struct got_module *m, struct elf_walk *w, Elf_Scn *scn,
                             const GElf_Shdr *sh, const char *name) {
  Elf_Data *d = elf_getdata(scn, NULL);
  if (!d || !d->d_buf) return;
  int plt = !strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got");
  w->code[w->ncode++] = (struct code_sec){sh->sh_addr, d->d_buf,
                                          d->d_size < sh->sh_size ? d->d_size : sh->sh_size, plt};
  w->total += sh->sh_size;
  if (plt && m->nplt < GOT_MAX_PLT)
    m->plt[m->nplt].lo = sh->sh_addr, m->plt[m->nplt++].hi = sh->sh_addr + sh->sh_size;
}

/* A dynamic relocation section: every GLOB_DAT/JUMP_SLOT of an undefined
 * function is a slot; every RELATIVE target is kept, to be checked against
 * the slots once they are all known. Out of memory: the rest of the
 * section is skipped. */
static void add_relocations(struct got_module *m, struct elf_walk *w, Elf *elf, Elf_Scn *scn,
                            const GElf_Shdr *sh, size_t nsec) {
  Elf_Data *d = elf_getdata(scn, NULL);
  Elf_Scn *symscn = sh->sh_link < nsec ? elf_getscn(elf, sh->sh_link) : NULL;
  GElf_Shdr symsh;
  Elf_Data *syms = NULL;
  if (symscn && gelf_getshdr(symscn, &symsh) && symsh.sh_type == SHT_DYNSYM)
    syms = elf_getdata(symscn, NULL);
  size_t esz = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  size_t n = d && esz ? d->d_size / esz : 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Rela r;
    if (!gelf_getrela(d, (int)i, &r)) break;
    uint32_t type = (uint32_t)GELF_R_TYPE(r.r_info);
    if (type == R_X86_64_RELATIVE) { /* a pointer in data: to a slot? */
      if (w->nrel == w->caprel) {
        w->caprel = w->caprel ? w->caprel * 2 : 256;
        uint64_t *nv = realloc(w->relative, w->caprel * sizeof *nv);
        if (!nv) break;
        w->relative = nv;
      }
      w->relative[w->nrel++] = (uint64_t)r.r_addend;
      continue;
    }
    if (type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT) continue;
    GElf_Sym sym;
    if (!syms || !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) || sym.st_shndx != SHN_UNDEF ||
        GELF_ST_TYPE(sym.st_info) != STT_FUNC)
      continue;
    if (m->nslots == w->capslots) {
      w->capslots = w->capslots ? w->capslots * 2 : 64;
      struct slot_info *nv = realloc(m->slots, w->capslots * sizeof *nv);
      if (!nv) break;
      m->slots = nv;
    }
    m->slots[m->nslots++] = (struct slot_info){.slot = r.r_offset};
  }
}

/* Sweep then byte pass over all the code, when there are slots to guard
 * (the byte pass needs every call the sweep blessed, sorted). */
static void scan_code(struct got_module *m, const struct elf_walk *w) {
  if (!w->code) {
    snprintf(m->bad, sizeof m->bad, "out of memory");
    return;
  }
  if (w->total > GOT_CODE_MAX) {
    snprintf(m->bad, sizeof m->bad, "its module holds more than %llu MiB of code to decode",
             GOT_CODE_MAX >> 20);
    return;
  }
  if (!m->nslots) return;
  csh cs;
  uint64_t *bless = NULL;
  size_t nbless = 0, capbless = 0;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
    snprintf(m->bad, sizeof m->bad, "capstone cannot be opened");
    return;
  }
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  int rc = 0;
  for (size_t i = 0; !rc && i < w->ncode; i++)
    rc = sweep(cs, m, &w->code[i], &bless, &nbless, &capbless);
  if (rc && !m->bad[0]) snprintf(m->bad, sizeof m->bad, "out of memory");
  if (!rc) {
    if (nbless) qsort(bless, nbless, sizeof *bless, cmp_u64);
    for (size_t i = 0; i < w->ncode; i++) byte_pass(m, &w->code[i], bless, nbless);
  }
  cs_close(&cs);
  free(bless);
}

/* The module's slots and every reference to them: the file's sections
 * (code, relocations), then the pointers in its data, then its code. */
static void analyse(struct got_module *m) {
  int fd;
  size_t shstrndx, nsec;
  Elf *elf = open_module_elf(m, &fd, &shstrndx, &nsec);
  if (!elf) return;
  read_load_segments(m, elf);
  struct elf_walk w = {0};
  w.code = calloc(nsec ? nsec : 1, sizeof *w.code);
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); w.code && scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name) name = "";
    if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && (sh.sh_flags & SHF_ALLOC))
      add_code_section(m, &w, scn, &sh, name);
    else if (sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC))
      add_relocations(m, &w, elf, scn, &sh, nsec);
  }
  if (m->nslots) qsort(m->slots, m->nslots, sizeof *m->slots, cmp_slot);
  for (size_t i = 0; i < w.nrel; i++) {
    struct slot_info *s = slot_holding(m, w.relative[i]);
    if (s) other_ref(s, w.relative[i], "a pointer in its data (a RELATIVE relocation)", NULL);
  }
  free(w.relative);
  scan_code(m, &w);
  free(w.code);
  elf_end(elf);
  close(fd);
}

static struct got_module *module_for(struct ep_got *g, const struct ep_mapping *mp) {
  for (size_t i = 0; i < g->n; i++)
    if (!strcmp(g->mods[i].path, mp->path)) return &g->mods[i];
  struct got_module *nv = realloc(g->mods, (g->n + 1) * sizeof *nv);
  if (!nv) return NULL;
  g->mods = nv;
  struct got_module *m = &g->mods[g->n];
  memset(m, 0, sizeof *m);
  m->path = strdup(mp->path);
  if (!m->path) return NULL;
  m->inode = mp->inode;
  g->n++;
  analyse(m);
  return m;
}

struct ep_got *ep_got_open(const struct ep_maps *maps) {
  struct ep_got *g = calloc(1, sizeof *g);
  if (g) g->maps = maps;
  return g;
}

static void module_free(struct got_module *m) {
  free(m->path);
  free(m->slots);
  free(m->loads);
}

void ep_got_close(struct ep_got *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n; i++) module_free(&g->mods[i]);
  free(g->mods);
  free(g);
}

static int refuse(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* The rules on the file alone. */
static int check_slot(struct got_module *m, uint64_t link, const char *name, char *why,
                      size_t whycap) {
  if (m->bad[0]) return refuse(why, whycap, "%s", m->bad);
  struct slot_info *s = slot_holding(m, link);
  if (!s || s->slot != link) return refuse(why, whycap, "not the GOT slot of an imported function");
  if (s->other)
    return refuse(why, whycap,
                  "its address is taken (`%s` at 0x%llx reads the GOT slot: the program could "
                  "keep the stub's address)",
                  s->other_how, (unsigned long long)s->other_at);
  if (s->plt) return refuse(why, whycap, "called through its PLT stub (traced there, as @plt)");
  if (!s->calls) return refuse(why, whycap, "never called through the GOT (no call/jmp *slot)");
  if (name && !strncmp(name, "__libc_start_main@", 18))
    return refuse(why, whycap, "the C runtime's entry (called once by _start, never returns)");
  return 0;
}

int ep_got_plan(struct ep_got *g, const struct asmspy_host_api *host, struct asmspy_target *t,
                uint64_t slot, const char *name, struct ep_patch *p, char *why, size_t whycap) {
  memset(p, 0, sizeof *p);
  p->addr = slot;
  const struct ep_mapping *mp = g->maps ? ep_maps_find(g->maps, slot) : NULL;
  if (!mp || mp->path[0] != '/' || mp->exec || slot + 8 > mp->hi)
    return refuse(why, whycap, "its GOT slot is not in a data mapping of a file");
  struct got_module *m = module_for(g, mp);
  if (!m) return refuse(why, whycap, "out of memory");
  /* the slot's link-time address, through the segment its file offset is in */
  uint64_t off = mp->offset + (slot - mp->lo), link = 0;
  int found = 0;
  for (size_t i = 0; i < m->nloads && !found; i++)
    if (off >= m->loads[i].off && off + 8 <= m->loads[i].off + m->loads[i].filesz)
      link = m->loads[i].vaddr + (off - m->loads[i].off), found = 1;
  if (!found) return refuse(why, whycap, "its GOT slot is in no loaded segment of its file");
  uint64_t bias = slot - link;
  if (check_slot(m, link, name, why, whycap) != 0) return -1;
  /* the value: resolved (not into the PLT: lazy binding), and code of a file */
  uint64_t value = 0;
  if (host->read_mem(t, slot, &value, 8) != 8)
    return refuse(why, whycap, "its GOT slot cannot be read");
  for (size_t i = 0; i < m->nplt; i++)
    if (value >= m->plt[i].lo + bias && value < m->plt[i].hi + bias)
      return refuse(why, whycap, "not resolved yet (lazy binding: it still points into the PLT)");
  const struct ep_mapping *to = ep_maps_find(g->maps, value);
  if (!to || !ep_mapping_is_exec_file(to))
    return refuse(why, whycap,
                  "its GOT slot holds 0x%llx, not code of a file (unresolved, or another "
                  "tool's hook)",
                  (unsigned long long)value);
  p->len = 8;
  p->kind = AGENT_FN_CALL | AGENT_FN_GOT;
  memcpy(p->orig, &value, 8);
  p->got_target = value;
  p->name = name;
  return 0;
}

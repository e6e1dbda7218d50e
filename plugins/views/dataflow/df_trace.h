/* plugins/views/dataflow/df_trace.h — what one captured invocation holds
 * (the steps, their reads and writes, the register file each step saw), as
 * dataflow.c records it and the opt-in streams (streams.h) render it.
 * Internal to the dataflow plugin. */
#ifndef ASMSPY_PLUGINS_VIEWS_DATAFLOW_DF_TRACE_H
#define ASMSPY_PLUGINS_VIEWS_DATAFLOW_DF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include <asmspy/plugin.h>

#define VAL_MAX 64     /* bytes of a value kept: a zmm register whole */
#define MEM_VAL_MAX 32 /* bytes of a memory value kept (a zmm memory operand is cut to this) */

/* Register ids, their names, which is sp / the return value / the
 * arguments, what a call clobbers: the host's arch shim says (host->arch,
 * ABI 1.12; the plugin declares min_host_minor 12). Set once at the entry. */
#define DF_NREGS ASMSPY_ARCH_MAX_REGS /* the most register ids an arch has */
extern const struct asmspy_arch *df_arch;
/* register id g's name ("rax", "x0", "nzcv") */
static inline const char *df_reg_name(unsigned g) {
  return df_arch && g < df_arch->nregs ? df_arch->reg_names[g] : "?";
}

/* One value read or written by a step. */
struct rec {
  uint64_t addr; /* memory: the address */
  int64_t def;   /* reads: defining step, -1 = live-in */
  uint32_t size; /* bytes */
  uint8_t is_mem;
  uint8_t reg;          /* register: gpr index */
  uint8_t known;        /* value is known */
  uint8_t pre_known;    /* memory writes under --statediff: df_trace.pre holds the bytes before */
  uint16_t vreg;        /* --fpregs: an ASMSPY_VREG id (xmm3, st(1)); 0 = not one */
  uint8_t vkey;         /* --fpregs: the physical register it names (fpregs.c) */
  char vname[8];        /* --fpregs: its name */
  uint8_t val[VAL_MAX]; /* little-endian */
};

/* the bytes of r's value that are kept */
static inline uint32_t df_rec_nbytes(const struct rec *r) {
  uint32_t cap = r->is_mem ? MEM_VAL_MAX : VAL_MAX;
  return r->size < cap ? r->size : cap;
}

struct step {
  uint64_t addr;    /* insn address; a call-out: the call site */
  uint64_t callee;  /* call-out only */
  uint64_t pre_rsp; /* sp before it ran */
  size_t r0, nr, w0, nw;
  size_t c0, nc; /* --blame, call-outs: the argument registers it was handed (inputs) */
  int callout;
  uint8_t regs_known; /* regs[] of this step holds the register file it saw */
  uint8_t len;        /* instruction length (0: unknown) */
  uint8_t bytes[16];  /* the instruction bytes as executed */
  uint8_t slot_known; /* a call-out: the return slot's value was read */
  uint64_t slot;      /* a call-out: the return slot the callee's ret pops */
  uint64_t slot_val;
  char text[128];
};

/* The invocation as captured. */
struct df_trace {
  struct step *steps;
  size_t nsteps, scap;
  struct rec *reads, *writes, *cins; /* cins: call-out inputs (--blame) */
  size_t nreads, rcap, nwrites, wcap, ncins, ccap;
  uint64_t (*regs)[DF_NREGS]; /* per step (--steps, --statediff), parallel to steps */
  size_t regcap;
  uint8_t (*pre)[MEM_VAL_MAX]; /* per write (--statediff): memory's bytes before the step */
  size_t precap;
  struct asmspy_fpregs *fp; /* per step (--fpregs with --steps or --statediff), parallel to steps */
  size_t fpcap;
  uint64_t start;   /* the region start (offsets) */
  uint64_t min_rsp; /* the lowest rsp any step saw (the dead stack ends there) */
};

/* "0x.." of a record's little-endian value (no leading zeros). */
void df_fmt_bytes(const uint8_t *val, uint32_t size, char *out, size_t cap);
/* "rbx" or "[0xaddr]" */
void df_fmt_loc(const struct rec *r, char *out, size_t cap);

#endif

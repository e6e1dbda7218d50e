/* region.c: building a code region's bytes (see region.h). */
#include "plugins/entrypatch/region.h"

#include <stdio.h>
#include <string.h>

/* The linker's bounds of the agent section (agent.c) and its entry points. */
extern const uint8_t __start_asmspy_agent[] __attribute__((visibility("hidden")));
extern const uint8_t __stop_asmspy_agent[] __attribute__((visibility("hidden")));
extern const uint8_t asmspy_agent_header[] __attribute__((visibility("hidden")));
extern const uint8_t asmspy_agent_ctx[] __attribute__((visibility("hidden")));
extern const uint8_t asmspy_agent_entry[] __attribute__((visibility("hidden")));
extern const uint8_t asmspy_agent_return[] __attribute__((visibility("hidden")));

#define BLOB_ALIGN 64u
#define PAGE 4096u

size_t ep_blob_size(void) { return (size_t)(__stop_asmspy_agent - __start_asmspy_agent); }
const uint8_t *ep_blob(void) { return __start_asmspy_agent; }
uint64_t ep_blob_entry_off(void) { return (uint64_t)(asmspy_agent_entry - __start_asmspy_agent); }
uint64_t ep_blob_return_off(void) { return (uint64_t)(asmspy_agent_return - __start_asmspy_agent); }
uint64_t ep_blob_ctx_off(void) { return (uint64_t)(asmspy_agent_ctx - __start_asmspy_agent); }

static size_t stubs_off(void) {
  return (ep_blob_size() + BLOB_ALIGN - 1) & ~(size_t)(BLOB_ALIGN - 1);
}

size_t ep_region_size(uint32_t n) {
  size_t sz = stubs_off() + (size_t)n * AGENT_STUB_BYTES;
  return (sz + PAGE - 1) & ~(size_t)(PAGE - 1);
}

uint64_t ep_stub_addr(uint64_t base, uint32_t i) {
  return base + stubs_off() + (uint64_t)i * AGENT_STUB_BYTES;
}

int ep_region_build(csh cs, uint8_t *img, size_t size, uint64_t base, uint64_t state,
                    struct ep_patch *patches, uint32_t n, uint32_t first, struct agent_func *funcs,
                    uint32_t *bad, char *why, size_t whycap) {
  if (ep_region_size(n) > size) {
    snprintf(why, whycap, "region too small");
    return -1;
  }
  memset(img, 0xcc, size);
  memcpy(img, ep_blob(), ep_blob_size());
  memcpy(img + ep_blob_ctx_off(), &state, sizeof state);
  uint64_t entry = base + ep_blob_entry_off();
  for (uint32_t i = 0; i < n; i++) {
    uint64_t stub = ep_stub_addr(base, i);
    uint8_t *s = img + (stub - base);
    uint32_t index = first + i;
    int32_t rel;
    s[0] = 0x68; /* push imm32: the index, on the stack (no register is free) */
    memcpy(s + 1, &index, 4);
    s[5] = 0xe9; /* jmp rel32 */
    if (!ep_rel32(stub + AGENT_STUB_HEAD, entry, &rel)) {
      snprintf(why, whycap, "stub cannot reach the agent");
      *bad = i;
      return -1;
    }
    memcpy(s + 6, &rel, 4);
    /* a GOT slot (got.h): nothing displaced; the agent resumes at the
     * slot's original value, the function itself (int3 after the head) */
    int is_got = (patches[i].kind & AGENT_FN_GOT) != 0;
    size_t got = is_got ? 1
                        : ep_relocate(cs, &patches[i], stub + AGENT_STUB_HEAD, s + AGENT_STUB_HEAD,
                                      AGENT_STUB_BYTES - AGENT_STUB_HEAD, why, whycap);
    if (!got) {
      *bad = i;
      return -1;
    }
    patches[i].stub = stub;
    funcs[index].addr = patches[i].addr;
    funcs[index].resume = is_got ? patches[i].got_target : stub + AGENT_STUB_HEAD;
    funcs[index].kind = patches[i].kind;
    funcs[index].len = patches[i].len;
    funcs[index].stub = stub;
    memset(funcs[index].orig, 0, sizeof funcs[index].orig);
    memcpy(funcs[index].orig, patches[i].orig, patches[i].len);
  }
  return 0;
}

void ep_entry_patch_bytes(const struct ep_patch *p, uint8_t *out) {
  if (p->kind & AGENT_FN_GOT) { /* a GOT slot: the stub's address */
    memcpy(out, &p->stub, 8);
    return;
  }
  int32_t rel = 0;
  ep_rel32(p->addr + 5, p->stub, &rel); /* placed within reach by construction */
  out[0] = 0xe9;
  memcpy(out + 1, &rel, 4);
  for (uint32_t i = 5; i < p->len; i++) out[i] = 0xcc;
}

int ep_blob_self_check(csh cs, char *why, size_t whycap) {
  /* the header (code magic, state pointer) is data: decode after it */
  size_t skip = (size_t)(asmspy_agent_ctx - __start_asmspy_agent) + 8;
  if ((uintptr_t)asmspy_agent_header != (uintptr_t)__start_asmspy_agent || skip > ep_blob_size()) {
    snprintf(why, whycap, "the agent blob does not start with its header");
    return -1;
  }
  const uint8_t *code = ep_blob() + skip;
  size_t left = ep_blob_size() - skip;
  uint64_t base = 0x100000, ip = base + skip, end = base + ep_blob_size();
  cs_insn *in = cs_malloc(cs);
  if (!in) return -1;
  int rc = 0;
  while (left > 0) {
    if (!cs_disasm_iter(cs, &code, &left, &ip, in)) { /* data (the ctx word), padding */
      code++, left--, ip++;
      continue;
    }
    const cs_x86 *x = &in->detail->x86;
    for (uint8_t i = 0; i < x->op_count && !rc; i++) {
      uint64_t t = 0;
      int has = 0;
      if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
        t = in->address + in->size + (uint64_t)x->operands[i].mem.disp, has = 1;
      for (uint8_t g = 0; g < in->detail->groups_count; g++)
        if ((in->detail->groups[g] == CS_GRP_JUMP || in->detail->groups[g] == CS_GRP_CALL) &&
            x->operands[i].type == X86_OP_IMM)
          t = (uint64_t)x->operands[i].imm, has = 1;
      if (has && (t < base || t >= end)) {
        snprintf(why, whycap,
                 "the agent blob references +0x%llx outside itself (%s %s at +0x%llx): "
                 "agent.c was compiled with calls or data it may not have",
                 (unsigned long long)(t - base), in->mnemonic, in->op_str,
                 (unsigned long long)(in->address - base));
        rc = -1;
      }
    }
    if (rc) break;
  }
  cs_free(in, 1);
  return rc;
}

/* operand_access.c: the ISA's access for an instruction's first operand
 * where Capstone 4's flags are wrong (host->operands applies it). */
#ifndef ASMSPY_HOST_OPERAND_ACCESS_H
#define ASMSPY_HOST_OPERAND_ACCESS_H

#include <stdint.h>

enum { OA_NONE = 4, OA_READ = 1, OA_WRITE = 2 }; /* OA_NONE: no data access at all */

struct oa_rule {
  uint16_t id;       /* Capstone X86_INS_* */
  uint8_t op0;       /* OA_READ | OA_WRITE, or OA_NONE */
  uint8_t mem_only;  /* applies only when op0 is a memory operand (a store form) */
  uint16_t mem_size; /* the memory operand's size in bytes, 0 = Capstone's */
};

/* The rule for Capstone instruction id, or NULL (Capstone's flags stand). */
const struct oa_rule *operand_access_rule(unsigned id);

#endif

/* scope_lines: a scope listing's lines kept by address (scope_lines.c).
 * Called under scope.c's lock only. */
#ifndef ASMSPY_HOST_SCOPE_LINES_H
#define ASMSPY_HOST_SCOPE_LINES_H

#include <stddef.h>
#include <stdint.h>

struct asmspy_target;
struct strbuf;

/* Append "function+0xoff [module]  disasm\n" for the instruction at ip
 * (its bytes) to b: copied from the table when this address with these
 * bytes was rendered since the link map last changed. */
void scope_line_add(struct strbuf *b, struct asmspy_target *t, uint64_t ip, const uint8_t *bytes,
                    uint8_t len);
/* Forget every line when the link map changed (dlopen/dlclose) since the
 * last call: the same address may then hold another function. */
void scope_lines_check_maps(void);

#endif

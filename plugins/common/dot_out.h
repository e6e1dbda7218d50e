/* plugins/common/dot_out.h — the column and Graphviz DOT helpers the call
 * views (graph, tree) share: a symbol kind's JSON token, the "[module]"
 * column, and DOT quoted-string content. */
#ifndef ASMSPY_PLUGINS_COMMON_DOT_OUT_H
#define ASMSPY_PLUGINS_COMMON_DOT_OUT_H

#include <asmspy/plugin.h>
#include "common/strbuf.h"

#include <stdint.h>
#include <stdio.h>

/* The "kind" field's token for a symbol kind. */
static inline const char *sym_kind_token(uint32_t kind) {
  switch (kind) {
  case ASMSPY_SYM_INTERNAL: return "internal";
  case ASMSPY_SYM_EXTERNAL: return "external";
  case ASMSPY_SYM_JIT: return "jit";
  default: return "unknown";
  }
}

/* "[module]", or the module as is when it is already bracketed ("[jit]"). */
static inline void module_col(char *buf, size_t cap, const char *module) {
  if (!module || !*module) module = "?";
  if (module[0] == '[')
    snprintf(buf, cap, "%s", module);
  else
    snprintf(buf, cap, "[%s]", module);
}

/* DOT quoted-string content: escape quote and backslash, keep it ASCII. */
static inline void add_dot_str(struct strbuf *b, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      strbuf_addf(b, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      strbuf_addf(b, "?");
    else
      strbuf_addf(b, "%c", c);
  }
}

/* The digraph's layout lines after its label: left to right, title on top,
 * boxed nodes (node_style: the box's style attribute, quoted as needed). */
static inline void dot_layout(struct strbuf *b, const char *node_style) {
  strbuf_addf(b, "  labelloc=t;\n  rankdir=LR;\n");
  strbuf_addf(b, "  node [shape=box, style=%s, fontname=\"Helvetica\"];\n", node_style);
}

#endif

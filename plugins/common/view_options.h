/* plugins/common/view_options.h — a view's open() parses its arguments
 * against its own `options` table (the one --help, the man page, shell
 * completion and serve read) through host->parse_options.
 *
 * vo_parse is the one call a view makes: it checks that the host has the
 * service (ABI 1.8; an older host gets a one-line refusal, as with every
 * optional service), runs it, and on a refusal notes
 * "--<mode>: <reason> (usage: --<mode> <usage>)" and returns
 * -ASMSPY_E_USAGE. The view then reads ov->value[i] / ov->pos[] (i = the
 * option's index in its table: an enum next to the table keeps the two in
 * step) and checks numbers and combinations itself, refusing through
 * vo_refuse so every message ends with the same generated usage line
 * (common/option_parse.h's synopsis, the one --help prints). */
#ifndef ASMSPY_PLUGINS_COMMON_VIEW_OPTIONS_H
#define ASMSPY_PLUGINS_COMMON_VIEW_OPTIONS_H

#include <asmspy/plugin.h>
#include "common/option_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A usage refusal: "--<mode>: <msg> (usage: --<mode> <usage line>)". */
static inline int vo_refuse(const struct asmspy_host_api *host, const struct asmspy_session *s,
                            const struct asmspy_option *table, const char *positionals,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int vo_refuse(const struct asmspy_host_api *host, const struct asmspy_session *s,
                            const struct asmspy_option *table, const char *positionals,
                            const char *fmt, ...) {
  char msg[768], usage[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  host->note(NULL, ASMSPY_NOTE_WARN, "--%s: %s (usage: --%s %s)", s->mode, msg, s->mode,
             asmspy_option_synopsis(usage, sizeof usage, positionals, table));
  return -ASMSPY_E_USAGE;
}

static inline int vo_parse(const struct asmspy_host_api *host, const struct asmspy_session *s,
                           const struct asmspy_option *table, const char *positionals,
                           struct asmspy_optval *ov) {
  if (!ASMSPY_HAS(host, parse_options) || !host->parse_options) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s needs a host with parse_options() (ABI 1.8)", s->mode);
    return -ASMSPY_E_ABI;
  }
  memset(ov, 0, sizeof *ov);
  ASMSPY_INIT_HEADER(ov);
  char err[512];
  err[0] = 0;
  int rc = host->parse_options(table, s->argc, s->argv, ov, err, sizeof err);
  if (rc == 0) return 0;
  return vo_refuse(host, s, table, positionals, "%s", err);
}

#endif /* ASMSPY_PLUGINS_COMMON_VIEW_OPTIONS_H */

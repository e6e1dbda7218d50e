/* engine_choose: which view and which backend one run of a mode uses.
 *
 * Everything here is read from the plugins' descriptors; the engine knows
 * no plugin by name:
 *   - the view serving the mode (its view_ops.mode);
 *   - the capabilities it needs: caps_required, plus what its options ask
 *     for (view_ops.option_caps: "--count=calls needs an instruction
 *     stream"), plus what it wants when available (caps_wanted);
 *   - the backend: --backend=<b>; for a sampling view (caps IP_SAMPLES) the
 *     backend of its --sampler=<rung>, else the sampler ladder's first
 *     usable rung (host/sampler_ladder.c); else the build's preference list (meson
 *     option preferred_backends) first, then any usable backend providing
 *     the caps, in registry order;
 *   - 1.9: a view with caps_alternative (the call views: function
 *     entries/exits instead of every instruction) runs on a usable backend
 *     providing those when no option asks for more and --backend names
 *     none; --backend=<b> with b providing them runs it that way.
 * asmspy_run (engine.c) runs the choice; `asmspy --info` and the TUI's menu
 * (cli/procinfo.c) judge a mode with the same function, so a verdict names
 * the backend the mode would really run on. */
#include "asmspy_config.h"
#include "host/host.h"

#include <stdarg.h>
#include <string.h>

/* A registry row, probed now if the engine probes lazily. */
const struct asmspy_plugin_info *engine_probed(struct asmspy_engine *e,
                                               const struct asmspy_plugin_info *row) {
  if (row) asmspy_probe_plugin(e, (struct asmspy_plugin_info *)row);
  return row;
}

static const struct asmspy_plugin_info *pick_backend(struct asmspy_engine *e,
                                                     uint64_t caps_needed) {
  char prefs[] = ASMSPY_BACKEND_PREFERENCE;
  char *save = NULL;
  for (char *name = strtok_r(prefs, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    const struct asmspy_plugin_info *b = asmspy_find_plugin(e, ASMSPY_KIND_BACKEND, name);
    if (!b || (b->caps & caps_needed) != caps_needed) continue;
    if (engine_probed(e, b)->status == ASMSPY_USABLE) return b;
  }
  const struct asmspy_plugin_info *fallback = NULL;
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *b = asmspy_plugin_at(e, i);
    if (!b->desc || b->kind != ASMSPY_KIND_BACKEND || (b->caps & caps_needed) != caps_needed)
      continue;
    if (engine_probed(e, b)->status == ASMSPY_USABLE) return b;
    if (!fallback) fallback = b;
  }
  return fallback; /* unusable: the caller prints its SKIP reason */
}

/* The value given to --<name> among a mode's arguments, read the way the
 * view's own open() reads them: through the host's option parser over the
 * view's options table (ABI 1.8), so "--name value", "--name=value" and
 * "--" mean here what they mean to the view. Arguments the view will refuse
 * count as absent (its open() reports them). Views without a table (older
 * than 1.8, or an option it does not declare): the last "--name=value" or
 * "--name value" in argv. A flag given yields "". */
static const char *raw_value(const char *name, int takes_value, int argc, char *const *argv,
                             int *given);
static const char *given_value(const struct asmspy_view_ops *view, const char *name,
                               int takes_value, int argc, char *const *argv, int *given) {
  const struct asmspy_option *t = ASMSPY_HAS(view, options) ? view->options : NULL;
  int i = -1;
  for (int k = 0; t && t[k].name; k++)
    if (strcmp(t[k].name, name) == 0) i = k;
  if (i < 0) return raw_value(name, takes_value, argc, argv, given);
  struct asmspy_optval ov;
  memset(&ov, 0, sizeof ov);
  ASMSPY_INIT_HEADER(&ov);
  char err[256];
  *given = 0;
  if (asmspy_host_api()->parse_options(t, argc, argv, &ov, err, sizeof err) != 0) return NULL;
  *given = ov.value[i] != NULL;
  return ov.value[i];
}

static const char *raw_value(const char *name, int takes_value, int argc, char *const *argv,
                             int *given) {
  const char *v = NULL;
  size_t n = strlen(name);
  *given = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0) continue;
    if (a[2 + n] == '=') {
      v = a + 3 + n;
      *given = 1;
    } else if (a[2 + n] == '\0') {
      v = takes_value && i + 1 < argc ? argv[++i] : "";
      *given = 1;
    }
  }
  return v;
}

/* The capabilities a view's options ask for beyond caps_required: per option
 * named in its option_caps table, the entries matching the value given
 * (value NULL: whenever the option is given), or the is_default entries when
 * the option is absent. A value no entry names leaves the defaults in force:
 * the view's open() reports it as a usage error. */
uint64_t engine_option_caps(const struct asmspy_view_ops *view, int argc, char *const *argv) {
  if (!ASMSPY_HAS(view, option_caps) || !view->option_caps) return 0;
  const struct asmspy_option_caps *t = view->option_caps;
  uint64_t extra = 0;
  for (size_t i = 0; t[i].option; i++) {
    int first = 1, takes_value = 0;
    for (size_t j = 0; j < i && first; j++) first = strcmp(t[j].option, t[i].option) != 0;
    if (!first) continue; /* each option once, all its entries together */
    for (size_t j = i; t[j].option; j++)
      if (!strcmp(t[j].option, t[i].option) && t[j].value) takes_value = 1;
    int given = 0;
    const char *v = given_value(view, t[i].option, takes_value, argc, argv, &given);
    uint64_t matched = 0, defaults = 0;
    int any = 0;
    for (size_t j = i; t[j].option; j++) {
      if (strcmp(t[j].option, t[i].option) != 0) continue;
      if (t[j].is_default) defaults |= t[j].caps;
      if (given && (!t[j].value || (v && !strcmp(t[j].value, v)))) {
        matched |= t[j].caps;
        any = 1;
      }
    }
    extra |= any ? matched : defaults;
  }
  return extra;
}

static int choice_fail(struct engine_choice *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int choice_fail(struct engine_choice *c, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->error, sizeof c->error, fmt, ap);
  va_end(ap);
  return status;
}

/* A sampling view's backend: its --sampler=<rung>[:<arg>], else the first
 * rung of the ladder that is usable here (IBS -> LBR -> software clock ->
 * ptrace probes, as --dataflow --auto walks it): the view's header names
 * the rung it got, and what its rows mean for that rung. */
static int choose_sampler(struct asmspy_engine *e, const struct asmspy_view_ops *view, int argc,
                          char *const *argv, struct engine_choice *c) {
  int given = 0;
  const char *spec = given_value(view, "sampler", 1, argc, argv, &given);
  c->backend = spec ? sampler_backend_for(e, spec, &c->sampler_arg) : sampler_first_usable(e);
  c->sampler_walked = !spec;
  if (c->backend) return 0;
  char names[256];
  sampler_rung_names(e, names, sizeof names);
  if (spec)
    return choice_fail(c, -ASMSPY_E_USAGE, "--sampler=%s: unknown sampler (want %s)", spec, names);
  return choice_fail(c, -ASMSPY_E_INTERNAL, "no sampler backend is installed");
}

int engine_choose(struct asmspy_engine *e, const char *mode, const char *backend, int argc,
                  char *const *argv, struct engine_choice *c) {
  return engine_choose_for(e, mode, backend, argc, argv, 0, 0, c);
}

/* The best backend for c->caps_needed, preferring one that also has
 * c->caps_wanted. */
static int pick_instruction_backend(struct asmspy_engine *e, struct engine_choice *c,
                                    const char *mode) {
  c->backend = c->caps_wanted ? pick_backend(e, c->caps_needed | c->caps_wanted) : NULL;
  if (c->backend && c->backend->status != ASMSPY_USABLE) c->backend = NULL; /* any that can */
  if (!c->backend) c->backend = pick_backend(e, c->caps_needed);
  if (!c->backend)
    return choice_fail(c, -ASMSPY_E_INTERNAL, "no backend provides what mode '%s' needs", mode);
  return 0;
}

/* An unusable backend is the answer (# SKIP), once the view has checked
 * its arguments (asmspy_run). */
static void judge_backend(struct engine_choice *c, const char *mode) {
  if (c->backend->status != ASMSPY_USABLE) {
    c->skip_reason = c->backend->reason;
  } else if ((c->backend->caps & c->caps_needed) != c->caps_needed) {
    snprintf(c->skip_why, sizeof c->skip_why, "does not provide what mode '%s' needs", mode);
    c->skip_reason = c->skip_why;
  }
}

int engine_choose_for(struct asmspy_engine *e, const char *mode, const char *backend, int argc,
                      char *const *argv, uint32_t sess_flags, int32_t tid,
                      struct engine_choice *c) {
  memset(c, 0, sizeof *c);
  c->view = asmspy_find_view_for_mode(e, mode);
  if (!c->view)
    return choice_fail(c, -ASMSPY_E_USAGE,
                       "no view plugin provides mode '%s' (see asmspy --backends)", mode);
  if (engine_probed(e, c->view)->status != ASMSPY_USABLE)
    return choice_fail(c, -ASMSPY_E_INTERNAL, "mode '%s' is unavailable: %s", mode,
                       c->view->reason);
  const struct asmspy_view_ops *view = c->view->desc->view;
  c->caps_needed = view->caps_required | engine_option_caps(view, argc, argv);
  /* ABI 1.6: used when the backend has them, never required */
  c->caps_wanted = ASMSPY_HAS(view, caps_wanted) ? view->caps_wanted : 0;

  uint64_t alt = ASMSPY_HAS(view, caps_alternative) ? view->caps_alternative : 0;
  int options_ask_more = (c->caps_needed & ~view->caps_required) != 0;
  /* a call backend records every thread of the one process it patched:
   * following forks and one --tid are the instruction backends' */
  int session_asks_more = (sess_flags & ASMSPY_SESS_FOLLOW) || tid;
  const struct asmspy_plugin_info *alt_backend = NULL;
  if (!backend && alt && !options_ask_more && !session_asks_more) {
    alt_backend = pick_backend(e, alt);
    if (alt_backend && alt_backend->status != ASMSPY_USABLE) alt_backend = NULL;
  }
  if (backend) {
    c->backend = engine_probed(e, asmspy_find_plugin(e, 0, backend));
    if (!c->backend || c->backend->kind != ASMSPY_KIND_BACKEND) {
      c->backend = NULL;
      return choice_fail(c, -ASMSPY_E_USAGE, "unknown backend '%s' (see asmspy --backends)",
                         backend);
    }
    if (alt && (c->backend->caps & alt) == alt &&
        (c->backend->caps & c->caps_needed) != c->caps_needed) {
      if (options_ask_more)
        return choice_fail(c, -ASMSPY_E_USAGE,
                           "backend '%s' records calls, not instructions: an option of "
                           "mode '%s' needs an instruction stream",
                           backend, mode);
      if (session_asks_more)
        return choice_fail(c, -ASMSPY_E_USAGE,
                           "backend '%s' records every thread of one process: --follow and "
                           "--tid need an instruction backend (singlestep)",
                           backend);
      c->caps_needed = alt, c->caps_wanted = 0;
    }
  } else if (alt_backend) {
    c->backend = alt_backend;
    c->alternative = 1;
    c->caps_instr = c->caps_needed, c->caps_instr_wanted = c->caps_wanted;
    c->caps_needed = alt, c->caps_wanted = 0;
  } else if (view->caps_required & ASMSPY_CAP_IP_SAMPLES) {
    int rc = choose_sampler(e, view, argc, argv, c);
    if (rc) return rc;
    engine_probed(e, c->backend);
  } else {
    int rc = pick_instruction_backend(e, c, mode);
    if (rc) return rc;
  }
  judge_backend(c, mode);
  return 0;
}

int engine_choose_fallback(struct asmspy_engine *e, struct engine_choice *c) {
  const char *mode = c->view->desc->view->mode;
  c->alternative = 0;
  c->caps_needed = c->caps_instr, c->caps_wanted = c->caps_instr_wanted;
  c->skip_reason = NULL;
  int rc = pick_instruction_backend(e, c, mode);
  if (rc) return rc;
  judge_backend(c, mode);
  return 0;
}

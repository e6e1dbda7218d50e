/* test_descriptors: the host builds its rules from the plugins' descriptors
 * (ABI 1.8), not from lists of its own.
 *   option_caps  engine_option_caps() reads a view's option_caps table: the
 *                default entries when the option is absent, the matching
 *                value's (--opt=v and --opt v), the last one given wins, an
 *                unknown value leaves the defaults;
 *   ladder       the sampler ladder is the loaded backends' rungs sorted by
 *                sampler_order, whatever their names or load order (three
 *                fake rungs on ASMSPY_PLUGIN_PATH among the real ones); a
 *                rung of order 0 is skipped by the walk but runs when named;
 *                "<rung>:<arg>" reaches the backend as session.sampler_arg. */
#include "host/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      failures++;                                                                                  \
    } else {                                                                                       \
      printf("ok: ");                                                                              \
    }                                                                                              \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

static uint64_t caps_for(const struct asmspy_view_ops *v, int argc, const char **argv) {
  return engine_option_caps(v, argc, (char *const *)argv);
}

static void test_option_caps(void) {
  static const struct asmspy_option_caps table[] = {
      {"count", "syscalls", ASMSPY_CAP_SYSCALLS, 1},
      {"count", "calls", ASMSPY_CAP_INSN_STREAM, 0},
      {"regs", NULL, ASMSPY_CAP_EXACT_SP, 0},
      {NULL, NULL, 0, 0},
  };
  struct asmspy_view_ops v;
  memset(&v, 0, sizeof v);
  ASMSPY_INIT_HEADER(&v);
  v.option_caps = table;
  EXPECT(caps_for(&v, 0, NULL) == ASMSPY_CAP_SYSCALLS, "absent: the default entry");
  const char *calls[] = {"--count=calls"};
  EXPECT(caps_for(&v, 1, calls) == ASMSPY_CAP_INSN_STREAM, "--count=calls");
  const char *sep[] = {"5", "--count", "calls"};
  EXPECT(caps_for(&v, 3, sep) == ASMSPY_CAP_INSN_STREAM, "--count calls (separate value)");
  const char *last[] = {"--count=calls", "--count=syscalls"};
  EXPECT(caps_for(&v, 2, last) == ASMSPY_CAP_SYSCALLS, "the last --count wins");
  const char *bogus[] = {"--count=bogus"};
  EXPECT(caps_for(&v, 1, bogus) == ASMSPY_CAP_SYSCALLS,
         "an unknown value: the defaults (the view refuses it)");
  const char *flag[] = {"--regs", "--count=calls"};
  EXPECT(caps_for(&v, 2, flag) == (ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_EXACT_SP),
         "a flag entry (value NULL) applies whenever given");
  const char *prefix[] = {"--countx=calls"};
  EXPECT(caps_for(&v, 1, prefix) == ASMSPY_CAP_SYSCALLS, "--countx is not --count");
  v.struct_size = (uint32_t)offsetof(struct asmspy_view_ops, options); /* a 1.6 view */
  EXPECT(caps_for(&v, 1, calls) == 0, "a view older than 1.8 has no option_caps");
}

static char seen[256];
static int note_sink(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  if (ev->type == ASMSPY_EV_NOTE && ev->u.note.text)
    snprintf(seen, sizeof seen, "%s", ev->u.note.text);
  return 0;
}

static int run(struct asmspy_engine *e, const char *sampler, char *used, size_t cap) {
  static volatile int never;
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "test";
  s.pid = 1;
  s.stop = &never;
  seen[0] = '\0';
  sampler_ladder_set_engine(e);
  int rc = host_run_sampler(&s, sampler, 10, note_sink, NULL, used, cap);
  sampler_ladder_set_engine(NULL);
  return rc;
}

static void test_ladder(void) {
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!e) {
    EXPECT(0, "engine opened");
    return;
  }
  const struct asmspy_plugin_info *rungs[64];
  size_t n = sampler_ladder(e, rungs, 64);
  char order[512] = "";
  for (size_t i = 0; i < n; i++) {
    size_t k = strlen(order);
    snprintf(order + k, sizeof order - k, "%s%s", k ? " " : "",
             rungs[i]->desc->backend->sampler_rung);
  }
  printf("# ladder: %s\n", order);
  EXPECT(n >= 3, "the three fake rungs are on the ladder (%zu rungs)", n);
  for (size_t i = 1; i < n; i++) {
    uint32_t prev = rungs[i - 1]->desc->backend->sampler_order;
    uint32_t cur = rungs[i]->desc->backend->sampler_order;
    EXPECT(cur == 0 || (prev && prev <= cur), "ascending sampler_order, order 0 last, at %zu", i);
  }
  EXPECT(n && !strcmp(rungs[n - 1]->desc->backend->sampler_rung, "named"),
         "the only-when-named rung comes last");
  const struct asmspy_plugin_info *d = sampler_default(e);
  EXPECT(d && !strcmp(d->desc->backend->sampler_rung, "zearly"),
         "the default rung is the lowest non-zero order: %s",
         d ? d->desc->backend->sampler_rung : "(none)");
  const char *arg = NULL;
  const struct asmspy_plugin_info *named = sampler_backend_for(e, "named:some event", &arg);
  EXPECT(named && arg && !strcmp(arg, "some event"), "<rung>:<arg> splits at the first ':'");
  EXPECT(sampler_backend_for(e, "name", NULL) == NULL, "a rung is matched whole, not by prefix");
  char names[256];
  sampler_rung_names(e, names, sizeof names);
  EXPECT(strstr(names, "zearly|") == names, "usage lists the rungs in ladder order: %s", names);

  char used[32];
  int rc = run(e, NULL, used, sizeof used);
  EXPECT(rc == 0 && !strcmp(used, "zearly") && !strcmp(seen, "rung=zearly arg=(none)"),
         "the walk runs the first usable rung: rc %d, used %s, saw '%s'", rc, used, seen);
  rc = run(e, "named:cycles", used, sizeof used);
  EXPECT(rc == 0 && !strcmp(used, "named") && !strcmp(seen, "rung=named arg=cycles"),
         "a named order-0 rung runs, with its argument: rc %d, used %s, saw '%s'", rc, used, seen);
  rc = run(e, "nosuchrung", used, sizeof used);
  EXPECT(rc == -ASMSPY_E_USAGE, "an unknown rung is a usage error (rc %d)", rc);
  asmspy_engine_close(e);
}

int main(void) {
  test_option_caps();
  test_ladder();
  return failures ? 1 : 0;
}

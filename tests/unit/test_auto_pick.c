/* test_auto_pick: `--dataflow --auto` offline. The dataflow view (with its
 * --auto module) is compiled into this program and driven through a
 * scripted host (fake_sampling_host.h) whose run_sampler delivers
 * synthesized samples: the IBS entry-edge pick (not runnable on machines
 * without IBS), the residency walk (pick, not-reached, retry, exhausted),
 * the idle refusal, every rung refused (# SKIP), a tracer failure, and the
 * usage errors — each with the exact lines the user reads. */
#include "check.h"
#include "fake_sampling_host.h"

const struct asmspy_plugin *asmspy_plugin_entry(uint32_t, const struct asmspy_host_api *);

static const struct asmspy_view_ops *df;

static uint64_t F(const char *name) {
  for (size_t i = 0; i < FAKE_NFUNCS; i++)
    if (!strcmp(fake_funcs[i].name, name)) return fake_funcs[i].start;
  return 0;
}

static struct asmspy_event region_exit(int reached) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_REGION_EXIT;
  ev.u.region.reached = (uint32_t)reached;
  return ev;
}

/* open + configure over argv; returns configure's status (open's if it failed) */
static int start(struct asmspy_session *s, void **st, int argc, char **argv) {
  fake_session(s, "dataflow", argc, argv);
  fake_reset_output();
  *st = NULL;
  int rc = df->open(&fake_host, s, st);
  if (rc) return rc;
  return df->configure(*st, &fake_host, s);
}

static void test_ibs_entry(void) {
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN | ASMSPY_EVF_SAMPLED, F("main") + 0x10,
             F("main") + 0x10, F("entered_often"), 60);
  /* a loop landing on grind_forever's first byte from inside: no entry */
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN | ASMSPY_EVF_SAMPLED, F("grind_forever") + 0x40,
             F("grind_forever") + 0x40, F("grind_forever"), 200);
  fake_queue_prov("ibs", 900, 260);
  struct asmspy_session s;
  void *st;
  char *argv[] = {"--auto"};
  int rc = start(&s, &st, 1, argv);
  CHECK(rc == 0, "configure: %d\n%s", rc, fake_out);
  CHECK(!strcmp(fake_sampler_asked, "(ladder)") && fake_sampler_window == 400,
        "asked %s for %" PRId64, fake_sampler_asked, fake_sampler_window);
  CHECK(
      fake_has_line("--auto: entered_often [auto_victim] \u2014 60 entry samples from 1 call site "
                    "(of 1 candidate in 400 ms)"),
      "pick line:\n%s", fake_out);
  CHECK(fake_has_line("data-flow capture of entered_often @ 0x401100 (29 bytes) in pid 1234"),
        "region line:\n%s", fake_out);
  CHECK(s.region_start == F("entered_often") && s.region_len == 0x1d && s.entry_wait_ms == 2000,
        "session region 0x%" PRIx64 "+%" PRIu64 " wait %" PRId64, s.region_start, s.region_len,
        s.entry_wait_ms);
  struct asmspy_event ex = region_exit(0);
  CHECK(df->consume(st, &ex) == ASMSPY_CONSUME_DONE, "the only candidate: the walk ends");
  CHECK(df->retry(st, ASMSPY_FACT_NOT_REACHED, &s) == 0, "no candidate left to retry");
  CHECK(fake_has_line("entered_often not seen entering in pid 1234 (waited 2000 ms)"), "%s",
        fake_out);
  CHECK(fake_has_line("--auto: the only candidate, entered_often, was not seen entering again "
                      "within 2000 ms; nothing was captured"),
        "exhausted:\n%s", fake_out);
  df->close(st);

  /* --module scopes the pick: memcpy's entries win without it */
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN, F("main") + 0x10, F("main") + 0x10,
             F("entered_often"), 5);
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN, F("main") + 0x20, F("main") + 0x20, F("memcpy"),
             50);
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN, F("cold_path") + 4, F("cold_path") + 4,
             F("memcpy"), 50);
  fake_queue_prov("ibs", 200, 105);
  rc = start(&s, &st, 1, argv);
  CHECK(rc == 0 && fake_has_line("--auto: memcpy [libc.so.6] \u2014 100 entry samples from 2 call "
                                 "sites (of 2 candidates in 400 ms)"),
        "unscoped:\n%s", fake_out);
  df->close(st);
  char *argv_mod[] = {"--auto", "--module=auto_victim"};
  rc = start(&s, &st, 2, argv_mod);
  CHECK(rc == 0 && s.region_start == F("entered_often"), "--module=auto_victim picked 0x%" PRIx64,
        s.region_start);
  df->close(st);
}

static void test_residency_walk(void) {
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("grind_forever") + 0x30, 0, 0, 60);
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("grind_forever") + 0x38, 0, 0, 30);
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("entered_often") + 0xe, 0, 0, 10);
  fake_queue_prov("sw-clock", 100, 0);
  struct asmspy_session s;
  void *st;
  char *argv[] = {"--auto", "--sampler=sw", "--window=250"};
  int rc = start(&s, &st, 3, argv);
  CHECK(rc == 0 && !strcmp(fake_sampler_asked, "sw") && fake_sampler_window == 250,
        "rc=%d asked %s %" PRId64, rc, fake_sampler_asked, fake_sampler_window);
  CHECK(
      fake_has_line("--auto[sw-clock]: grind_forever [auto_victim] \u2014 90 residency samples at "
                    "2 offsets (of 2 candidates in 250 ms). Residency is NOT entry evidence; up "
                    "to 2 candidates will be tried"),
      "pick:\n%s", fake_out);
  CHECK(s.region_start == F("grind_forever"), "first candidate");
  struct asmspy_event ex = region_exit(0);
  CHECK(df->consume(st, &ex) == ASMSPY_CONSUME_MORE, "a miss with candidates left is not the end");
  CHECK(!strstr(fake_out, "not seen entering in pid"), "not_reached printed for a retried miss");
  CHECK(df->retry(st, 0, &s) == 0, "retry after a clean run");
  CHECK(df->retry(st, ASMSPY_FACT_NOT_REACHED, &s) == 1, "retry after the miss");
  CHECK(fake_has_line("--auto[sw-clock]: grind_forever was not seen ENTERING \u2014 a residency "
                      "winner that never re-enters is the rule's known failure shape; trying "
                      "candidate 2/2: entered_often (10 samples)"),
        "retry line:\n%s", fake_out);
  CHECK(s.region_start == F("entered_often") && s.region_len == 0x1d && s.entry_wait_ms == 2000,
        "second candidate in the session");
  CHECK(df->retry(st, ASMSPY_FACT_NOT_REACHED, &s) == 0, "retry without a new miss");
  CHECK(df->consume(st, &ex) == ASMSPY_CONSUME_DONE, "the last candidate's miss ends the walk");
  CHECK(fake_has_line("entered_often not seen entering in pid 1234 (waited 2000 ms)"), "%s",
        fake_out);
  CHECK(fake_has_line("--auto[sw-clock]: none of the 2 candidates was seen ENTERING within 2000 "
                      "ms; nothing was captured"),
        "exhausted:\n%s", fake_out);
  df->close(st);

  /* the ptrace rung's call target: named as such */
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("grind_forever") + 0x30, 0, 0, 30);
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_CALL, F("grind_forever") + 0x18,
             F("grind_forever") + 0x18, F("entered_often"), 1);
  fake_queue_prov("ptrace", 30, 0);
  char *argv_pt[] = {"--auto", "--sampler=ptrace"};
  rc = start(&s, &st, 2, argv_pt);
  CHECK(rc == 0 && fake_has_line("--auto[ptrace]: grind_forever [auto_victim] \u2014 30 residency "
                                 "samples at 1 offset (of 2 candidates in 400 ms; call targets of "
                                 "the hottest functions included). Residency is NOT entry "
                                 "evidence; up to 2 candidates will be tried"),
        "ptrace pick:\n%s", fake_out);
  df->consume(st, &ex);
  CHECK(df->retry(st, ASMSPY_FACT_NOT_REACHED, &s) == 1 &&
            fake_has_line("--auto[ptrace]: grind_forever was not seen ENTERING \u2014 a residency "
                          "winner that never re-enters is the rule's known failure shape; trying "
                          "candidate 2/2: entered_often (0 samples; called from grind_forever)"),
        "ptrace retry:\n%s", fake_out);
  df->close(st);
}

static void test_refusals(void) {
  struct asmspy_session s;
  void *st;
  char *argv[] = {"--auto"};
  /* idle: nothing observed */
  fake_sampler_reset();
  fake_queue_prov("sw-clock", 0, 0);
  int rc = start(&s, &st, 1, argv);
  CHECK(rc == ASMSPY_FACT_NO_EVENTS, "idle: %d", rc);
  CHECK(fake_has_line("--auto[sw-clock]: no function was observed running in pid 1234 (0 samples "
                      "in 400 ms): an idle target gets a refusal, not a guess"),
        "idle:\n%s", fake_out);
  CHECK(s.region_len == 0, "idle: a region was set");
  df->close(st);
  /* samples, none in a function with an extent */
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, 0xdead0000, 0, 0, 12);
  fake_queue_prov("sw-clock", 12, 0);
  rc = start(&s, &st, 1, argv);
  CHECK(rc == ASMSPY_FACT_NO_EVENTS &&
            fake_has_line("--auto[sw-clock]: no function was observed running in pid 1234 (12 "
                          "samples in 400 ms, none in a function with a known extent): nothing to "
                          "trace, and no guess is made"),
        "unnamed samples:\n%s", fake_out);
  df->close(st);
  /* IBS with branches but no entry */
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_TAKEN, F("grind_forever") + 0x40,
             F("grind_forever") + 0x40, F("grind_forever") + 0x30, 20);
  fake_queue_prov("ibs", 40, 20);
  rc = start(&s, &st, 1, argv);
  CHECK(
      rc == ASMSPY_FACT_NO_EVENTS &&
          fake_has_line("--auto: no function was observed being ENTERED in pid 1234 (20 "
                        "taken-branch samples in 400 ms): nothing to trace, and no guess is made"),
      "no entries:\n%s", fake_out);
  df->close(st);
  /* every rung refused: # SKIP, an unavailable status */
  fake_sampler_reset();
  fake_sampler_rc = -ASMSPY_E_NO_HW;
  rc = start(&s, &st, 1, argv);
  CHECK(rc == -ASMSPY_E_NO_HW && strstr(fake_out, "# SKIP --auto: every sampler rung (ibs, lbr, "
                                                  "sw, ptrace) refused on this host"),
        "all refused: %d\n%s", rc, fake_out);
  df->close(st);
  /* a tracer failure stays one */
  fake_sampler_rc = -ASMSPY_E_ATTACH_PERM;
  rc = start(&s, &st, 1, argv);
  CHECK(rc == -ASMSPY_E_ATTACH_PERM && strstr(fake_out, "# --auto: sampling pid 1234 failed"),
        "attach perm: %d\n%s", rc, fake_out);
  df->close(st);
  /* an unknown rung: the ladder's usage error passes through */
  fake_sampler_rc = -ASMSPY_E_USAGE;
  rc = start(&s, &st, 1, argv);
  CHECK(rc == -ASMSPY_E_USAGE, "unknown rung: %d", rc);
  df->close(st);
}

static void test_usage(void) {
  struct asmspy_session s;
  void *st;
  struct {
    int argc;
    char *argv[3];
    int tid;
  } bad[] = {
      {1, {"--auto"}, 77},               /* --tid */
      {2, {"--auto", "work"}, 0},        /* a region too */
      {2, {"work", "--module=libc"}, 0}, /* --module without --auto */
      {2, {"--auto", "--window=0"}, 0},
      {2, {"--auto", "--window=12x"}, 0},
      {2, {"--auto", "--window=60001"}, 0},
      {2, {"--auto", "--module="}, 0},
      {2, {"--auto", "--sampler="}, 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fake_session(&s, "dataflow", bad[i].argc, bad[i].argv);
    s.tid = bad[i].tid;
    st = NULL;
    int rc = df->open(&fake_host, &s, &st);
    CHECK(rc == -ASMSPY_E_USAGE, "case %zu (%s %s) accepted: %d", i, bad[i].argv[0],
          bad[i].argc > 1 ? bad[i].argv[1] : "", rc);
    if (!rc) df->close(st);
  }
}

int main(void) {
  unsetenv("ASMTEST_DF_ENTRY_WAIT_MS");
  unsetenv("ASMSPY_ENTRY_WAIT_MS");
  fake_host_init();
  const struct asmspy_plugin *p = asmspy_plugin_entry(ASMSPY_ABI_VERSION, &fake_host);
  CHECK(p && p->view && p->view->retry, "the dataflow view with retry()");
  if (!p || !p->view) return check_summary("auto_pick");
  df = p->view;
  test_ibs_entry();
  test_residency_walk();
  test_refusals();
  test_usage();
  return check_summary("auto_pick");
}

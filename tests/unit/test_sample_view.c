/* test_sample_view: the ranking rules (common/hot_rank.h) and the
 * sample view's tables, driven offline with synthesized events through a
 * scripted host (fake_sampling_host.h). The IBS/LBR rungs cannot run on
 * machines without a PMU, so this is where their edge path is exercised:
 * entry-edge ranking (back-edges, returns, untaken branches and mid-function
 * targets are not entries), residency tiers with call targets, the module
 * filter, and the hot-edge table of the seed's example, byte for byte. */
#include "check.h"
#include "fake_sampling_host.h"

#include "common/hot_rank.h"

/* the view under test, compiled into this program */
const struct asmspy_plugin *asmspy_plugin_entry(uint32_t, const struct asmspy_host_api *);

#define F(name) fake_addr(name)
static uint64_t fake_addr(const char *name) {
  for (size_t i = 0; i < FAKE_NFUNCS; i++)
    if (!strcmp(fake_funcs[i].name, name)) return fake_funcs[i].start;
  return 0;
}

static const uint32_t TAKEN = ASMSPY_EVF_BR_TAKEN;

static void test_entries(void) {
  struct hr_table e = {0};
  hr_add(&e, F("main") + 0x10, F("entered_often"), 5, TAKEN);           /* call site A */
  hr_add(&e, F("main") + 0x20, F("entered_often"), 3, TAKEN);           /* call site B */
  hr_add(&e, F("entered_often") + 0x18, F("entered_often"), 50, TAKEN); /* loop back-edge */
  hr_add(&e, F("cold_path") + 0x9, F("grind_forever"), 40, TAKEN | ASMSPY_EVF_BR_RET);
  hr_add(&e, F("main") + 0x30, F("cold_path"), 100, 0); /* never taken */
  hr_add(&e, F("main") + 0x40, F("cold_path"), 4, TAKEN);
  hr_add(&e, F("main") + 0x50, F("grind_forever") + 8, 70, TAKEN); /* not a first byte */
  hr_add(&e, F("main") + 0x60, 0xdead0000, 9, TAKEN);              /* no symbol */
  hr_add(&e, F("main") + 0x70, F("memcpy"), 6, TAKEN);
  struct hr_ranking rk;
  hr_rank_entries(&fake_host, FAKE_TARGET, &e, NULL, &rk);
  CHECK(rk.n == 3 && rk.observed == 3, "n=%zu observed=%zu", rk.n, rk.observed);
  CHECK(!strcmp(rk.c[0].fn.name, "entered_often") && rk.c[0].fn.samples == 8 &&
            rk.c[0].fn.spread == 2 && rk.c[0].evidence == HR_ENTRY,
        "first: %s %" PRIu64 " from %u sites", rk.c[0].fn.name, rk.c[0].fn.samples,
        rk.c[0].fn.spread);
  CHECK(!strcmp(rk.c[1].fn.name, "memcpy") && rk.c[1].fn.samples == 6, "second: %s",
        rk.c[1].fn.name);
  CHECK(!strcmp(rk.c[2].fn.name, "cold_path") && rk.c[2].fn.samples == 4, "third: %s %" PRIu64,
        rk.c[2].fn.name, rk.c[2].fn.samples);
  CHECK(rk.c[0].fn.start == F("entered_often") && rk.c[0].fn.size == 0x1d, "extent");
  hr_rank_entries(&fake_host, FAKE_TARGET, &e, "auto_victim", &rk);
  CHECK(rk.n == 2 && !strcmp(rk.c[1].fn.name, "cold_path"), "--module: n=%zu", rk.n);
  hr_rank_entries(&fake_host, FAKE_TARGET, &e, "nothing_matches", &rk);
  CHECK(rk.n == 0 && rk.observed == 0, "--module with no match");
  hr_free(&e);
}

static void test_residency(void) {
  struct hr_table sites = {0}, calls = {0};
  for (int off = 0x30; off < 0x48; off += 8) hr_add(&sites, F("grind_forever") + off, 0, 30, 0);
  hr_add(&sites, F("entered_often") + 0xe, 0, 6, 0);
  hr_add(&sites, F("entered_often") + 0x11, 0, 4, 0);
  hr_add(&sites, F("memcpy") + 0x20, 0, 20, 0);
  hr_add(&sites, 0xdead0000, 0, 7, 0); /* no symbol: counted, never a candidate */
  size_t nf = 0;
  struct hr_func *f = hr_functions(&fake_host, FAKE_TARGET, &sites, 0, NULL, &nf);
  CHECK(nf == 3 && f[0].samples == 90 && f[0].spread == 3, "functions: %zu, %" PRIu64, nf,
        nf ? f[0].samples : 0);
  CHECK(nf == 3 && !strcmp(f[1].name, "memcpy") && !strcmp(f[2].name, "entered_often") &&
            f[2].spread == 2,
        "order");
  free(f);
  struct hr_ranking rk;
  /* sw-clock: residency alone */
  hr_rank_residency(&fake_host, FAKE_TARGET, &sites, NULL, NULL, &rk);
  CHECK(rk.n == 3 && !strcmp(rk.c[0].fn.name, "grind_forever") &&
            !strcmp(rk.c[1].fn.name, "memcpy") && !strcmp(rk.c[2].fn.name, "entered_often"),
        "sw order: %s %s %s", rk.c[0].fn.name, rk.c[1].fn.name, rk.c[2].fn.name);
  /* ptrace: the winner's hot callee moves up; a cold callee fills in last */
  hr_add(&calls, F("grind_forever") + 0x18, F("entered_often"), 1, ASMSPY_EVF_BR_CALL);
  hr_add(&calls, F("grind_forever") + 0x20, F("cold_path"), 1, ASMSPY_EVF_BR_CALL);
  hr_rank_residency(&fake_host, FAKE_TARGET, &sites, &calls, NULL, &rk);
  CHECK(rk.n == 3 && !strcmp(rk.c[1].fn.name, "entered_often") &&
            rk.c[1].evidence == HR_CALL_TARGET && !strcmp(rk.c[1].via, "grind_forever") &&
            !strcmp(rk.c[2].fn.name, "memcpy"),
        "ptrace order: %s %s %s", rk.c[0].fn.name, rk.c[1].fn.name, rk.c[2].fn.name);
  hr_rank_residency(&fake_host, FAKE_TARGET, &sites, &calls, "auto_victim", &rk);
  CHECK(rk.n == 3 && !strcmp(rk.c[2].fn.name, "cold_path") && rk.c[2].fn.samples == 0 &&
            rk.c[2].evidence == HR_CALL_TARGET,
        "--module=auto_victim: %s", rk.n == 3 ? rk.c[2].fn.name : "?");
  /* a callee never sampled still makes the list (a short callee the probes missed) */
  struct hr_table only_grind = {0};
  hr_add(&only_grind, F("grind_forever") + 0x30, 0, 40, 0);
  hr_rank_residency(&fake_host, FAKE_TARGET, &only_grind, &calls, NULL, &rk);
  CHECK(rk.n == 3 && !strcmp(rk.c[1].fn.name, "entered_often") &&
            !strcmp(rk.c[2].fn.name, "cold_path"),
        "unsampled callees: n=%zu", rk.n);
  hr_free(&only_grind);
  hr_free(&sites);
  hr_free(&calls);
}

static void test_table_and_names(void) {
  struct hr_table t = {0};
  for (uint64_t i = 0; i < 5000; i++) hr_add(&t, i * 16, i % 7, 1 + i % 3, 0); /* grows */
  CHECK(t.n == 5000, "n=%zu", t.n);
  const struct hr_row **v = hr_sorted(&t);
  int sorted = v != NULL;
  for (size_t i = 1; sorted && i < t.n; i++) sorted = v[i - 1]->count >= v[i]->count;
  CHECK(sorted, "hr_sorted order");
  free(v);
  CHECK(hr_find(&t, 16 * 4999, 4999 % 7) && hr_find(&t, 16 * 4999, 4999 % 7)->count == 2,
        "hr_find");
  CHECK(!hr_find(&t, 1, 1), "hr_find absent");
  hr_free(&t);
  char buf[128];
  CHECK(!strcmp(hr_site_text(&fake_host, FAKE_TARGET, F("hot_spin"), buf, sizeof buf),
                "hot_spin [sample_victim]"),
        "%s", buf);
  CHECK(!strcmp(hr_site_text(&fake_host, FAKE_TARGET, F("hot_spin") + 0x1c, buf, sizeof buf),
                "hot_spin+0x1c [sample_victim]"),
        "%s", buf);
  CHECK(
      !strcmp(hr_site_text(&fake_host, FAKE_TARGET, 0xdead0000, buf, sizeof buf), "0xdead0000 [?]"),
      "%s", buf);
}

/* open + configure the view over `argv`, feed the queued events, finish */
static int run_view(const struct asmspy_view_ops *v, int argc, char **argv, int64_t max, int json,
                    void **state_out, struct asmspy_session *s) {
  fake_session(s, "sample", argc, argv);
  s->max = max;
  fake_wants_json_flag = json;
  void *st = NULL;
  int rc = v->open(&fake_host, s, &st);
  if (rc) return rc;
  rc = v->configure(st, &fake_host, s);
  for (size_t i = 0; i < fake_sampler_nevents; i++) v->consume(st, &fake_sampler_events[i]);
  *state_out = st;
  return rc;
}

static void test_view_edges(const struct asmspy_view_ops *v) {
  /* the seed's example: 391 + 102 + 41 (+ a mispredicted one) */
  fake_sampler_reset();
  uint64_t hs = F("hot_spin"), mn = 0x402100; /* sample_victim's main */
  fake_queue(ASMSPY_EV_BRANCH, TAKEN | ASMSPY_EVF_SAMPLED, hs + 0x1c, hs + 0x1c, hs + 0x8, 391);
  fake_queue(ASMSPY_EV_BRANCH, TAKEN | ASMSPY_EVF_SAMPLED, hs + 0x2e, hs + 0x2e, hs, 102);
  fake_queue(ASMSPY_EV_BRANCH, TAKEN | ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_RET, hs + 0x33, hs + 0x33,
             mn + 0x51, 41);
  fake_queue(ASMSPY_EV_BRANCH, TAKEN | ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_MISP, hs + 0x10,
             hs + 0x10, hs + 0x20, 3);
  fake_queue(ASMSPY_EV_BRANCH, TAKEN | ASMSPY_EVF_SAMPLED, hs + 0x10, hs + 0x10, hs + 0x20, 1);
  fake_reset_output();
  struct asmspy_session s;
  void *st = NULL;
  char *argv[] = {"--sampler=ibs"};
  int rc = run_view(v, 1, argv, 500, 0, &st, &s);
  CHECK(rc == 0 && s.window_ms == 500, "configure rc=%d window=%" PRId64, rc, s.window_ms);
  /* mid-window: no provenance yet */
  v->snapshot(st);
  CHECK(fake_has_line("statistical hot edges (sampling) \u2014 4 edges, 538/538 branch/total "
                      "samples (pid 1234)"),
        "snapshot header:\n%s", fake_out);
  fake_reset_output();
  struct asmspy_event prov;
  memset(&prov, 0, sizeof prov);
  ASMSPY_INIT_HEADER(&prov);
  prov.type = ASMSPY_EV_PROVENANCE;
  prov.u.prov.samples = 1604;
  prov.u.prov.branch_samples = 812;
  prov.u.prov.sampler = "ibs";
  v->consume(st, &prov);
  v->finish(st, 0);
  const char *want[] = {
      "statistical hot edges (AMD IBS-Op, out of band) \u2014 4 edges, 812/1604 branch/total "
      "samples (pid 1234)",
      "statistical, not exact: an edge here WAS taken; absence proves nothing.",
      "     391  hot_spin+0x1c [sample_victim]     -> hot_spin+0x8 [sample_victim]",
      "     102  hot_spin+0x2e [sample_victim]     -> hot_spin [sample_victim]",
      "      41  hot_spin+0x33 [sample_victim]     -> main+0x51 [sample_victim]  [ret]",
      "       4  hot_spin+0x10 [sample_victim]     -> hot_spin+0x20 [sample_victim]  [misp 75%]",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK(fake_has_line(want[i]), "missing line '%s' in:\n%s", want[i], fake_out);
  v->close(st);

  /* JSON: every row, addresses and names */
  fake_reset_output();
  rc = run_view(v, 1, argv, 500, 1, &st, &s);
  v->consume(st, &prov);
  v->finish(st, 0);
  CHECK(fake_out[0] == 0, "text written in JSON mode: %s", fake_out);
  CHECK(strstr(fake_json, "provenance {\"sampler\":\"ibs\",\"kind\":\"edges\",\"samples\":1604,"
                          "\"branch_samples\":812") != NULL,
        "provenance JSON:\n%s", fake_json);
  CHECK(strstr(fake_json,
               "hot_edge {\"count\":41,\"from\":\"0x402033\",\"from_sym\":\"hot_spin+0x33 "
               "[sample_victim]\",\"to\":\"0x402151\",\"to_sym\":\"main+0x51 "
               "[sample_victim]\",\"misp\":0,\"ret\":true,\"call\":false}") != NULL,
        "hot_edge JSON:\n%s", fake_json);
  v->close(st);

  /* --top=2 with --record (text and JSON): two rows in text, all four in JSON */
  fake_reset_output();
  char *argv_top[] = {"--top=2"};
  fake_record_flag = 1;
  rc = run_view(v, 1, argv_top, 0, 0, &st, &s);
  v->finish(st, 0);
  fake_record_flag = 0;
  CHECK(fake_has_line("     ... 2 more edges (--top=0 shows all; --json has all)"), "top:\n%s",
        fake_out);
  CHECK(!strstr(fake_out, "[ret]"), "row 3 shown despite --top=2");
  int hot_edges = 0;
  for (const char *p = fake_json; (p = strstr(p, "hot_edge {")); p++) hot_edges++;
  CHECK(hot_edges == 4, "JSON rows with --top=2: %d", hot_edges);
  v->close(st);
}

static void test_view_residency(const struct asmspy_view_ops *v) {
  fake_sampler_reset();
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("grind_forever") + 0x30, 0, 0, 7);
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, F("entered_often") + 0xe, 0, 0, 2);
  fake_queue(ASMSPY_EV_SAMPLE, ASMSPY_EVF_SAMPLED, 0xdead0000, 0, 0, 1);
  fake_queue(ASMSPY_EV_BRANCH, ASMSPY_EVF_BR_CALL, F("grind_forever") + 0x18,
             F("grind_forever") + 0x18, F("entered_often"), 1);
  fake_queue_prov("ptrace", 10, 0);
  fake_reset_output();
  struct asmspy_session s;
  void *st = NULL;
  run_view(v, 0, NULL, 0, 0, &st, &s);
  v->finish(st, 0);
  const char *want[] = {
      "statistical residency (ptrace attach-and-sample probes) \u2014 3 sites in 2 functions, 10 "
      "samples (pid 1234)",
      "statistical, not exact: code here WAS running; absence proves nothing, and residency is "
      "not entry evidence.",
      "  by function:",
      "       7  grind_forever [auto_victim]  1 offset",
      "       2  entered_often [auto_victim]  1 offset",
      "       1  (no symbol)",
      "  by site:",
      "       7  grind_forever+0x30 [auto_victim]",
      "       1  0xdead0000 [?]",
      "  call targets decoded in the hottest functions (static: candidates, not observations):",
      "          grind_forever+0x18 [auto_victim] -> entered_often [auto_victim]",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK(fake_has_line(want[i]), "missing line '%s' in:\n%s", want[i], fake_out);
  CHECK(!strstr(fake_out, "edge"), "a residency table speaks of edges:\n%s", fake_out);
  v->close(st);
}

static void test_view_usage(const struct asmspy_view_ops *v) {
  struct asmspy_session s;
  void *st = NULL;
  char *bad[][1] = {{"abc"}, {"--top=x"}, {"--top=-1"}, {"--what"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fake_session(&s, "sample", 1, bad[i]);
    CHECK(v->open(&fake_host, &s, &st) == -ASMSPY_E_USAGE, "'%s' accepted", bad[i][0]);
  }
  fake_session(&s, "sample", 0, NULL);
  s.max = -5;
  CHECK(v->open(&fake_host, &s, &st) == -ASMSPY_E_USAGE, "negative window accepted");
  s.max = 3600001;
  CHECK(v->open(&fake_host, &s, &st) == -ASMSPY_E_USAGE, "window over an hour accepted");
}

int main(void) {
  fake_host_init();
  test_entries();
  test_residency();
  test_table_and_names();
  const struct asmspy_plugin *p = asmspy_plugin_entry(ASMSPY_ABI_VERSION, &fake_host);
  CHECK(p && p->view && !strcmp(p->view->mode, "sample"), "the sample view's descriptor");
  if (p && p->view) {
    CHECK(p->view->caps_required == ASMSPY_CAP_IP_SAMPLES && p->view->snapshot, "caps/snapshot");
    test_view_edges(p->view);
    test_view_residency(p->view);
    test_view_usage(p->view);
  }
  CHECK(asmspy_plugin_entry(ASMSPY_ABI_MAKE(2, 0), &fake_host) == NULL, "refuses ABI 2.x");
  return check_summary("sample_view");
}

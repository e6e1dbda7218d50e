/* test_tui_core: the TUI's curses-free parts.
 *   records   a feed ring keeps the last TUI_FEED_LINES lines, whole records,
 *             and a frozen model survives the ring dropping its records;
 *   scroll    the seed's pause/history rules: space pauses and resumes,
 *             moving up pauses, End and scrolling past the newest line
 *             resume a feed, `[PAUSED line/total]`;
 *   proc tree children under their parent with ├─ └─ │ connectors, the
 *             filter keeps rows per row;
 *   data list the watch prompt's data symbols of a live process (this one:
 *             its own globals are found, its functions are not), the filter
 *             (prefix matches first, a 0x... input lists none) and Tab's
 *             completion (common prefix, else the selected row; +off kept). */
#include "tui/data_list.h"
#include "tui/proc_list.h"
#include "tui/records.h"
#include "tui/scroll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h" /* CHECK, failures, check_summary */

/* A typed record {"k":1} (what a view hands the TUI through emit_record). */
static const struct asmspy_field k_fields[] = {
    {.name = "k", .type = ASMSPY_FIELD_INT, .min = INT64_MIN}, {.name = NULL}};
static const struct asmspy_record_schema k_schema = {"t", "a test record", k_fields, NULL};

static void test_records(void) {
  struct tui_reclist feed = {.max_lines = TUI_FEED_LINES};
  char text[64];
  struct asmspy_value k_value = {.state = ASMSPY_VALUE_SET, .u.i = 1};
  struct asmspy_record k_rec = {.abi_version = ASMSPY_ABI_VERSION,
                                .struct_size = sizeof k_rec,
                                .schema = &k_schema,
                                .values = &k_value,
                                .text = NULL};
  /* 3000 one-line records and one 3-line record in between */
  for (int i = 0; i < 3000; i++) {
    snprintf(text, sizeof text, i == 1500 ? "a%d\nb\nc" : "line %d", i);
    struct tui_rec *r = tui_rec_new("t", i == 1500 ? &k_rec : NULL, text);
    CHECK(r && tui_reclist_push(&feed, r) == 0, "push %d", i);
    tui_rec_unref(r);
  }
  CHECK(feed.nlines == TUI_FEED_LINES, "kept %zu lines, want %d", feed.nlines, TUI_FEED_LINES);
  CHECK(feed.pushed_lines == 3002, "pushed %llu", (unsigned long long)feed.pushed_lines);
  struct tui_model m = {0};
  CHECK(tui_model_from(&m, &feed) == 0, "model");
  CHECK(m.nlines == TUI_FEED_LINES, "model lines %zu", m.nlines);
  CHECK(strcmp(tui_model_line(&m, m.nlines - 1), "line 2999") == 0, "newest '%s'",
        tui_model_line(&m, m.nlines - 1));
  /* the 3-line record is whole, and its typed values are reachable from every line */
  size_t at = 0;
  while (at < m.nlines && strcmp(tui_model_line(&m, at), "a1500") != 0) at++;
  CHECK(at + 2 < m.nlines && strcmp(tui_model_line(&m, at + 2), "c") == 0, "record lines");
  k_value.u.i = 2; /* the TUI keeps a copy: the view's values live only during the emit */
  CHECK(tui_rec_get(tui_model_rec(&m, at + 2), "k") &&
            tui_rec_get(tui_model_rec(&m, at + 2), "k")->u.i == 1 &&
            tui_rec_get(tui_model_rec(&m, at), "k") == tui_rec_get(tui_model_rec(&m, at + 2), "k"),
        "record values");
  /* the frozen model outlives the ring's copies */
  for (int i = 0; i < 5000; i++) {
    struct tui_rec *r = tui_rec_new("t", NULL, "newer");
    tui_reclist_push(&feed, r);
    tui_rec_unref(r);
  }
  tui_reclist_free(&feed);
  CHECK(strcmp(tui_model_line(&m, 0), "line 954") == 0, "frozen oldest '%s'",
        tui_model_line(&m, 0));
  struct tui_model c = {0};
  CHECK(tui_model_copy(&c, &m) == 0 && c.nlines == m.nlines, "copy");
  tui_model_free(&m);
  CHECK(strcmp(tui_model_line(&c, c.nlines - 1), "line 2999") == 0, "copy survives");
  tui_model_free(&c);
  CHECK(tui_model_from_text(&c, "x", "one\ntwo") == 0 && c.nlines == 2, "from_text");
  tui_model_free(&c);
}

static void test_scroll_feed(void) {
  struct tui_scroll s = {.tail = 1};
  size_t n = 100;
  int h = 10;
  char st[64];
  tui_scroll_fit(&s, n, h);
  CHECK(!s.paused && s.cursor == 99 && s.top == 90, "live tail: cursor %zu top %zu", s.cursor,
        s.top);
  tui_scroll_status(&s, n, st, sizeof st);
  CHECK(st[0] == '\0', "live status '%s'", st);
  /* moving up pauses and moves */
  CHECK(tui_scroll_key(&s, TUI_SK_UP, n, h) == TUI_SR_PAUSED, "up pauses");
  CHECK(s.paused && s.cursor == 98 && s.top == 89, "up: cursor %zu top %zu", s.cursor, s.top);
  tui_scroll_status(&s, n, st, sizeof st);
  CHECK(strcmp(st, "[PAUSED 99/100]") == 0, "status '%s'", st);
  /* new lines arrive: a paused feed stays where it is */
  tui_scroll_fit(&s, 150, h);
  CHECK(s.cursor == 98, "paused stays at %zu", s.cursor);
  CHECK(tui_scroll_key(&s, TUI_SK_HOME, n, h) == TUI_SR_MOVED && s.top == 0 && s.cursor == 9,
        "home: cursor %zu top %zu", s.cursor, s.top);
  CHECK(tui_scroll_key(&s, TUI_SK_UP, n, h) == TUI_SR_MOVED && s.top == 0, "up at the top stays");
  CHECK(tui_scroll_key(&s, TUI_SK_PGDN, n, h) == TUI_SR_MOVED && s.cursor == 18, "pgdn: %zu",
        s.cursor);
  /* scrolling past the newest line resumes */
  tui_scroll_key(&s, TUI_SK_END, n, h);
  CHECK(!s.paused, "End resumes a feed");
  tui_scroll_key(&s, TUI_SK_PAUSE, n, h);
  CHECK(s.paused && s.cursor == 99, "space pauses at the tail");
  CHECK(tui_scroll_key(&s, TUI_SK_DOWN, n, h) == TUI_SR_RESUMED && !s.paused,
        "down past the newest resumes");
  tui_scroll_key(&s, TUI_SK_PAUSE, n, h);
  CHECK(tui_scroll_key(&s, TUI_SK_PAUSE, n, h) == TUI_SR_RESUMED, "space resumes");
  CHECK(tui_scroll_key(&s, TUI_SK_DOWN, n, h) == TUI_SR_IGNORED, "down on a live feed: nothing");
}

static void test_scroll_frame_select(void) {
  /* a frame (graph): live shows its head; any move freezes it */
  struct tui_scroll f = {.tail = 0};
  tui_scroll_fit(&f, 50, 10);
  CHECK(f.top == 0 && f.cursor == 0, "frame head");
  CHECK(tui_scroll_key(&f, TUI_SK_DOWN, 50, 10) == TUI_SR_PAUSED && f.top == 1,
        "frame down pauses");
  tui_scroll_key(&f, TUI_SK_END, 50, 10);
  CHECK(f.paused && f.top == 40, "frame end stays paused, top %zu", f.top);
  /* a selecting pane (the tree): the cursor moves, the window follows */
  struct tui_scroll t = {.tail = 1, .select = 1};
  tui_scroll_fit(&t, 30, 10);
  CHECK(t.cursor == 29 && t.top == 20, "select live: %zu %zu", t.cursor, t.top);
  tui_scroll_key(&t, TUI_SK_UP, 30, 10);
  CHECK(t.paused && t.cursor == 28 && t.top == 20, "select up: %zu %zu", t.cursor, t.top);
  for (int i = 0; i < 12; i++) tui_scroll_key(&t, TUI_SK_UP, 30, 10);
  CHECK(t.cursor == 16 && t.top == 16, "select window follows: %zu %zu", t.cursor, t.top);
}

static void test_proc_tree(void) {
  struct tui_proclist l = {0};
  l.n = 5;
  l.v = calloc(l.n, sizeof *l.v);
  /* 1 -> {2 -> {4}, 3}, and 7 whose parent is not listed */
  const int pid[] = {1, 2, 3, 4, 7}, ppid[] = {0, 1, 1, 2, 99};
  const char *comm[] = {"init", "shell", "cron", "victim_loop", "orphan"};
  for (size_t i = 0; i < l.n; i++) {
    l.v[i].b.pid = pid[i];
    l.v[i].b.ppid = ppid[i];
    snprintf(l.v[i].b.comm, sizeof l.v[i].b.comm, "%s", comm[i]);
    snprintf(l.v[i].b.user, sizeof l.v[i].b.user, "root");
    snprintf(l.v[i].cmdline, sizeof l.v[i].cmdline, "/bin/%s", comm[i]);
  }
  l.tree = 1;
  CHECK(tui_proclist_arrange(&l, "") == 0 && l.nrows == 5, "tree rows %zu", l.nrows);
  const int want_order[] = {1, 2, 4, 3, 7};
  const char *want_prefix[] = {"", "\xe2\x94\x9c\xe2\x94\x80 ",
                               "\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 ",
                               "\xe2\x94\x94\xe2\x94\x80 ", ""};
  for (size_t k = 0; k < l.nrows && k < 5; k++) {
    const struct tui_proc *p = &l.v[l.rows[k]];
    CHECK(p->b.pid == want_order[k], "row %zu pid %d want %d", k, (int)p->b.pid, want_order[k]);
    CHECK(strcmp(p->prefix, want_prefix[k]) == 0, "row %zu prefix '%s' want '%s'", k, p->prefix,
          want_prefix[k]);
  }
  /* the filter keeps matching rows (with their connectors); terms AND */
  tui_proclist_arrange(&l, "victim 4");
  CHECK(l.nrows == 1 && l.v[l.rows[0]].b.pid == 4, "filter 'victim 4': %zu rows", l.nrows);
  tui_proclist_arrange(&l, "VICTIM 5");
  CHECK(l.nrows == 0, "filter terms must all match");
  l.tree = 0;
  tui_proclist_arrange(&l, "");
  CHECK(l.nrows == 5 && l.v[l.rows[4]].b.pid == 7 && l.v[l.rows[4]].prefix[0] == '\0',
        "flat by pid");
  tui_proclist_free(&l);
}

/* Data the test watches for in its own symbol table. */
long watch_me_counter = 1, watch_me_total = 2;
int other_watch_me = 3;

static int listed(const struct tui_datalist *l, const char *name) {
  for (size_t r = 0; r < l->nrows; r++)
    if (!strcmp(l->v[l->rows[r]].name, name)) return 1;
  return 0;
}

static void test_data_list(void) {
  struct tui_datalist l;
  memset(&l, 0, sizeof l);
  CHECK(tui_datalist_load(&l, getpid()) == 0, "load this process's data symbols");
  CHECK(listed(&l, "watch_me_counter") && listed(&l, "failures"), "its globals are listed");
  CHECK(!listed(&l, "main") && !listed(&l, "test_data_list"), "functions are not data");
  tui_datalist_filter(&l, "watch_me");
  CHECK(l.nrows >= 3, "the filter keeps the three watch_me globals: %zu", l.nrows);
  CHECK(l.nrows && !strncmp(l.v[l.rows[0]].name, "watch_me", 8), "prefix matches first");
  CHECK(listed(&l, "other_watch_me"), "substring matches too");
  char out[256];
  /* watch_me_counter / watch_me_total: the common prefix "watch_me_" */
  CHECK(tui_datalist_complete(&l, "watch_me", 0, out, sizeof out) && !strcmp(out, "watch_me_"),
        "Tab: the common prefix, got '%s'", out);
  tui_datalist_filter(&l, "watch_me_c");
  CHECK(tui_datalist_complete(&l, "watch_me_c", 0, out, sizeof out) &&
            !strcmp(out, "watch_me_counter"),
        "Tab: the one match, got '%s'", out);
  tui_datalist_filter(&l, "watch_me_c+4");
  CHECK(tui_datalist_complete(&l, "watch_me_c+4", 0, out, sizeof out) &&
            !strcmp(out, "watch_me_counter+4"),
        "Tab keeps +off, got '%s'", out);
  tui_datalist_filter(&l, "me_total");
  size_t sel = 0; /* the row of watch_me_total (ASan adds __odr_asan.* twins) */
  while (sel < l.nrows && strcmp(l.v[l.rows[sel]].name, "watch_me_total")) sel++;
  CHECK(sel < l.nrows && tui_datalist_complete(&l, "me_total", sel, out, sizeof out) &&
            !strcmp(out, "watch_me_total"),
        "Tab: no prefix match, the selected row, got '%s'", out);
  tui_datalist_filter(&l, "0x1000");
  CHECK(l.nrows == 0, "a raw address lists no symbol");
  tui_datalist_free(&l);
}

int main(void) {
  test_data_list();
  test_records();
  test_scroll_feed();
  test_scroll_frame_select();
  test_proc_tree();
  return check_summary("tui_core");
}

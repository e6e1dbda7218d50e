/* test_text_fit: the column-fitting rules every TUI screen uses (tui/text_fit.h).
 *   cut     text that fits is whole; a cut ends at a word boundary with room
 *           for '…', or inside a word only when the word is longer than
 *           half the room; widths are display columns (├─ is 2, not 6);
 *   wrap    lines break at words, a long path at its '/', the last row
 *           ends in '…', a word wider than a line counts as hard;
 *   footer  hints shrink/drop by priority — movement first, then the others
 *           from the right, the first hint last, the ways out (b, q, ESC)
 *           never — and are never cut (a trailing parenthesis goes first);
 *           the status gets what is left. */
#include "tui/text_fit.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/check.h" /* CHECK, failures, check_summary */

static void check_cut(const char *s, int width, const char *want, int want_cut) {
  int cut = -1;
  size_t keep = tf_cut(s, width, &cut);
  char got[256];
  snprintf(got, sizeof got, "%.*s", (int)keep, s);
  CHECK(strcmp(got, want) == 0 && cut == want_cut, "cut('%s', %d) = '%s' cut=%d, want '%s' cut=%d",
        s, width, got, cut, want, want_cut);
  if (cut) CHECK(tf_width(got) + 1 <= width, "'%s' + '…' is wider than %d", got, width);
}

static void test_cut(void) {
  check_cut("short", 10, "short", 0);
  check_cut("exactly 10", 10, "exactly 10", 0);
  check_cut("amd_ibs unavailable: no ibs_op PMU", 24, "amd_ibs unavailable: no", 1);
  check_cut("amd_ibs unavailable: no ibs_op PMU", 23, "amd_ibs unavailable:", 1);
  check_cut("amd_ibs unavailable: no ibs_op PMU", 21, "amd_ibs unavailable:", 1);
  /* a path breaks after a '/' */
  check_cut("/work/wt-tuil/build/tests/victims/victim_loop 100", 30, "/work/wt-tuil/build/tests/",
            1);
  /* the last boundary of either kind: the path's directory stays */
  check_cut("victim_layout /tmp/asmspy-test.6qUE6H/victim_layout 2000", 40,
            "victim_layout /tmp/asmspy-test.6qUE6H/", 1);
  /* one long word: cut inside it rather than keep almost nothing */
  check_cut("0x000055c514f9a000", 10, "0x000055c", 1);
  check_cut("ab cdefghijklmnopqrstuvwxyz", 12, "ab cdefghij", 1);
  /* C++ scopes break after '::', not between its colons */
  check_cut("ns::klass::method(int, long)", 20, "ns::klass::method", 1);
  /* columns, not bytes: the tree connectors are one column each (not 3) */
  check_cut("\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 bash", 10,
            "\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 bash", 0);
  check_cut("\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 bash", 9,
            "\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80", 1);
  CHECK(tf_width("\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 bash") == 10, "tree prefix width %d",
        tf_width("\xe2\x94\x82  \xe2\x94\x94\xe2\x94\x80 bash"));
  check_cut("anything", 1, "", 1);
}

static void test_wrap(void) {
  const char *reason =
      "7 hot edges (sampler) cannot start here: amd_ibs unavailable: no ibs_op PMU: "
      "/sys/bus/event_source/devices/ibs_op/type missing; Intel Xeon Processor";
  struct tf_line l[8];
  int hard = -1;
  int n = tf_wrap(reason, 40, l, 8, &hard);
  CHECK(n >= 4 && hard == 0, "wrap: %d lines, %d hard", n, hard);
  size_t covered = 0;
  for (int i = 0; i < n; i++) {
    CHECK(tf_width_n(reason + l[i].off, l[i].len) <= 40, "line %d too wide", i);
    CHECK(!l[i].ellipsis, "line %d has an ellipsis though everything fit", i);
    /* a line ends where a word ends: at the text's end, before a space, or after a separator */
    size_t end = l[i].off + l[i].len;
    char next = reason[end], last = reason[end - 1];
    CHECK(!next || next == ' ' || next == '(' || strchr("/,;:|", last),
          "line %d ends mid-word: '%.*s'", i, (int)l[i].len, reason + l[i].off);
    covered = end;
  }
  CHECK(covered == strlen(reason), "wrap lost the tail (%zu of %zu)", covered, strlen(reason));
  /* at 80 columns the path is not split at its first '/': a word boundary wins */
  n = tf_wrap(reason, 78, l, 8, &hard);
  CHECK(n >= 2 && reason[l[0].off + l[0].len] == ' ' &&
            strncmp(reason + l[1].off, "/sys/bus/", 9) == 0,
        "the path starts the second line whole: '%.*s'", (int)l[1].len, reason + l[1].off);
  n = tf_wrap(reason, 40, l, 2, &hard);
  CHECK(n == 2 && l[1].ellipsis && tf_width_n(reason + l[1].off, l[1].len) + 1 <= 40,
        "two rows: the second ends in '…'");
  n = tf_wrap("terminal too small: 40x8, asmspy needs at least 60x12", 40, l, 8, &hard);
  CHECK(n == 2 && hard == 0, "too-small wraps in two lines");
  CHECK(n == 2 && l[1].len == strlen("at least 60x12") &&
            strncmp("terminal too small: 40x8, asmspy needs at least 60x12" + l[1].off,
                    "at least 60x12", l[1].len) == 0,
        "the size stays one word");
  n = tf_wrap("abcdefghij", 4, l, 8, &hard);
  CHECK(n == 3 && hard == 2, "one long word: %d lines %d hard", n, hard);
  CHECK(tf_wrap("", 10, l, 8, &hard) == 0, "empty text: no lines");
}

static void check_footer(const char *status, const char *hints, int cols, const char *want,
                         int want_sw) {
  char out[256];
  int sw = tf_footer(status, hints, cols, out, sizeof out);
  CHECK(strcmp(out, want) == 0, "footer(%d): '%s'\n   want '%s'", cols, out, want);
  if (want_sw >= 0) CHECK(sw == want_sw, "footer(%d): status %d, want %d", cols, sw, want_sw);
}

static void test_footer(void) {
  const char *picker =
      "Enter select  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  type to filter  Tab sort  F2 tree  "
      "F3 rescan  q quit";
  check_footer("", picker, 120, picker, 0);
  /* 80 columns: the movement hint shrinks to its first key, everything else stays */
  check_footer("", picker, 80,
               "Enter select  \xe2\x86\x91\xe2\x86\x93  type to filter  Tab sort  F2 tree  F3 "
               "rescan  q quit",
               0);
  /* narrower: movement goes, then the others from the right; q quit stays */
  check_footer("", picker, 60, "Enter select  type to filter  Tab sort  F2 tree  q quit", 0);
  check_footer("", picker, 24, "Enter select  q quit", 0);
  check_footer("", picker, 12, "q quit", 0);
  const char *live =
      "Tab sort  space pause  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b modes  q processes ";
  check_footer(
      " [LIVE] tracing", live, 120,
      "Tab sort  space pause  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b modes  q processes",
      -1);
  check_footer(" [LIVE] tracing", live, 80,
               "Tab sort  space pause  \xe2\x86\x91\xe2\x86\x93  b modes  q processes",
               80 - 3 - 47);
  /* a long status asks for half the bar (at least TF_STATUS_MIN): movement goes first, then the
   * others; the ways out stay and the status takes the rest */
  char big[200];
  memset(big, 'x', 150);
  big[150] = '\0';
  check_footer(big, live, 80, "Tab sort  b modes  q processes", 80 - 3 - 30);
  check_footer(big, live, 60, "b modes  q processes", 60 - 3 - 20);
  check_footer("", "", 80, "", 0);
  /* a parenthesis is the first thing a hint gives up */
  const char *syms =
      "Enter trace it  type to filter  Tab order (address/hot edges/name)  F3 reload  ESC back";
  check_footer("", syms, 100, syms, 0);
  check_footer("", syms, 80, "Enter trace it  type to filter  Tab order  F3 reload  ESC back", 0);
}

static void check_tail(const char *s, const char *tail_at, int width, const char *want) {
  char got[512];
  tf_keep_tail(s, (size_t)(strstr(s, tail_at) - s), width, got, sizeof got);
  CHECK(strcmp(got, want) == 0, "keep_tail('%s', '%s', %d) = '%s', want '%s'", s, tail_at, width,
        got, want);
  CHECK(tf_width(got) <= width, "keep_tail: '%s' is wider than %d", got, width);
}

/* priorities in a line: the tail stays whole, the middle goes */
static void test_priorities(void) {
  const char *sc = "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=2000000}, NULL) = 0";
  check_tail(sc, ") = ", 200, sc);
  check_tail(sc, ") = ", 40, "clock_nanosleep(CLOCK_REALTIME, 0,\xe2\x80\xa6) = 0");
  /* a head without a boundary near the room's end is cut inside */
  check_tail("write(1, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", 36) = 36", ") = ", 30,
             "write(1, \"aaaaaaaaaaaaa\xe2\x80\xa6) = 36");
  /* the tail alone does not fit: its start stays */
  check_tail("f(x) = -1 ENOENT (No such file or directory)", ") = ", 12,
             "\xe2\x80\xa6) = -1\xe2\x80\xa6");
  char got[128];
  tf_elide_left("victim_layout", 8, got, sizeof got);
  CHECK(strcmp(got, "\xe2\x80\xa6_layout") == 0, "elide_left = '%s'", got);
  tf_elide_left("libc.so.6", 20, got, sizeof got);
  CHECK(strcmp(got, "libc.so.6") == 0, "elide_left whole = '%s'", got);
  CHECK(strcmp(tf_skip_cols("\xe2\x94\x9c\xe2\x94\x80 abc", 3), "abc") == 0, "skip_cols over ├─ ");
  CHECK(strcmp(tf_skip_cols("abc", 9), "") == 0, "skip_cols past the end");
}

int main(void) {
  setlocale(LC_ALL, "C.UTF-8");
  test_cut();
  test_wrap();
  test_footer();
  test_priorities();
  return check_summary("tui_text_fit");
}

/* text_fit: fitting UTF-8 text into terminal columns (see text_fit.h). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include "tui/text_fit.h"

#include <stdio.h>
#include <string.h>

size_t tf_next(const char *s, size_t left, wchar_t *wc) {
  mbstate_t st;
  memset(&st, 0, sizeof st);
  size_t n = mbrtowc(wc, s, left, &st);
  if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
    *wc = L'?';
    return 1;
  }
  return n;
}

int tf_char_width(wchar_t wc) {
  if (wc < 0x20 || wc == 0x7f) return -1;
  int w = wcwidth(wc);
  return w < 0 ? -1 : w;
}

/* what a character costs on screen: a control or unprintable one is a '?' */
static int cols_of(wchar_t wc) {
  int w = tf_char_width(wc);
  return w < 0 ? 1 : w;
}

int tf_width_n(const char *s, size_t n) {
  int cols = 0;
  while (n) {
    wchar_t wc;
    size_t k = tf_next(s, n, &wc);
    cols += cols_of(wc);
    s += k;
    n -= k;
  }
  return cols;
}

int tf_width(const char *s) { return s ? tf_width_n(s, strlen(s)) : 0; }

/* A line may end just before s[at]: a space or an opening bracket starts
 * the next word. */
static int break_before(const char *s, size_t at) {
  return at > 0 && (s[at] == ' ' || s[at] == '(' || s[at] == '[');
}

/* A line may end just after s[at - 1]: a separator closes a word ("a/",
 * "a,", "a:" but not inside "::"). */
static int break_after(const char *s, size_t at) {
  if (at == 0 || !s[at]) return 0;
  char c = s[at - 1];
  if (c == ':') return s[at] != ':';
  return c == '/' || c == ',' || c == ';' || c == '|';
}

/* Where a line may end: the last word boundary (before a space or a
 * bracket) and the last separator (after '/', ',', ...) that fit. */
struct breaks {
  size_t word, sep; /* bytes; 0: none */
  int word_cols, sep_cols;
};

/* Walk s while the characters fit in room columns. Returns the bytes of
 * whole characters that fit; *b: the break points within them. */
static size_t fit_scan(const char *s, size_t len, int room, struct breaks *b) {
  size_t at = 0;
  int used = 0;
  memset(b, 0, sizeof *b);
  while (at < len) {
    if (break_before(s, at)) b->word = at, b->word_cols = used;
    wchar_t wc;
    size_t n = tf_next(s + at, len - at, &wc);
    int w = cols_of(wc);
    if (used + w > room) break;
    used += w;
    at += n;
    if (break_after(s, at)) b->sep = at, b->sep_cols = used;
  }
  return at;
}

/* The end of a line of room columns: a word boundary that keeps at least
 * half of it, else a separator that does ("/a/long/pa" + "th"), else
 * whatever fits (one long word). *inside: the last case. */
static size_t pick_break(const struct breaks *b, size_t fit, int room, int *inside) {
  *inside = 0;
  if (b->word && b->word_cols * 2 >= room) return b->word;
  if (b->sep && b->sep_cols * 2 >= room) return b->sep;
  if (b->word || b->sep) return b->word > b->sep ? b->word : b->sep;
  *inside = 1;
  return fit;
}

static size_t trim_right(const char *s, size_t n) {
  while (n && s[n - 1] == ' ') n--;
  return n;
}

size_t tf_cut(const char *s, int width, int *cut) {
  size_t len = strlen(s);
  if (tf_width(s) <= width) {
    *cut = 0;
    return len;
  }
  *cut = 1;
  if (width <= 1) return 0;
  int room = width - 1; /* the '…' */
  struct breaks b;
  size_t fit = fit_scan(s, len, room, &b);
  /* the last boundary of either kind (the most text kept: "/a/path/…"),
   * unless it throws away more than half the room: then cut inside the
   * long word instead */
  size_t last = b.word > b.sep ? b.word : b.sep;
  int last_cols = b.word > b.sep ? b.word_cols : b.sep_cols;
  size_t keep = last && last_cols * 2 >= room ? last : fit;
  return trim_right(s, keep);
}

int tf_wrap(const char *s, int width, struct tf_line *lines, int max_rows, int *hard) {
  size_t len = strlen(s), off = 0;
  int k = 0;
  if (hard) *hard = 0;
  if (width < 1 || max_rows < 1) return 0;
  while (off < len && k < max_rows) {
    const char *r = s + off;
    size_t rest = len - off;
    if (tf_width(r) <= width) {
      lines[k++] = (struct tf_line){off, trim_right(r, rest), 0};
      break;
    }
    if (k == max_rows - 1) { /* the last row: what fits, then '…' */
      int cut;
      size_t keep = tf_cut(r, width, &cut);
      lines[k++] = (struct tf_line){off, keep, 1};
      break;
    }
    struct breaks b;
    size_t fit = fit_scan(r, rest, width, &b);
    int inside;
    size_t take = pick_break(&b, fit, width, &inside);
    if (inside && hard) (*hard)++;
    if (!take) { /* one character wider than the line: show it anyway */
      wchar_t wc;
      take = tf_next(r, rest, &wc);
    }
    lines[k++] = (struct tf_line){off, trim_right(r, take), 0};
    off += take;
    while (off < len && s[off] == ' ') off++;
  }
  return k;
}

/* ------------------------------------------------ priorities in a line -- */

static void put_bytes(char *out, size_t cap, size_t *k, const char *s, size_t n) {
  if (!cap) return;
  if (*k + n >= cap) n = cap - 1 - *k;
  memcpy(out + *k, s, n);
  *k += n;
  out[*k] = '\0';
}

void tf_keep_tail(const char *s, size_t tail, int width, char *out, size_t cap) {
  size_t len = strlen(s), k = 0;
  if (cap) out[0] = '\0';
  if (tail > len) tail = len;
  if (tf_width(s) <= width || width <= 0) {
    if (width > 0) put_bytes(out, cap, &k, s, len);
    return;
  }
  int tw = tf_width(s + tail);
  int room = width - tw - 1; /* the head's columns before the '…' */
  if (room < 1) {            /* the tail alone: its start matters most */
    int cut;
    size_t keep = tf_cut(s + tail, width - 1, &cut);
    put_bytes(out, cap, &k, TF_ELLIPSIS, strlen(TF_ELLIPSIS));
    put_bytes(out, cap, &k, s + tail, keep);
    if (cut) put_bytes(out, cap, &k, TF_ELLIPSIS, strlen(TF_ELLIPSIS));
    return;
  }
  /* the head alone, cut to room + 1 columns (tf_cut keeps one for its '…') */
  char head[4096];
  size_t hn = tail < sizeof head ? tail : sizeof head - 1;
  memcpy(head, s, hn);
  head[hn] = '\0';
  int cut;
  size_t keep = tf_cut(head, room + 1, &cut);
  /* a word boundary that throws away much of the room: cut inside instead
   * (the head is the middle of something: every column of it is worth it) */
  if (cut && tf_width_n(head, keep) * 4 < room * 3) {
    struct breaks b;
    keep = fit_scan(head, hn, room, &b);
  }
  put_bytes(out, cap, &k, head, keep);
  put_bytes(out, cap, &k, TF_ELLIPSIS, strlen(TF_ELLIPSIS));
  put_bytes(out, cap, &k, s + tail, len - tail);
}

void tf_elide_left(const char *s, int width, char *out, size_t cap) {
  size_t len = strlen(s), k = 0;
  if (cap) out[0] = '\0';
  if (width <= 0) return;
  int w = tf_width(s);
  if (w <= width) {
    put_bytes(out, cap, &k, s, len);
    return;
  }
  put_bytes(out, cap, &k, TF_ELLIPSIS, strlen(TF_ELLIPSIS));
  const char *rest = tf_skip_cols(s, w - (width - 1));
  put_bytes(out, cap, &k, rest, strlen(rest));
}

const char *tf_skip_cols(const char *s, int cols) {
  size_t left = strlen(s);
  while (cols > 0 && left) {
    wchar_t wc;
    size_t n = tf_next(s, left, &wc);
    cols -= cols_of(wc);
    s += n;
    left -= n;
  }
  return s;
}

/* ---------------------------------------------------------- key hints -- */

#define MAX_GROUPS 24

enum group_kind { G_WAYOUT, G_FIRST, G_OTHER, G_MOVE };

struct group {
  const char *s;
  size_t len, key_len; /* the whole group; its first word (the key) */
  size_t short_len;    /* its short form: a movement group's first key, another's
                          text before a trailing " (...)"; len when it has none */
  enum group_kind kind;
  int state; /* 0 whole, 1 short, 2 dropped */
};

static int key_is(const struct group *g, const char *k) {
  return g->key_len == strlen(k) && strncmp(g->s, k, g->key_len) == 0;
}

static int key_starts(const struct group *g, const char *k) {
  return g->key_len >= strlen(k) && strncmp(g->s, k, strlen(k)) == 0;
}

static enum group_kind kind_of(const struct group *g, int first) {
  if (key_is(g, "b") || key_is(g, "q") || key_is(g, "ESC")) return G_WAYOUT;
  if (key_starts(g, "\xe2\x86\x91") || key_starts(g, "PgUp") || key_starts(g, "PgDn") ||
      key_starts(g, "Home") || key_starts(g, "End"))
    return G_MOVE;
  return first ? G_FIRST : G_OTHER;
}

/* Split hints at runs of two or more spaces. */
static int parse_groups(const char *h, struct group *g) {
  int n = 0;
  while (h && *h && n < MAX_GROUPS) {
    while (*h == ' ') h++;
    if (!*h) break;
    const char *end = h;
    while (*end && !(end[0] == ' ' && end[1] == ' ')) end++;
    size_t len = trim_right(h, (size_t)(end - h));
    g[n] = (struct group){.s = h, .len = len};
    g[n].key_len = strcspn(h, " ");
    if (g[n].key_len > len) g[n].key_len = len;
    g[n].kind = kind_of(&g[n], n == 0);
    g[n].short_len = len;
    if (g[n].kind == G_MOVE) {
      g[n].short_len = g[n].key_len;
    } else if (len && h[len - 1] == ')') {
      for (size_t i = len; i-- > 1;)
        if (h[i] == '(' && h[i - 1] == ' ') {
          g[n].short_len = i - 1;
          break;
        }
    }
    n++;
    h = end;
  }
  return n;
}

static int group_cols(const struct group *g) {
  if (g->state == 2) return 0;
  return tf_width_n(g->s, g->state == 1 ? g->short_len : g->len);
}

static int hints_cols(const struct group *g, int n) {
  int cols = 0, kept = 0;
  for (int i = 0; i < n; i++)
    if (g[i].state != 2) cols += group_cols(&g[i]), kept++;
  return cols + (kept > 1 ? 2 * (kept - 1) : 0);
}

/* The columns the bar needs: a margin, the status and a gap, the hints, a
 * margin. */
static int bar_cols(const struct group *g, int n, int status_cols) {
  return (status_cols ? status_cols + 2 : 1) + hints_cols(g, n) + 1;
}

/* One step of giving way, in priority order: 1 when something changed. */
static int give_way(struct group *g, int n) {
  for (int i = n - 1; i >= 0; i--) /* movement keys: only the first one */
    if (g[i].kind == G_MOVE && g[i].state == 0 && g[i].short_len < g[i].len) return g[i].state = 1;
  for (int i = n - 1; i >= 0; i--) /* "Tab order (address/name)": the parenthesis goes */
    if (g[i].kind != G_MOVE && g[i].state == 0 && g[i].short_len < g[i].len) return g[i].state = 1;
  for (int i = n - 1; i >= 0; i--)
    if (g[i].kind == G_MOVE && g[i].state != 2) return g[i].state = 2, 1;
  for (int i = n - 1; i >= 0; i--)
    if (g[i].kind == G_OTHER && g[i].state != 2) return g[i].state = 2, 1;
  for (int i = n - 1; i >= 0; i--)
    if (g[i].kind == G_FIRST && g[i].state != 2) return g[i].state = 2, 1;
  return 0;
}

int tf_footer(const char *status, const char *hints, int cols, char *out, size_t cap) {
  struct group g[MAX_GROUPS];
  int n = parse_groups(hints, g);
  int sw = tf_width(status);
  int ask = cols / 2 > TF_STATUS_MIN ? cols / 2 : TF_STATUS_MIN;
  int want = sw < ask ? sw : ask;
  while (bar_cols(g, n, want) > cols && give_way(g, n)) {
  }
  size_t k = 0;
  if (cap) out[0] = '\0';
  for (int i = 0; i < n && cap; i++) {
    if (g[i].state == 2) continue;
    int w = snprintf(out + k, cap - k, "%s%.*s", k ? "  " : "",
                     (int)(g[i].state == 1 ? g[i].short_len : g[i].len), g[i].s);
    if (w < 0 || (size_t)w >= cap - k) break;
    k += (size_t)w;
  }
  if (!sw) return 0;
  int left = cols - hints_cols(g, n) - 3;
  return left > 0 ? left : 0;
}

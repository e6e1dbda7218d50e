/* demangle_simplify: see demangle.h. Works on the text __cxa_demangle
 * produced: template argument lists (<...>) and parameter lists ((...))
 * are dropped wherever they stand in a qualified name (a local entity's
 * "f(int)::S::g()" becomes "f::S::g"), except where they are part of the
 * name itself: operator<, operator<<, operator(), operator->, "(anonymous
 * namespace)", and "{lambda(int)#1}" (kept whole). What stands before the
 * last top-level space is the return type and goes too ("operator new",
 * "operator delete" and conversion operators keep theirs). */
#include "host/demangle.h"

#include <string.h>

/* the index just past the group opened at s[i] ('<', '(' or '{'), nested
 * groups of all three kinds counted; len when unbalanced */
static size_t skip_group(const char *s, size_t i, size_t len) {
  int depth = 0;
  for (; i < len; i++) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '{' || c == '[')
      depth++;
    else if (c == '>' || c == ')' || c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return len;
}

/* does out[0..n) end with the token "operator"? */
static int ends_operator(const char *o, size_t n) {
  if (n < 8 || memcmp(o + n - 8, "operator", 8) != 0) return 0;
  return n == 8 || o[n - 9] == ':' || o[n - 9] == ' ';
}

/* out[0..n) ends with "operator" and then operator characters: would one
 * more, c, still spell (the start of) an operator? ("operator-" then '<' is
 * operator-<T>'s template list; "operator<" then '<' is operator<<) */
static int operator_goes_on(const char *o, size_t n, char c) {
  static const char *const ops[] = {
      "<",  "<<", "<=", "<<=", "<=>", ">",  ">>", ">=", ">>=", "->", "->*", "-", "--",
      "-=", "==", "!=", "+=",  "*=",  "/=", "%=", "^=", "&=",  "|=", "=",   NULL};
  size_t k = n;
  while (k > 0 && strchr("<>=!+-*/%^&|~,", o[k - 1])) k--;
  if (!ends_operator(o, k) || n - k > 2) return 0;
  char cand[4];
  memcpy(cand, o + k, n - k);
  cand[n - k] = c;
  cand[n - k + 1] = 0;
  for (int i = 0; ops[i]; i++)
    if (strncmp(ops[i], cand, strlen(cand)) == 0) return 1;
  return 0;
}

static void put(char *out, size_t cap, size_t *n, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (*n + 1 < cap) out[*n] = s[i];
    (*n)++;
  }
}

size_t demangle_simplify(const char *in, char *out, size_t cap) {
  if (!cap) return 0;
  size_t len = strlen(in);
  /* the host's suffixes stay as they are */
  size_t body = len;
  const char *suffix = "";
  if (body >= 4 && strcmp(in + body - 4, "@plt") == 0) body -= 4, suffix = in + body;
  /* the compiler's clone suffixes go, as uftrace's simple demangling drops
   * them: "f(int) [clone .isra.0] [clone .cold]" -> "f" (a C name's
   * "f.isra.0" has no " [clone " and stays) */
  const char *clone = strstr(in, " [clone ");
  if (clone && (size_t)(clone - in) < body) body = (size_t)(clone - in);
  if (!memchr(in, '(', body) && !memchr(in, '<', body) && !memchr(in, ' ', body)) {
    size_t o = 0;
    put(out, cap, &o, in, body);
    put(out, cap, &o, suffix, strlen(suffix));
    size_t w = o < cap ? o : cap - 1;
    out[w] = 0;
    return w;
  }
  char tmp[1024];
  size_t n = 0;
  for (size_t i = 0; i < body;) {
    char c = in[i];
    if (c == '{') { /* {lambda(int)#1}, {unnamed type#1}: kept whole */
      size_t e = skip_group(in, i, body);
      put(tmp, sizeof tmp, &n, in + i, e - i);
      i = e;
    } else if (c == '<' || c == '>' || c == '(' || c == '=' || c == '-') {
      size_t m = n < sizeof tmp ? n : sizeof tmp - 1;
      if (c != '(' && operator_goes_on(tmp, m, c)) { /* operator<, operator<<=, operator-> */
        put(tmp, sizeof tmp, &n, &c, 1);
        i++;
      } else if (c == '(' && ends_operator(tmp, m) && i + 1 < body && in[i + 1] == ')') {
        put(tmp, sizeof tmp, &n, "()", 2); /* operator() */
        i += 2;
      } else if (c == '(' && strncmp(in + i, "(anonymous namespace)", 21) == 0) {
        put(tmp, sizeof tmp, &n, in + i, 21);
        i += 21;
      } else if (c == '<' || c == '(') {
        i = skip_group(in, i, body); /* template arguments, a parameter list */
        if (c == '(') {
          /* what follows a parameter list: "::" goes on (a local entity),
           * anything else (const, &, noexcept) ends the name */
          if (i + 1 < body && in[i] == ':' && in[i + 1] == ':') continue;
          break;
        }
      } else {
        put(tmp, sizeof tmp, &n, &c, 1);
        i++;
      }
    } else {
      put(tmp, sizeof tmp, &n, &c, 1);
      i++;
    }
  }
  if (n >= sizeof tmp) n = sizeof tmp - 1;
  while (n > 0 && tmp[n - 1] == ' ') n--; /* "operator<< <T>" */
  tmp[n] = 0;
  /* the return type: everything up to the last top-level space that does
   * not follow "operator" (operator new, operator bool) */
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    char c = tmp[i];
    if (c == '{' || c == '(' || c == '[')
      depth++;
    else if (c == '}' || c == ')' || c == ']')
      depth--;
    else if (c == ' ' && depth == 0 && !ends_operator(tmp, i) && i + 1 < n) {
      /* "operator new[]": the space after "operator" stays; a space inside
       * "operator delete" too */
      start = i + 1;
    }
  }
  size_t o = 0;
  put(out, cap, &o, tmp + start, n - start);
  put(out, cap, &o, suffix, strlen(suffix));
  size_t w = o < cap ? o : cap - 1;
  out[w] = 0;
  return w;
}

/* common/option_parse.h — the one option parser: a table of struct
 * asmspy_option (include/asmspy/plugin.h) in, a struct asmspy_optval out.
 *
 * The host hands it to views as host->parse_options (host/host_api.c); the
 * CLI parses the shared options and each command's with it (cli/args.c).
 * One parser means one set of rules everywhere:
 *   - getopt_long underneath: --name=value and --name value, --flag, "--"
 *     ends the options, a lone "-" is a positional;
 *   - names are spelled out: getopt_long's unique-prefix matching is
 *     refused (--fol is not --follow), so adding an option later can never
 *     change what an existing command line means;
 *   - no permutation: positionals come back in command-line order
 *     (getopt_long's RETURN_IN_ORDER, optstring "-"), and a negative number
 *     ("-1", a count) is a positional, not an option;
 *   - a value of an option whose arg is "a|b|c" must be one of the choices;
 *     an arg of the form "<what>" takes any non-empty value (the caller
 *     checks numbers and ranges, with its own message);
 *   - every refusal is one line in err, without a prefix: the caller says
 *     whose option it was ("--graph: unknown option '--x'").
 * getopt_long keeps its state in globals (optind, optarg); each call starts
 * it afresh (optind = 0: glibc's full reinitialisation), so calls may
 * follow each other, but not run concurrently in two threads.
 *
 * Header-only (static functions) so that a plugin test's fake host can use
 * the very same parser without linking libasmspy. */
#ifndef ASMSPY_COMMON_OPTION_PARSE_H
#define ASMSPY_COMMON_OPTION_PARSE_H

#include <asmspy/plugin.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* An arg is a list of choices when it is not a "<placeholder>". */
static inline int asmspy_option_has_choices(const struct asmspy_option *o) {
  return o->arg && o->arg[0] != '<';
}

/* Is v one of o->arg's "a|b|c"? */
static inline int asmspy_option_choice_ok(const struct asmspy_option *o, const char *v) {
  size_t n = strlen(v);
  for (const char *c = o->arg; *c;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && n && strncmp(c, v, n) == 0) return 1;
    if (!bar) break;
    c = bar + 1;
  }
  return 0;
}

/* The index of option `name` in table, or -1. name may end at '=' or NUL. */
static inline int asmspy_option_index(const struct asmspy_option *table, const char *name) {
  size_t n = strcspn(name, "=");
  for (int i = 0; table && table[i].name; i++)
    if (strlen(table[i].name) == n && strncmp(table[i].name, name, n) == 0) return i;
  return -1;
}

/* A decimal integer with a leading '-': a positional (a count), not an option. */
static inline int asmspy_option_negative_number(const char *s) {
  if (s[0] != '-' || !s[1]) return 0;
  for (s++; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* "<positionals> [--flag] [--name=<arg>] ...": a usage line's arguments,
 * from the positionals' text and the option table. Returns buf. */
static inline const char *asmspy_option_synopsis(char *buf, size_t cap, const char *positionals,
                                                 const struct asmspy_option *table) {
  size_t n = (size_t)snprintf(buf, cap, "%s", positionals ? positionals : "");
  for (int i = 0; table && table[i].name && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s[--%s%s%s]", n ? " " : "", table[i].name,
                          table[i].arg ? "=" : "", table[i].arg ? table[i].arg : "");
  return buf;
}

/* getopt_long's table for ours: option i returns 256 + i (no short
 * options), ended by a zeroed entry. */
static inline void asmspy_option_longopts(const struct asmspy_option *table, int nopt,
                                          struct option *lo) {
  for (int i = 0; i < nopt; i++) {
    lo[i].name = table[i].name;
    lo[i].has_arg = table[i].arg ? required_argument : no_argument;
    lo[i].flag = NULL;
    lo[i].val = 256 + i;
  }
  memset(&lo[nopt], 0, sizeof lo[nopt]);
}

/* One option getopt_long returned as c (tok: the token as the user wrote
 * it, argv[at - 1]): check that it names an option of the table in full,
 * with a value when it takes one (one of its choices, if it lists them),
 * and count it in out. Returns 0, or -ASMSPY_E_USAGE with the reason in err. */
static inline int asmspy_option_take(const struct asmspy_option *table, int c, const char *tok,
                                     int at, int argc, char *const *argv, struct asmspy_optval *out,
                                     char *err, size_t errcap) {
  /* the option the token names in full: getopt_long would also take a
   * unique prefix, which is refused here */
  int ti = tok[0] == '-' && tok[1] == '-' ? asmspy_option_index(table, tok + 2) : -1;
  if (c == '?' || ti < 0 || (c >= 256 && c - 256 != ti)) {
    if (ti >= 0 && !table[ti].arg && strchr(tok, '='))
      snprintf(err, errcap, "option '--%s' takes no value (got '%s')", table[ti].name, tok);
    else /* unknown, an abbreviation, a short option */
      snprintf(err, errcap, "unknown option '%.*s'", (int)strcspn(tok, "="), tok);
    return -ASMSPY_E_USAGE;
  }
  const struct asmspy_option *o = &table[ti];
  if (c == ':') {
    snprintf(err, errcap, "--%s needs a value: --%s=%s", o->name, o->name, o->arg);
    return -ASMSPY_E_USAGE;
  }
  const char *v = "";
  if (o->arg) {
    /* --name value: the value is the next token as the user wrote it */
    v = strchr(tok, '=') ? strchr(tok, '=') + 1 : (at < argc ? argv[at] : optarg);
    if (!*v) {
      snprintf(err, errcap, "--%s= needs a value: --%s=%s", o->name, o->name, o->arg);
      return -ASMSPY_E_USAGE;
    }
    if (asmspy_option_has_choices(o) && !asmspy_option_choice_ok(o, v)) {
      snprintf(err, errcap, "invalid --%s '%s': one of %s", o->name, v, o->arg);
      return -ASMSPY_E_USAGE;
    }
  }
  out->value[ti] = v;
  out->count[ti]++;
  return 0;
}

/* After "--" (getopt_long stopped at 1-based index first): the rest are
 * positionals. Returns 0, or -ASMSPY_E_USAGE when there are too many. */
static inline int asmspy_option_rest(int first, int argc, char *const *argv,
                                     struct asmspy_optval *out, char *err, size_t errcap) {
  for (int i = first; i >= 1 && i <= argc; i++) {
    if (out->npos >= ASMSPY_OPT_MAX_POS) {
      snprintf(err, errcap, "too many arguments ('%s')", argv[i - 1]);
      return -ASMSPY_E_USAGE;
    }
    out->pos[out->npos++] = argv[i - 1];
  }
  return 0;
}

static int asmspy_option_parse(const struct asmspy_option *table, int argc, char *const *argv,
                               struct asmspy_optval *out, char *err, size_t errcap)
    __attribute__((unused));

static int asmspy_option_parse(const struct asmspy_option *table, int argc, char *const *argv,
                               struct asmspy_optval *out, char *err, size_t errcap) {
  uint32_t abi = out->abi_version, size = out->struct_size;
  if (size < sizeof *out) {
    snprintf(err, errcap, "option parser: the caller's result struct is too small");
    return -ASMSPY_E_ABI;
  }
  memset(out, 0, sizeof *out);
  out->abi_version = abi;
  out->struct_size = size;
  int nopt = 0;
  while (table && table[nopt].name) nopt++;
  if (nopt > ASMSPY_OPT_MAX) {
    snprintf(err, errcap, "option table has %d options (at most %d)", nopt, ASMSPY_OPT_MAX);
    return -ASMSPY_E_USAGE;
  }
  out->nopt = (uint32_t)nopt;
  if (argc > 4096) {
    snprintf(err, errcap, "too many arguments");
    return -ASMSPY_E_USAGE;
  }

  /* getopt_long wants argv[0] to be the program and may only see the
   * tokens it should treat as options: a negative number loses its dash in
   * this working copy (and gets it back from argv when it is returned). */
  char *work[4098];
  work[0] = (char *)"asmspy";
  for (int i = 0; i < argc; i++)
    work[i + 1] = asmspy_option_negative_number(argv[i]) ? argv[i] + 1 : argv[i];
  work[argc + 1] = NULL;
  struct option lo[ASMSPY_OPT_MAX + 1];
  asmspy_option_longopts(table, nopt, lo);

  int saved_opterr = opterr, rc = 0;
  opterr = 0;
  optind = 0;
  for (;;) {
    int at = optind ? optind : 1; /* the token this call looks at (no permutation) */
    int li = -1;
    int c = getopt_long(argc + 1, work, "-:", lo, &li);
    if (c == -1) break;
    const char *tok = at <= argc ? argv[at - 1] : "";
    if (c == 1) { /* a positional, in order */
      if (out->npos >= ASMSPY_OPT_MAX_POS) {
        snprintf(err, errcap, "too many arguments ('%s')", tok);
        rc = -ASMSPY_E_USAGE;
        break;
      }
      out->pos[out->npos++] = tok;
      continue;
    }
    rc = asmspy_option_take(table, c, tok, at, argc, argv, out, err, errcap);
    if (rc) break;
  }
  if (rc == 0) rc = asmspy_option_rest(optind, argc, argv, out, err, errcap);
  opterr = saved_opterr;
  optind = 1;
  return rc;
}

#endif /* ASMSPY_COMMON_OPTION_PARSE_H */

/* Shell completion, from the same tables as --help.
 *
 * `asmspy --complete <cword> <word0> <word1> ...` prints the candidates for
 * word <cword> of a command line (word0 is the program), one per line:
 * commands and modes first, then the options of the command or mode given
 * (its table + the shared options), the choices of an option's "a|b|c"
 * value, the backends for --backend, the modes after --launch / --help.
 * An option that takes a value is offered as "--name=" (the scripts then
 * add no space). The scripts (`asmspy --completion bash|zsh`, installed by
 * meson) are thin: they ask the asmspy being completed at run time, so a
 * third-party view plugin completes like a built-in one. */
#include "cli/cli.h"
#include "common/option_parse.h"

#include <stdlib.h>
#include <string.h>

struct cands {
  const char *cur; /* only candidates starting with it */
};

static void offer(const struct cands *c, const char *prefix, const char *word, const char *suffix) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s%s%s", prefix, word, suffix);
  if (strncmp(buf, c->cur, strlen(c->cur)) == 0) puts(buf);
}

static void offer_modes(const struct cands *c, struct asmspy_engine *e, const char *prefix) {
  for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    if (p->desc && p->kind == ASMSPY_KIND_VIEW) offer(c, prefix, p->desc->view->mode, "");
  }
}

static void offer_options(const struct cands *c, const struct asmspy_option *table) {
  for (int i = 0; table && table[i].name; i++)
    offer(c, "--", table[i].name, table[i].arg ? "=" : "");
}

/* The values of option o: its choices, or the registry's backends. */
static void offer_values(const struct cands *c, struct asmspy_engine *e,
                         const struct asmspy_option *o, const char *prefix) {
  if (asmspy_option_has_choices(o)) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->arg);
    for (char *save = NULL, *v = strtok_r(buf, "|", &save); v; v = strtok_r(NULL, "|", &save))
      offer(c, prefix, v, "");
  } else if (strcmp(o->name, "backend") == 0) {
    for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
      const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
      if (p->desc && p->kind == ASMSPY_KIND_BACKEND) offer(c, prefix, p->name, "");
    }
  }
}

/* An option of `a` or `b` by name (name may end at '='). */
static const struct asmspy_option *find_option(const struct asmspy_option *a,
                                               const struct asmspy_option *b, const char *name) {
  int i = asmspy_option_index(a, name);
  if (i >= 0) return &a[i];
  i = asmspy_option_index(b, name);
  return i >= 0 ? &b[i] : NULL;
}

static void complete(struct asmspy_engine *e, int cword, int nwords, char **words) {
  struct cands c = {cword < nwords ? words[cword] : ""};
  if (cword <= 1) {
    for (const struct cli_command *k = cli_commands; k->name; k++)
      if (!k->hidden) offer(&c, "--", k->name, "");
    /* a command whose value is a choice ("=<perfetto|folded|dot> ..."):
     * --name=<each choice> once "--name=" is typed */
    for (const struct cli_command *k = cli_commands; k->name; k++) {
      const char *p = k->positionals;
      size_t nl = strlen(k->name);
      if (k->hidden || !k->takes_value || !p || strncmp(p, "=<", 2) != 0 ||
          strncmp(c.cur, "--", 2) != 0 || strncmp(c.cur + 2, k->name, nl) != 0 ||
          c.cur[2 + nl] != '=')
        continue;
      size_t end = strcspn(p + 2, ">");
      for (const char *q = p + 2; q < p + 2 + end;) {
        size_t n = strcspn(q, "|>");
        char pre[160], w[128];
        snprintf(pre, sizeof pre, "--%s=", k->name);
        snprintf(w, sizeof w, "%.*s", (int)n, q);
        offer(&c, pre, w, "");
        q += n + (q[n] == '|');
        if (q[0] == '>') break;
      }
    }
    offer_modes(&c, e, "--");
    return;
  }
  const char *first = words[1];
  if (strncmp(first, "--", 2) != 0) return;
  char name[128];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(first + 2, "="), first + 2);

  /* the tables in effect at word cword */
  const struct asmspy_option *own = NULL, *shared = cli_shared_options;
  const struct cli_command *k = cli_find_command(name);
  if (k && strcmp(k->name, "help") == 0) {
    if (cword == 2) {
      for (const struct cli_command *h = cli_commands; h->name; h++)
        if (!h->hidden) offer(&c, "", h->name, "");
      offer_modes(&c, e, "");
    }
    return;
  }
  if (k && strcmp(k->name, "completion") == 0) {
    if (cword == 2) offer(&c, "", "bash", ""), offer(&c, "", "zsh", "");
    return;
  }
  if (k && strcmp(k->name, "launch") == 0) {
    if (cword == 2) {
      offer_modes(&c, e, "");
      return;
    }
    for (int i = 3; i < cword; i++)
      if (strcmp(words[i], "--") == 0) return; /* the command: the shell's own completion */
    snprintf(name, sizeof name, "%s", words[2]);
    k = NULL;
  }
  if (k) {
    own = k->options;
    shared = NULL;
  } else {
    own = cli_view_options(asmspy_find_view_for_mode(e, name));
  }

  const char *cur = c.cur, *prev = words[cword - 1];
  if (cur[0] == '-' && cur[1] == '-' && strchr(cur, '=')) { /* --name=<value> */
    const struct asmspy_option *o = find_option(own, shared, cur + 2);
    if (o && o->arg) {
      char prefix[160];
      snprintf(prefix, sizeof prefix, "--%s=", o->name);
      offer_values(&c, e, o, prefix);
    }
  } else if (cur[0] == '-') {
    offer_options(&c, own);
    offer_options(&c, shared);
  } else if (prev[0] == '-' && prev[1] == '-' && !strchr(prev, '=')) { /* --name <value> */
    const struct asmspy_option *o = find_option(own, shared, prev + 2);
    if (o && o->arg) offer_values(&c, e, o, "");
  }
}

int cli_cmd_complete(int argc, char **argv) {
  char *end = NULL;
  long cword = argc >= 1 ? strtol(argv[0], &end, 10) : -1;
  if (argc < 2 || !end || *end || cword < 0)
    return cli_usage_error("--complete <cword> <word0> [words...]");
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  complete(e, (int)cword, argc - 1, argv + 1);
  if (e) asmspy_engine_close(e);
  return CLI_EXIT_OK;
}

/* bash: COMP_WORDBREAKS splits "--sort=fan" at '='; the words are joined
 * back for asmspy, and the part up to the '=' is cut from the candidates
 * again (readline replaces only what follows it). */
static const char bash_script[] =
    "# bash completion for asmspy. Generated by `asmspy --completion bash`;\n"
    "# the candidates come from `asmspy --complete` (the option tables).\n"
    "_asmspy() {\n"
    "  local i w words=() cword=0\n"
    "  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do\n"
    "    w=${COMP_WORDS[i]}\n"
    "    if ((i > 1)) && [[ $w == = || ${COMP_WORDS[i-1]} == = ]]; then\n"
    "      words[${#words[@]}-1]+=$w\n"
    "    else\n"
    "      words+=(\"$w\")\n"
    "    fi\n"
    "    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))\n"
    "  done\n"
    "  ((COMP_CWORD >= ${#COMP_WORDS[@]})) && { words+=(''); cword=$((${#words[@]} - 1)); }\n"
    "  local cur=${words[cword]} IFS=$'\\n'\n"
    "  COMPREPLY=($(\"${COMP_WORDS[0]}\" --complete \"$cword\" \"${words[@]}\" 2>/dev/null))\n"
    "  if [[ $cur == *=* && $COMP_WORDBREAKS == *=* ]]; then\n"
    "    local cut=${cur%=*}=\n"
    "    COMPREPLY=(\"${COMPREPLY[@]#\"$cut\"}\")\n"
    "  fi\n"
    "  [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null\n"
    "  return 0\n"
    "}\n"
    "complete -F _asmspy asmspy\n";

static const char zsh_script[] =
    "#compdef asmspy\n"
    "# zsh completion for asmspy. Generated by `asmspy --completion zsh`;\n"
    "# the candidates come from `asmspy --complete` (the option tables).\n"
    "_asmspy() {\n"
    "  local -a cands with_eq plain\n"
    "  local c\n"
    "  cands=(${(f)\"$(${words[1]} --complete $((CURRENT - 1)) \"${words[@]}\" 2>/dev/null)\"})\n"
    "  for c in $cands; do\n"
    "    if [[ $c == *= ]]; then with_eq+=(\"$c\"); else plain+=(\"$c\"); fi\n"
    "  done\n"
    "  (( $#with_eq )) && compadd -Q -S '' -- $with_eq\n"
    "  (( $#plain )) && compadd -Q -- $plain\n"
    "  return 0\n"
    "}\n"
    "_asmspy \"$@\"\n";

int cli_cmd_completion(int argc, char **argv) {
  if (argc == 1 && strcmp(argv[0], "bash") == 0) return fputs(bash_script, stdout), CLI_EXIT_OK;
  if (argc == 1 && strcmp(argv[0], "zsh") == 0) return fputs(zsh_script, stdout), CLI_EXIT_OK;
  return cli_usage_error("--completion takes bash or zsh");
}

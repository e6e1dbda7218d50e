/* --help: generated, never typed twice. The commands come from the command
 * table (cli/commands.c) with their option tables, the modes from the view
 * plugins the registry finds (a third-party view is listed like the
 * built-in ones), each mode's options from its view's `options` table, the
 * options every mode takes from cli_shared_options. `--help <mode>` (or
 * <command>) prints one of them in full. */
#include "cli/cli.h"
#include "cli/doc_tables.h"
#include "common/option_parse.h"

#include <string.h>

#define SYNOPSIS_WIDTH 40

/* One option per line: the spelling padded to a column (16 wide at the
 * left margin, as the shared options always were; 26 under a mode), then
 * the help; a longer spelling puts the help on the next line. */
static void print_option_lines(FILE *f, const struct asmspy_option *table, int indent) {
  int width = indent <= 2 ? 16 : 26;
  for (int i = 0; table && table[i].name; i++) {
    char spec[160];
    snprintf(spec, sizeof spec, "--%s%s%s", table[i].name, table[i].arg ? "=" : "",
             table[i].arg ? table[i].arg : "");
    if ((int)strlen(spec) > width)
      fprintf(f, "%*s%s\n%*s%s\n", indent, "", spec, indent + width + 1, "", table[i].help);
    else
      fprintf(f, "%*s%-*s %s\n", indent, "", width, spec, table[i].help);
  }
}

/* "  --name     synopsis    help", the help on its own line when the
 * synopsis is wider than its column. */
static void print_entry(FILE *f, const char *name, const char *syn, const char *help) {
  if ((int)strlen(syn) > SYNOPSIS_WIDTH)
    fprintf(f, "  --%-9s %s\n%*s%s\n", name, syn, 14 + SYNOPSIS_WIDTH + 1, "", help);
  else
    fprintf(f, "  --%-9s %-*s %s\n", name, SYNOPSIS_WIDTH, syn, help);
}

static const char *view_positionals(const struct asmspy_plugin_info *p) {
  return p->desc->view->usage ? p->desc->view->usage : "<pid> [n]";
}

static void print_shared(FILE *f) {
  fprintf(f, "\noptions for every mode:\n");
  print_option_lines(f, cli_shared_options, 2);
  fprintf(f, "  n < 0            run until the target exits or Ctrl-C\n"
             "\nexit status: 0 answered (including a '# SKIP' for an unavailable backend),\n"
             "1 tracer failure (no such process, permission), 2 usage error. Under --launch,\n"
             "once asmspy answered: the command's exit code, or its killing signal re-raised\n"
             "(strace's rule). Options may precede the mode; -h is --help.\n"
             "environment variables: asmspy --help env\n");
}

void cli_print_usage(FILE *f) {
  fprintf(f, "usage: asmspy --<command|mode> [arguments]\n\ncommands:\n");
  for (const struct cli_command *c = cli_commands; c->name; c++) {
    if (c->hidden) continue;
    char syn[512];
    asmspy_option_synopsis(syn, sizeof syn, c->positionals, c->options);
    print_entry(f, c->name, syn, c->help);
  }
  fprintf(f, "\nmodes (served by view plugins; see --backends):\n");
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    if (!p->desc || p->kind != ASMSPY_KIND_VIEW) continue;
    const struct asmspy_option *opts = cli_view_options(p);
    char syn[512];
    snprintf(syn, sizeof syn, "%s%s", view_positionals(p), opts && opts->name ? " [options]" : "");
    print_entry(f, p->desc->view->mode, syn, p->description);
    print_option_lines(f, opts, 16);
  }
  if (e) asmspy_engine_close(e);
  print_shared(f);
}

/* --help <name>: one mode or command in full. */
static int print_one(FILE *f, const char *name) {
  if (name[0] == '-' && name[1] == '-') name += 2;
  if (strcmp(name, "env") == 0) { /* not a mode: the environment table (cli/doc_tables.c) */
    cli_print_env(f);
    return CLI_EXIT_OK;
  }
  const struct cli_command *c = cli_find_command(name);
  if (c) {
    char syn[512];
    asmspy_option_synopsis(syn, sizeof syn, c->positionals, c->options);
    /* "--export=<format>", "--serve[=<socket>]": a value glued to the name stays glued */
    int glued = syn[0] == '=' || (syn[0] == '[' && syn[1] == '=');
    fprintf(f, "usage: asmspy --%s%s%s\n\n%s\n", c->name, glued ? "" : " ", syn, c->help);
    if (c->options && c->options->name) {
      fprintf(f, "\noptions:\n");
      print_option_lines(f, c->options, 2);
    }
    return CLI_EXIT_OK;
  }
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  const struct asmspy_plugin_info *p = e ? asmspy_find_view_for_mode(e, name) : NULL;
  int rc = CLI_EXIT_OK;
  if (p) {
    const struct asmspy_option *opts = cli_view_options(p);
    char syn[1024];
    asmspy_option_synopsis(syn, sizeof syn, view_positionals(p), opts);
    fprintf(f, "usage: asmspy --%s %s\n\n%s (view plugin '%s')\n", p->desc->view->mode, syn,
            p->description, p->name);
    if (opts && opts->name) {
      fprintf(f, "\noptions:\n");
      print_option_lines(f, opts, 2);
    }
    print_shared(f);
  } else {
    rc = cli_usage_error("--help: no command or mode named '%s'", name);
  }
  if (e) asmspy_engine_close(e);
  return rc;
}

int cli_cmd_help(int argc, char **argv) {
  if (argc > 1) return cli_usage_error("--help takes one mode or command, got '%s' too", argv[1]);
  if (argc == 1) return print_one(stdout, argv[0]);
  cli_print_usage(stdout);
  return CLI_EXIT_OK;
}

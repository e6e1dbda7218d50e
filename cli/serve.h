/* asmspy --serve: asmspy as a capture host (docs/asmtrace-schema.md,
 * "Serve protocol"). Three files, one concern each:
 *   serve.c           the loop: one command channel, one session at a time,
 *                     each session in its own child process whose events
 *                     are forwarded line by line between control lines,
 *                     never waiting for the client (a bounded queue, then
 *                     counted drops: a `lost` event in the recording);
 *   serve_protocol.c  the commands (parse + validate + translate a start to
 *                     the CLI's own arguments) and the control lines;
 *   serve_socket.c    --serve=<path>: a unix socket that only its owner can
 *                     reach, and the peer-uid check.
 */
#ifndef ASMSPY_CLI_SERVE_H
#define ASMSPY_CLI_SERVE_H

#include "asmspy/plugin.h"
#include "common/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SERVE_PROTOCOL_VERSION 1
#define SERVE_MAX_COMMAND (64u * 1024u) /* bytes per command line, without '\n' */

enum serve_verb {
  SERVE_START = 1,
  SERVE_PAUSE,
  SERVE_RESUME,
  SERVE_STOP,
  SERVE_QUIT,
};

/* One parsed command. Strings are owned (serve_cmd_free). */
struct serve_cmd {
  enum serve_verb verb;
  const char *verb_name;
  char *id_json; /* the client's "id" as JSON (a string or an integer), or NULL */
  /* start only */
  char *mode;            /* as the client named it ("auto") */
  const char *view_mode; /* the view mode it runs ("dataflow") */
  int argc;              /* the CLI arguments the start translates to, for */
  char **argv;           /*   cli_parse_mode_args(view_mode, ...) */
  char **launch;         /* "launch": the command to spawn traced, NULL-terminated */
  int bounded;           /* ends on its own (no negative max): EOF lets it finish */
};

/* Why a command was refused: a rule token and a one-line message. */
struct serve_refusal {
  char rule[32];
  char msg[512];
};

/* What the parser asks of the installed modes (the server answers from the
 * registry's views, the unit test from a table): serve knows no view by
 * name. start {"mode": "auto"} runs the view that declares an `--auto`
 * flag, with --auto; a start's "max" is the view's own --max=<n> when its
 * options table declares `max` (a view that captures one invocation has no
 * count), else the count positional. */
struct serve_modes {
  /* the options table of the view serving `mode`; NULL: none / no such view */
  const struct asmspy_option *(*options_of)(void *ctx, const char *mode);
  /* the mode of the view declaring an `auto` flag, or NULL; stable while the
   * parsed command lives */
  const char *(*auto_mode)(void *ctx);
  void *ctx;
};

/* Parse and validate one command line (len bytes, no '\n'). Returns 0 with
 * *cmd filled, or -1 with *why filled. Never reads outside line[0..len). */
int serve_parse_command(const char *line, size_t len, const struct serve_modes *modes,
                        struct serve_cmd *cmd, struct serve_refusal *why);
void serve_cmd_free(struct serve_cmd *cmd);
int serve_refuse(struct serve_refusal *why, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Control lines (no trailing newline; the caller frees b->s):
 *   {"type":"cmd","cmd":"start","line":3,"session":1,"id":...}       an ack
 *   {"type":"err","rule":"json","error":"...","line":3,"cmd":...}    a refusal
 *   {"type":"session","session":1,"event":"message"|"ended",...}     a session's life */
void serve_ack_line(struct strbuf *b, const struct serve_cmd *cmd, uint64_t line, int session);
void serve_err_line(struct strbuf *b, const struct serve_refusal *why, uint64_t line,
                    const char *verb, const char *id_json, int session);

/* serve_socket.c ---------------------------------------------------------- */

struct serve_socket {
  int fd;
  char path[108]; /* where it was actually created */
  dev_t dev;
  ino_t ino;
};

/* Create and listen on the socket for the path the user gave. In a
 * directory others can write, the socket goes into a private 0700
 * directory beside it, <dir>/asmspy-<uid>/<name>. Returns 0, or -1 with a
 * one-line message in err (an existing non-socket file, a live server, an
 * unsafe directory, a path too long). */
int serve_socket_open(const char *path, struct serve_socket *ss, char *err, size_t errcap);
/* Remove the socket (only if the path still names the one we created). */
void serve_socket_close(struct serve_socket *ss);
/* The connecting peer's uid from SO_PEERCRED, or -1. */
int serve_peer_uid(int fd, uid_t *uid, pid_t *pid);

/* The entry, cli_cmd_serve(), is declared in cli.h with the other commands. */

#endif /* ASMSPY_CLI_SERVE_H */

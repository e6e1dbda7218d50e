/* test_public_api: the library's own size-prefixed structs, through the
 * shared library only (this program links libasmspy.so and includes nothing
 * but the installed asmspy headers, like any embedder):
 *   - asmspy_run refuses a run_opts of another major or shorter than the
 *     first size-prefixed one (a caller built before the prefix), and lets a
 *     well-formed one through to the mode lookup;
 *   - asmspy_recording_check fills the report within struct_size, says how
 *     much it filled, refuses a too-short one untouched, and reports the
 *     verdicts and the raw-control-text scan asmtrace-check prints. */
#define _GNU_SOURCE
#include <asmspy/asmspy.h>
#include <asmspy/recording.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"

#define HDR                                                                                        \
  "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","         \
  "\"tool_version\":\"0.1.0\",\"mode\":\"stream\",\"pid\":1234,\"backend\":\"singlestep\","        \
  "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"hostname\":\"h\"},"                        \
  "\"start_time\":\"2026-12-02T09:00:00Z\",\"start_unix_ns\":123}\n"
/* the second event's human text carries a raw ESC (JSON \u001b) */
#define EVENTS                                                                                     \
  "{\"type\":\"insn\",\"seq\":1,\"tid\":1234,\"ip\":\"0x401000\",\"sym\":\"main\",\"off\":0,"      \
  "\"module\":\"a.out\",\"bytes\":\"4889e5\",\"disasm\":\"mov rbp, rsp\"}\n"                       \
  "{\"type\":\"insn\",\"seq\":2,\"tid\":1234,\"ip\":\"0x401003\",\"sym\":\"main\",\"off\":3,"      \
  "\"module\":\"a.out\",\"bytes\":\"4889e5\",\"disasm\":\"mov rbp, rsp\","                         \
  "\"human\":\"x\\u001b[2Jy\"}\n"
#define END                                                                                        \
  "{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"n_reached\",\"status\":0,"               \
  "\"end_unix_ns\":456}\n"

static char dir[] = "/tmp/test_public_api.XXXXXX";

static char *write_file(const char *name, const char *text) {
  char *path;
  if (asprintf(&path, "%s/%s", dir, name) < 0) abort();
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(99);
  }
  return path;
}

static void check_run_opts(void) {
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  CHECK(e != NULL, "asmspy_engine_open");
  if (!e) return;
  struct asmspy_run_opts o;
  memset(&o, 0, sizeof o);
  o.mode = "no-such-mode-anywhere";
  CHECK(asmspy_run(e, &o) == -ASMSPY_E_ABI, "a run_opts without its header is refused");

  ASMSPY_INIT_HEADER(&o);
  CHECK(o.struct_size == 136 && o.abi_version == ASMSPY_ABI_VERSION, "ASMSPY_INIT_HEADER");
  o.struct_size = 120; /* one member (on_frame) short of the 1.8 struct */
  CHECK(asmspy_run(e, &o) == -ASMSPY_E_ABI, "a run_opts shorter than 1.8's is refused");

  ASMSPY_INIT_HEADER(&o);
  o.abi_version = ASMSPY_ABI_MAKE(2, 0);
  CHECK(asmspy_run(e, &o) == -ASMSPY_E_ABI, "a run_opts of major 2 is refused");

  /* Accepted: the run goes on to look the mode up (and finds none). */
  ASMSPY_INIT_HEADER(&o);
  int rc = asmspy_run(e, &o);
  CHECK(rc == -ASMSPY_E_USAGE, "a current run_opts reaches the mode lookup (rc %d)", rc);
  o.abi_version = ASMSPY_ABI_MAKE(1, 0xff); /* a newer minor with a bigger struct */
  o.struct_size = 0x1000;
  struct {
    struct asmspy_run_opts o;
    char newer_members[0x1000 - sizeof(struct asmspy_run_opts)];
  } big;
  memset(&big, 0, sizeof big);
  big.o = o;
  rc = asmspy_run(e, &big.o);
  CHECK(rc == -ASMSPY_E_USAGE, "a newer minor's bigger run_opts is read (rc %d)", rc);
  asmspy_engine_close(e);
}

static void check_recording(void) {
  char *valid = write_file("valid.asmtrace", HDR EVENTS END);
  char *cut = write_file("cut.asmtrace", HDR EVENTS);
  char *missing = NULL;
  if (asprintf(&missing, "%s/absent.asmtrace", dir) < 0) abort();

  struct asmspy_recording_report r;
  memset(&r, 0x5a, sizeof r);
  ASMSPY_INIT_HEADER(&r);
  int v = asmspy_recording_check(valid, &r);
  CHECK(v == ASMSPY_RECORDING_VALID && r.verdict == v, "valid: verdict %d (%s)", v, r.error);
  CHECK(r.struct_size == sizeof r && r.abi_version == ASMSPY_ABI_VERSION, "valid: header words");
  CHECK(r.have_header && r.format_version == 1 && r.pid == 1234 && strcmp(r.mode, "stream") == 0 &&
            strcmp(r.backend, "singlestep") == 0 && strcmp(r.hostname, "h") == 0,
        "valid: header fields");
  CHECK(r.events == 2 && r.n_types == 1 && strcmp(r.types[0].name, "insn") == 0 &&
            r.types[0].count == 2 && r.types[1].name[0] == '\0',
        "valid: counts (the rest of the table zeroed)");
  CHECK(r.have_end && r.end_events == 2 && strcmp(r.end_reason, "n_reached") == 0, "valid: footer");
  CHECK(r.raw_control_events == 1 && r.raw_control_first_seq == 2 &&
            strcmp(r.raw_control_member, "human") == 0 && r.raw_control_byte == 0x1b,
        "valid: the raw ESC in seq 2's human text (%llu events, seq %lld, %s, 0x%x)",
        (unsigned long long)r.raw_control_events, (long long)r.raw_control_first_seq,
        r.raw_control_member, r.raw_control_byte);
  CHECK(strcmp(asmspy_recording_verdict_name(v), "valid") == 0, "verdict name");

  ASMSPY_INIT_HEADER(&r);
  v = asmspy_recording_check(cut, &r);
  CHECK(v == ASMSPY_RECORDING_TRUNCATED && !r.have_end && r.events == 2 && r.error[0],
        "no footer: truncated (%s)", r.error);
  CHECK(strcmp(asmspy_recording_verdict_name(v), "truncated") == 0, "verdict name");

  ASMSPY_INIT_HEADER(&r);
  v = asmspy_recording_check(missing, &r);
  CHECK(v == ASMSPY_RECORDING_INVALID && r.error_line == 0 &&
            strncmp(r.error, "cannot open: ", 13) == 0,
        "absent file: invalid, '%s'", r.error);

  /* Too short: refused, nothing written. */
  memset(&r, 0x5a, sizeof r);
  r.abi_version = ASMSPY_ABI_VERSION;
  r.struct_size = (uint32_t)offsetof(struct asmspy_recording_report, raw_control_events);
  v = asmspy_recording_check(valid, &r);
  CHECK(v == -ASMSPY_E_ABI, "a report shorter than 1.8's is refused (%d)", v);
  CHECK(r.struct_size == offsetof(struct asmspy_recording_report, raw_control_events) &&
            (unsigned char)r.tool[0] == 0x5a,
        "... and left untouched");
  r.abi_version = ASMSPY_ABI_MAKE(2, 0);
  r.struct_size = sizeof r;
  CHECK(asmspy_recording_check(valid, &r) == -ASMSPY_E_ABI, "a report of major 2 is refused");

  /* A newer caller's bigger struct: ours is filled, its tail zeroed, and
   * struct_size says where our part ends. */
  struct {
    struct asmspy_recording_report r;
    unsigned char newer[64];
  } big;
  memset(&big, 0x5a, sizeof big);
  big.r.abi_version = ASMSPY_ABI_MAKE(1, 0xff);
  big.r.struct_size = sizeof big;
  v = asmspy_recording_check(valid, &big.r);
  int tail_zero = 1;
  for (size_t i = 0; i < sizeof big.newer; i++) tail_zero &= big.newer[i] == 0;
  CHECK(v == ASMSPY_RECORDING_VALID && big.r.struct_size == sizeof big.r && tail_zero &&
            big.r.raw_control_events == 1,
        "a bigger report: filled to our size, the tail zeroed");

  CHECK(asmspy_recording_check(NULL, &r) == -ASMSPY_E_USAGE, "NULL path");
  CHECK(asmspy_recording_check(valid, NULL) == -ASMSPY_E_USAGE, "NULL report");

  unlink(valid);
  unlink(cut);
  free(valid);
  free(cut);
  free(missing);
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 99;
  }
  check_run_opts();
  check_recording();
  rmdir(dir);
  return check_summary("test_public_api");
}

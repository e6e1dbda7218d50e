/* Unit test of plugins/common/perf_probe.h: the PMU format-file parser
 * ("config:0", "config:14-17", "config2:0", "config1:0-63", lists, garbage)
 * and the sysfs integer / format readers on temporary files.
 * Exit 0 = pass, 1 = at least one check failed. Standalone build, e.g.:
 *   gcc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -I include -I . -o /tmp/test_perf_format tests/unit/test_perf_format.c */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugins/common/perf_probe.h"

#include "check.h"

static void expect_format(const char *text, int field, unsigned lo, unsigned hi, uint64_t mask) {
  struct pp_format f;
  memset(&f, 0xa5, sizeof f);
  int rc = pp_parse_format(text, &f);
  CHECK(rc == 0, "parse(\"%s\") = %d", text, rc);
  if (rc != 0) return;
  CHECK(f.field == field, "\"%s\": field %d, want %d", text, f.field, field);
  CHECK(f.lo == lo, "\"%s\": lo %u, want %u", text, f.lo, lo);
  CHECK(f.hi == hi, "\"%s\": hi %u, want %u", text, f.hi, hi);
  CHECK(f.mask == mask, "\"%s\": mask %#llx, want %#llx", text, (unsigned long long)f.mask,
        (unsigned long long)mask);
}

static void expect_bad_format(const char *text) {
  struct pp_format f = {7, 7, 7, 7};
  int rc = pp_parse_format(text, &f);
  CHECK(rc == -EINVAL, "parse(\"%s\") = %d, want -EINVAL", text ? text : "(null)", rc);
  CHECK(f.field == 7 && f.lo == 7 && f.hi == 7 && f.mask == 7,
        "parse(\"%s\") touched the output on failure", text ? text : "(null)");
}

static void test_format_parser(void) {
  /* the cases the backends meet */
  expect_format("config:0", PP_FMT_CONFIG, 0, 0, 0x1);
  expect_format("config:13", PP_FMT_CONFIG, 13, 13, 1ull << 13);
  expect_format("config:14-17", PP_FMT_CONFIG, 14, 17, 0x3c000);
  expect_format("config2:0", PP_FMT_CONFIG2, 0, 0, 0x1);
  expect_format("config1:0-63", PP_FMT_CONFIG1, 0, 63, ~0ull);
  expect_format("config1:0-11", PP_FMT_CONFIG1, 0, 11, 0xfff);
  expect_format("config:63", PP_FMT_CONFIG, 63, 63, 1ull << 63);
  expect_format("config3:5", PP_FMT_CONFIG3, 5, 5, 1ull << 5);
  /* as read from sysfs: trailing newline; leading blanks */
  expect_format("config:10\n", PP_FMT_CONFIG, 10, 10, 1ull << 10);
  expect_format("  config:19\n", PP_FMT_CONFIG, 19, 19, 1ull << 19);
  /* lists (perf's pmu.y allows them) */
  expect_format("config:0-7,32-35", PP_FMT_CONFIG, 0, 35, 0xfull << 32 | 0xff);
  expect_format("config1:3,1", PP_FMT_CONFIG1, 1, 3, 0xa);

  /* garbage */
  expect_bad_format(NULL);
  expect_bad_format("");
  expect_bad_format("\n");
  expect_bad_format("config");
  expect_bad_format("config:");
  expect_bad_format("config:\n");
  expect_bad_format("cfg:1");
  expect_bad_format("Config:1");
  expect_bad_format("config4:0");
  expect_bad_format("config0:1");
  expect_bad_format("config:64");
  expect_bad_format("config:0-64");
  expect_bad_format("config:99999999999999999999");
  expect_bad_format("config:17-14");
  expect_bad_format("config:1x");
  expect_bad_format("config:1 2");
  expect_bad_format("config:-1");
  expect_bad_format("config:1-");
  expect_bad_format("config:1,");
  expect_bad_format("config:,1");
  expect_bad_format("config 1");
  expect_bad_format("event=0xc4");
  expect_bad_format("garbage");

  /* value scatter into the named bits */
  struct pp_format f;
  CHECK(pp_parse_format("config:14-17", &f) == 0, "parse");
  CHECK(pp_format_value(&f, 3) == 3ull << 14, "mtc_period=3 -> %#llx",
        (unsigned long long)pp_format_value(&f, 3));
  CHECK(pp_format_value(&f, 0x1f) == 0xfull << 14, "over-wide value is truncated");
  CHECK(pp_parse_format("config:0-1,8-9", &f) == 0, "parse");
  CHECK(pp_format_value(&f, 0xf) == 0x303, "split format: %#llx",
        (unsigned long long)pp_format_value(&f, 0xf));
  CHECK(pp_format_value(&f, 0x6) == 0x102, "split format 0x6: %#llx",
        (unsigned long long)pp_format_value(&f, 0x6));

  /* applying to an attr */
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  CHECK(pp_parse_format("config2:0", &f) == 0, "parse");
  CHECK(pp_attr_apply_format(&a, &f, 1) == 0 && a.config2 == 1 && a.config == 0, "config2");
  CHECK(pp_parse_format("config:13", &f) == 0, "parse");
  CHECK(pp_attr_apply_format(&a, &f, 1) == 0 && a.config == 1ull << 13, "config");
  CHECK(pp_parse_format("config1:0-11", &f) == 0, "parse");
  CHECK(pp_attr_apply_format(&a, &f, 256) == 0 && a.config1 == 256, "config1");
  CHECK(pp_parse_format("config3:0", &f) == 0, "parse");
  CHECK(pp_attr_apply_format(&a, &f, 1) == -EOPNOTSUPP, "config3 cannot be applied");
}

static char tmpdir[] = "/tmp/test_perf_format.XXXXXX";

static void put(const char *rel, const char *content) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs(content, f);
  fclose(f);
}

static int read_int(const char *rel, int base, long long *v) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  return pp_read_sysfs_int(path, base, v);
}

static void expect_int(const char *content, int base, long long want) {
  put("v", content);
  long long v = 12345;
  int rc = read_int("v", base, &v);
  CHECK(rc == 0 && v == want, "read_sysfs_int(\"%s\", base %d) = %d / %lld, want %lld", content,
        base, rc, v, want);
}

static void expect_int_err(const char *content, int base, int want_rc) {
  put("v", content);
  long long v = 12345;
  int rc = read_int("v", base, &v);
  CHECK(rc == want_rc && v == 12345, "read_sysfs_int(\"%s\") = %d (v=%lld), want %d", content, rc,
        v, want_rc);
}

static void test_sysfs_reader(void) {
  expect_int("14\n", 10, 14);
  expect_int("8", 10, 8);
  expect_int("-1\n", 10, -1);
  expect_int("  3\n", 10, 3);
  expect_int("0\n", 10, 0);
  expect_int("ff\n", 16, 255);
  expect_int("0x1f\n", 0, 31);
  expect_int("9223372036854775807\n", 10, 9223372036854775807ll);

  expect_int_err("", 10, -EINVAL);
  expect_int_err("\n", 10, -EINVAL);
  expect_int_err("abc\n", 10, -EINVAL);
  expect_int_err("12abc\n", 10, -EINVAL);
  expect_int_err("1 2\n", 10, -EINVAL);
  expect_int_err("0x1f\n", 10, -EINVAL);
  expect_int_err("99999999999999999999\n", 10, -ERANGE);

  long long v = 7;
  CHECK(read_int("does-not-exist", 10, &v) == -ENOENT && v == 7, "missing file -> -ENOENT");
  /* a directory is not a readable attribute */
  CHECK(read_int(".", 10, &v) == -EISDIR && v == 7, "directory -> -EISDIR");

  /* pp_read_text strips trailing whitespace and truncates to cap */
  put("t", "hello world  \n\n");
  char path[512], buf[8];
  snprintf(path, sizeof path, "%s/t", tmpdir);
  char big[64];
  CHECK(pp_read_text(path, big, sizeof big) == 11 && strcmp(big, "hello world") == 0,
        "read_text: \"%s\"", big);
  CHECK(pp_read_text(path, buf, sizeof buf) == 7 && strcmp(buf, "hello w") == 0,
        "read_text truncates: \"%s\"", buf);

  /* a fake PMU tree: type + format files, and the PMU listing */
  char d[512];
  snprintf(d, sizeof d, "%s/pmus", tmpdir);
  CHECK(mkdir(d, 0755) == 0, "mkdir");
  snprintf(d, sizeof d, "%s/pmus/zz_pt", tmpdir);
  CHECK(mkdir(d, 0755) == 0, "mkdir");
  snprintf(d, sizeof d, "%s/pmus/aa_sw", tmpdir);
  CHECK(mkdir(d, 0755) == 0, "mkdir");
  snprintf(d, sizeof d, "%s/pmus/zz_pt/format", tmpdir);
  CHECK(mkdir(d, 0755) == 0, "mkdir");
  put("pmus/zz_pt/type", "9\n");
  put("pmus/zz_pt/format/branch", "config:13\n");
  put("pmus/zz_pt/format/broken", "config:xyz\n");
  char root[512];
  snprintf(root, sizeof root, "%s/pmus", tmpdir);
  struct pp_format f;
  char raw[32];
  CHECK(pp_read_format_at(root, "zz_pt", "branch", &f, raw, sizeof raw) == 0 &&
            f.mask == 1ull << 13 && strcmp(raw, "config:13") == 0,
        "read_format branch (raw \"%s\")", raw);
  CHECK(pp_read_format_at(root, "zz_pt", "broken", &f, raw, sizeof raw) == -EINVAL &&
            strcmp(raw, "config:xyz") == 0,
        "read_format broken (raw \"%s\")", raw);
  CHECK(pp_read_format_at(root, "zz_pt", "absent", &f, raw, sizeof raw) == -ENOENT,
        "read_format absent term -> -ENOENT");
  CHECK(pp_read_format_at(root, "nope", "branch", &f, NULL, 0) == -ENOENT,
        "read_format absent PMU -> -ENOENT");
  char list[64];
  CHECK(pp_list_pmus_at(root, list, sizeof list) == 2 && strcmp(list, "aa_sw,zz_pt") == 0,
        "list_pmus: \"%s\"", list);
  char tiny[6];
  CHECK(pp_list_pmus_at(root, tiny, sizeof tiny) == 2 && strlen(tiny) < sizeof tiny,
        "list_pmus truncated safely: \"%s\"", tiny);
  CHECK(pp_list_pmus_at("/nonexistent-asmspy-dir", list, sizeof list) == -ENOENT && list[0] == '\0',
        "list_pmus on a missing root");
}

static void test_errno_words(void) {
  CHECK(strcmp(pp_errno_name(EACCES), "EACCES") == 0, "EACCES name");
  CHECK(strcmp(pp_errno_name(EOPNOTSUPP), "EOPNOTSUPP") == 0, "EOPNOTSUPP name");
  CHECK(pp_perf_errno_status(ENOENT) == ASMSPY_E_NO_KERNEL, "ENOENT status");
  CHECK(pp_perf_errno_status(EACCES) == ASMSPY_E_PERM, "EACCES status");
  CHECK(pp_perf_errno_status(EOPNOTSUPP) == ASMSPY_E_NO_HW, "EOPNOTSUPP status");
  CHECK(pp_perf_errno_status(EBUSY) == ASMSPY_E_ATTACH_BUSY, "EBUSY status");
  char hint[160];
  pp_perf_errno_hint(EACCES, hint, sizeof hint);
  CHECK(strstr(hint, "perf_event_paranoid") != NULL, "EACCES hint names the sysctl: %s", hint);

  /* pp_verdict writes only within the host's struct_size */
  struct asmspy_probe_result r;
  memset(&r, 0x5a, sizeof r);
  r.abi_version = ASMSPY_ABI_VERSION;
  r.struct_size = (uint32_t)offsetof(struct asmspy_probe_result, caps_available);
  CHECK(pp_verdict(&r, ASMSPY_E_NO_HW, ENOENT, 1, "x %d", 1) == ASMSPY_E_NO_HW, "ret");
  CHECK(r.status == ASMSPY_E_NO_HW && r.sys_errno == ENOENT, "short struct: header fields set");
  CHECK((unsigned char)r.reason[0] == 0x5a, "short struct: reason untouched");
  ASMSPY_INIT_HEADER(&r);
  pp_verdict(&r, ASMSPY_USABLE, 0, 0x30, "ok %s", "fine");
  CHECK(r.caps_available == 0x30 && strcmp(r.reason, "ok fine") == 0, "full struct");
  pp_verdict(&r, ASMSPY_E_VIRT, 0, 0x30, "no");
  CHECK(r.caps_available == 0, "caps only when usable");
  CHECK(pp_verdict(NULL, ASMSPY_E_VIRT, 0, 0, "null ok") == ASMSPY_E_VIRT, "NULL result");
}

int main(void) {
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_format_parser();
  test_sysfs_reader();
  test_errno_words();

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", tmpdir);

  return check_summary("test_perf_format");
}

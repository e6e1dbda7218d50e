/* The codeimage pieces without a target: masking asmspy's own breakpoint
 * bytes, the reader's "version with the greatest when <= t", the codeimage
 * validator rules, and the page-change detector's measured verdict. */
#include "host/codeimage.h"
#include "host/recording.h"

#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"

static struct json_value *ev(const char *s) { return json_parse(s, strlen(s), NULL); }

static int validate(const char *text) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  struct asmspy_recording_report rep;
  int v = recording_validate(f, &rep);
  fclose(f);
  if (v)
    fprintf(stderr, "  (validator: %s at line %llu)\n", rep.error,
            (unsigned long long)rep.error_line);
  return v;
}

int main(void) {
  /* mask: a byte still holding what asmspy wrote is the target's own again;
   * a byte the target rewrote since is the target's */
  uint8_t snap[6] = {0xcc, 0x67, 0, 0, 0, 0xc3};
  struct codeimage_patch p[2] = {{0x1000, 0xb8, 0xcc}, {0x1005, 0xc3, 0xcc}};
  codeimage_mask(snap, 0x1000, sizeof snap, p, 2);
  CHECK(snap[0] == 0xb8, "entry int3 masked: %02x", snap[0]);
  CHECK(snap[5] == 0xc3, "a byte the target rewrote is kept: %02x", snap[5]);
  uint8_t other[2] = {0xcc, 0xcc};
  codeimage_mask(other, 0x2000, 2, p, 2);
  CHECK(other[0] == 0xcc && other[1] == 0xcc, "patches outside the range are ignored");

  /* versions: the greatest when <= t that covers the address */
  struct recording_codeimages *ci = recording_codeimages_new();
  struct json_value *v1 = ev("{\"type\":\"codeimage\",\"seq\":3,\"base\":\"0x1000\",\"len\":6,"
                             "\"version\":1,\"when\":3,\"bytes\":\"b864000000c3\"}");
  struct json_value *v2 = ev("{\"type\":\"codeimage\",\"seq\":9,\"base\":\"0x1000\",\"len\":6,"
                             "\"version\":2,\"when\":9,\"bytes\":\"b865000000c3\"}");
  struct json_value *w1 = ev("{\"type\":\"codeimage\",\"seq\":5,\"base\":\"0x1004\",\"len\":4,"
                             "\"version\":1,\"when\":5,\"bytes\":\"90909090\"}");
  struct json_value *bad = ev("{\"type\":\"codeimage\",\"seq\":5,\"base\":\"0x1004\",\"len\":4,"
                              "\"version\":1,\"when\":5,\"bytes\":\"9090\"}");
  CHECK(recording_codeimages_add(ci, v1) == 0 && recording_codeimages_add(ci, v2) == 0 &&
            recording_codeimages_add(ci, w1) == 0,
        "add");
  CHECK(recording_codeimages_add(ci, bad) == -1, "short bytes refused");
  CHECK(recording_codeimages_count(ci) == 3, "count");
  uint8_t buf[16];
  uint64_t ver = 0, when = 0;
  CHECK(recording_codeimages_at(ci, 0x1000, 2, buf, sizeof buf, &ver, &when) == 0,
        "nothing before t=3");
  CHECK(recording_codeimages_at(ci, 0x1000, 3, buf, sizeof buf, &ver, &when) == 6 && ver == 1 &&
            buf[1] == 0x64,
        "t=3 -> v1");
  CHECK(recording_codeimages_at(ci, 0x1000, 8, buf, sizeof buf, &ver, &when) == 6 && ver == 1 &&
            when == 3,
        "t=8 -> v1 (v2 is later)");
  CHECK(recording_codeimages_at(ci, 0x1001, 100, buf, sizeof buf, &ver, &when) == 5 && ver == 2 &&
            buf[0] == 0x65,
        "t=100 at +1 -> v2, 5 bytes to its end");
  CHECK(recording_codeimages_at(ci, 0x1004, 6, buf, sizeof buf, &ver, &when) == 4 && when == 5 &&
            buf[0] == 0x90,
        "an overlapping later region wins at its time");
  CHECK(recording_codeimages_at(ci, 0x1004, 10, buf, 1, &ver, &when) == 1 && when == 9 &&
            buf[0] == 0x00,
        "then the newer version of the first region; cap respected");
  CHECK(recording_codeimages_at(ci, 0x2000, 100, buf, sizeof buf, NULL, NULL) == 0,
        "uncovered address");
  json_free(v1), json_free(v2), json_free(w1), json_free(bad);
  recording_codeimages_free(ci);

  /* the validator knows codeimage */
  const char *hdr =
      "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","
      "\"tool_version\":\"0\",\"mode\":\"trace\",\"pid\":1,\"backend\":null,"
      "\"host\":{\"kernel\":\"k\",\"arch\":\"x86_64\"},\"start_time\":\"t\"}\n";
  char doc[1024];
  snprintf(doc, sizeof doc,
           "%s{\"type\":\"codeimage\",\"seq\":1,\"base\":\"0x10\",\"len\":2,\"version\":1,\"when\":"
           "1,\"bytes\":\"90c3\"}\n"
           "{\"type\":\"end\",\"events\":1,\"lost\":0,\"reason\":\"completed\",\"status\":0}\n",
           hdr);
  CHECK(validate(doc) == RECORDING_VALID, "a codeimage validates");
  snprintf(doc, sizeof doc,
           "%s{\"type\":\"codeimage\",\"seq\":1,\"base\":\"0x10\",\"len\":2,\"version\":1,\"when\":"
           "2,\"bytes\":\"90c3\"}\n"
           "{\"type\":\"end\",\"events\":1,\"lost\":0,\"reason\":\"completed\",\"status\":0}\n",
           hdr);
  CHECK(validate(doc) == RECORDING_INVALID, "a when after its own seq is invalid");
  snprintf(doc, sizeof doc,
           "%s{\"type\":\"codeimage\",\"seq\":1,\"base\":\"0x10\",\"len\":2,\"version\":1,\"when\":"
           "1,\"bytes\":\"90c\"}\n"
           "{\"type\":\"end\",\"events\":1,\"lost\":0,\"reason\":\"completed\",\"status\":0}\n",
           hdr);
  CHECK(validate(doc) == RECORDING_INVALID, "bytes must be 2*len hex digits");
  snprintf(doc, sizeof doc,
           "%s{\"type\":\"codeimage\",\"seq\":1,\"base\":\"16\",\"len\":2,\"version\":1,\"when\":1,"
           "\"bytes\":\"90c3\"}\n"
           "{\"type\":\"end\",\"events\":1,\"lost\":0,\"reason\":\"completed\",\"status\":0}\n",
           hdr);
  CHECK(validate(doc) == RECORDING_INVALID, "base must be hex");

  /* the detector is measured, and says why when it cannot detect */
  char why[512] = "";
  int d = codeimage_probe_detector(why, sizeof why);
  printf("page-change detector here: %s%s%s\n", codeimage_detector_name(d), why[0] ? ": " : "",
         why);
  CHECK(d == CODEIMAGE_COMPARE ? why[0] != 0 : why[0] == 0,
        "a reason exactly when compare: %d '%s'", d, why);
  CHECK(codeimage_probe_detector(why, sizeof why) == d, "the verdict is stable");
  return check_summary("codeimage_unit");
}

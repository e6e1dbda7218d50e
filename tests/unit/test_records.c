/* Typed records (ABI 1.8): the JSON body rendered from values (the bytes
 * the views used to format by hand), the deep copy an embedder keeps, and
 * the schema check the validator applies, nested members included. */
#define _GNU_SOURCE
#include "asmspy/asmspy.h"
#include "host/json.h"
#include "host/record_schema.h"
#include "plugins/common/record_emit.h"

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static const struct asmspy_field item_fields[] = {
    RF_INT("n", 1, 0, "a positive count"),
    RF_STR("s", NUL, "a string or null"),
    RF_END,
};
static const struct asmspy_field fields[] = {
    RF_INT("tid", ANY_INT, 0, "any integer"),
    RF_HEX("ip", 0, "an address"),
    RF_STR("sym", NUL, "nullable"),
    RF_INT("off", 0, OPT, "optional"),
    RF_BYTES("bytes", 1, 4, 0, "1..4 bytes"),
    RF_BOOL("ok", 0, "a flag"),
    RF_INT_IN("len", "1|2|4|8", 0, "a width"),
    RF_ENUM("kind", "a|b", 0, "a choice"),
    RF_ARRAY("carried", "string", NULL, 0, "strings"),
    RF_ARRAY("items", "object", item_fields, 0, "objects"),
    RF_END,
};
static const struct asmspy_record_schema schema = {"t", "a test record", fields, NULL};

static struct strbuf render(const struct asmspy_record *rec) {
  struct strbuf b = {0};
  record_json_body(&b, rec, json_escape);
  return b;
}

static void test_render_and_copy(void) {
  const uint8_t bytes[] = {0x0f, 0x05};
  const char bin[] = {'a', '\0', 'b', '"'};
  struct asmspy_value carried[] = {rv_str("x\ny"), rv_strn(bin, sizeof bin)};
  struct asmspy_value it0[] = {rv_int(3), rv_null()}, it1[] = {rv_int(1), rv_str("z")};
  struct asmspy_value items[] = {rv_object(it0), rv_object(it1)};
  struct asmspy_value v[] = {rv_int(-7),           rv_hex(0x401000),  rv_null(), rv_absent(),
                             rv_bytes(bytes, 2),   rv_bool(1),        rv_int(8), rv_str("b"),
                             rv_array(carried, 2), rv_array(items, 2)};
  struct asmspy_record rec = {ASMSPY_ABI_VERSION, sizeof rec, &schema, v, "the text"};
  struct strbuf b = render(&rec);
  const char *want = "\"tid\":-7,\"ip\":\"0x401000\",\"sym\":null,\"bytes\":\"0f05\",\"ok\":true,"
                     "\"len\":8,\"kind\":\"b\",\"carried\":[\"x\\ny\",\"a\\u0000b\\\"\"],"
                     "\"items\":[{\"n\":3,\"s\":null},{\"n\":1,\"s\":\"z\"}]";
  CHECK(b.s && strcmp(b.s, want) == 0, "rendered:\n  %s\nwant:\n  %s", b.s ? b.s : "(null)", want);

  /* the rendering parses, and passes its own schema */
  char obj[1024], msg[200];
  snprintf(obj, sizeof obj, "{%s}", b.s ? b.s : "");
  struct json_value *j = json_parse(obj, strlen(obj), NULL);
  CHECK(j && record_check(j, fields, "t", msg, sizeof msg) == 0, "own rendering rejected: %s", msg);
  json_free(j);

  struct asmspy_record *copy = asmspy_record_copy(&rec);
  v[0] = rv_int(99);
  it1[1] = rv_str("changed");
  carried[0] = rv_str("changed");
  struct strbuf c = render(copy);
  CHECK(c.s && strcmp(c.s, want) == 0, "the copy changed with the original:\n  %s",
        c.s ? c.s : "(null)");
  CHECK(copy && copy->text && strcmp(copy->text, "the text") == 0, "copy text");
  const struct asmspy_value *cv = asmspy_record_get(copy, "carried");
  CHECK(cv && cv->u.array.n == 2 && cv->u.array.items[1].u.str.len == 4 &&
            memcmp(cv->u.array.items[1].u.str.s, bin, 4) == 0,
        "a string with a NUL survives the copy");
  CHECK(asmspy_record_get(copy, "off") == NULL, "an ABSENT member is not found");
  free(copy);
  strbuf_free(&b);
  strbuf_free(&c);
}

static void bad(const char *json, const char *want) {
  char msg[200] = "";
  struct json_value *j = json_parse(json, strlen(json), NULL);
  int rc = j ? record_check(j, fields, "t", msg, sizeof msg) : 0;
  CHECK(j && rc != 0 && strstr(msg, want), "%s: got \"%s\", want \"%s\"", json, msg, want);
  json_free(j);
}

#define GOOD                                                                                       \
  "\"tid\":1,\"ip\":\"0x1\",\"sym\":\"f\",\"bytes\":\"90\",\"ok\":false,\"len\":4,\"kind\":\"a\"," \
  "\"carried\":[],\"items\":[]"

static void test_check(void) {
  char msg[200];
  struct json_value *j = json_parse("{" GOOD "}", strlen("{" GOOD "}"), NULL);
  CHECK(j && record_check(j, fields, "t", msg, sizeof msg) == 0, "good rejected: %s", msg);
  json_free(j);
  bad("{\"ip\":\"0x1\"}", "t.tid is missing (must be an integer)");
  bad("{\"tid\":1,\"ip\":\"1\"}", "t.ip must be a \"0x\" hex string");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":3}", "t.sym must be a string or null");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"off\":-1}", "t.off must be an integer >= 0");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"0102030405\"}",
      "t.bytes must be a hex string of 2..8 digits");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":1}",
      "t.ok must be true or false");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":true,\"len\":3}",
      "t.len must be 1, 2, 4 or 8");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":true,\"len\":2,\"kind\":"
      "\"c\"}",
      "t.kind must be one of \"a\", \"b\"");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":true,\"len\":2,\"kind\":"
      "\"a\","
      "\"carried\":[1]}",
      "t.carried must be an array of strings");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":true,\"len\":2,\"kind\":"
      "\"a\","
      "\"carried\":[],\"items\":[{\"n\":0,\"s\":null}]}",
      "t.items[].n must be a positive integer");
  bad("{\"tid\":1,\"ip\":\"0x1\",\"sym\":null,\"bytes\":\"90\",\"ok\":true,\"len\":2,\"kind\":"
      "\"a\","
      "\"carried\":[],\"items\":[7]}",
      "t.items must be an array of objects");
}

int main(void) {
  test_render_and_copy();
  test_check();
  if (failures)
    printf("test_records: %d checks FAILED\n", failures);
  else
    printf("test_records: all passed\n");
  return failures ? 1 : 0;
}

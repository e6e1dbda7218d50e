/* test_fragments: which symbol names are gcc's split-off parts of a
 * function (select.c ep_is_fragment), in the spellings the host shows:
 * plain C names and demangled C++ ones. */
#include "../unit/check.h"
#include "plugins/entrypatch/select.h"

int main(void) {
  const char *parts[] = {"foo.cold",
                         "main.cold",
                         "foo.cold.0",
                         "bar.part.0",
                         "bar.part.0.cold",
                         "baz.isra.0.cold",
                         "foo3() [clone .cold]",
                         "f(int) [clone .part.0]",
                         "ns::g(long) [clone .part.0] [clone .cold]",
                         NULL};
  for (int i = 0; parts[i]; i++) CHECK(ep_is_fragment(parts[i]), "%s is a part", parts[i]);
  const char *funcs[] = {"cold",
                         "part",
                         "foo.constprop.0",
                         "foo.isra.0",
                         ".cold",
                         "coldstart",
                         "foo.coldstart",
                         "foo.party",
                         "f(int) [clone .constprop.0]",
                         "memcpy@plt",
                         "Cold::part(int)",
                         NULL};
  for (int i = 0; funcs[i]; i++) CHECK(!ep_is_fragment(funcs[i]), "%s is a function", funcs[i]);
  return check_summary("fragments");
}

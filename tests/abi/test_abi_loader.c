/* test_abi_loader: open the registry with the fake plugins of fake_plugin.c
 * on $ASMSPY_PLUGIN_PATH (set by meson, as is ASMSPY_PROBE_TIMEOUT_MS=300)
 * and assert the row the host recorded for each one, plus that the real
 * plugins still loaded next to them: one bad plugin never hides the others.
 * Prints one line per check; exit 0 = all passed, 1 = a check failed. */
#include <asmspy/asmspy.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_COUNT /* number of asmspy_fake_*.so, from meson.build */
#error "build with -DFAKE_COUNT=<n>"
#endif

static int failures, checks;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  checks++;
  printf("%s ", ok ? "ok  " : "FAIL");
  vprintf(fmt, ap);
  putchar('\n');
  va_end(ap);
  if (!ok) failures++;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static const struct asmspy_plugin_info *row_by_file(const struct asmspy_engine *e,
                                                    const char *file) {
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    if (strcmp(base_name(p->path), file) == 0) return p;
  }
  return NULL;
}

/* The row for fake `variant` exists; print it for the log. */
static const struct asmspy_plugin_info *fake_row(const struct asmspy_engine *e,
                                                 const char *variant) {
  char file[128];
  snprintf(file, sizeof file, "asmspy_fake_%s.so", variant);
  const struct asmspy_plugin_info *p = row_by_file(e, file);
  check(p != NULL, "%s: the registry has a row for %s", variant, file);
  if (p)
    printf("     row: name=%s status=%d abi=%u.%u reason=\"%s\"\n", p->name, (int)p->status,
           ASMSPY_ABI_MAJOR_OF(p->abi_version), ASMSPY_ABI_MINOR_OF(p->abi_version), p->reason);
  return p;
}

static void expect_status(const char *variant, const struct asmspy_plugin_info *p, int status,
                          const char *reason_part) {
  if (!p) return;
  check(p->status == status, "%s: status %d (got %d: %s)", variant, status, (int)p->status,
        asmspy_strerror(p->status));
  if (reason_part)
    check(strstr(p->reason, reason_part) != NULL, "%s: reason contains \"%s\"", variant,
          reason_part);
}

/* A refused plugin is recorded but not registered: no descriptor, and the
 * lookups never return it. */
static void expect_not_loaded(const struct asmspy_engine *e, const char *variant,
                              const struct asmspy_plugin_info *p) {
  if (!p) return;
  check(p->desc == NULL, "%s: no descriptor kept for a refused plugin", variant);
  check(asmspy_find_plugin(e, 0, p->name) != p, "%s: asmspy_find_plugin does not return it",
        variant);
  check(ASMSPY_STATUS_CLASS(p->status) == 4, "%s: status is in the 4xx (load/ABI) class", variant);
}

static void test_minor_future(const struct asmspy_engine *e, const char *variant,
                              const char *name) {
  const struct asmspy_plugin_info *p = fake_row(e, variant);
  if (!p) return;
  expect_status(variant, p, ASMSPY_USABLE, NULL);
  check(strcmp(p->name, name) == 0, "%s: name '%s'", variant, name);
  check(p->kind == ASMSPY_KIND_VIEW, "%s: kind view", variant);
  check(p->abi_version == ASMSPY_ABI_MAKE(1, 9), "%s: recorded ABI 1.9", variant);
  check(strcmp(p->plugin_version, "9.9.9-future") == 0,
        "%s: plugin_version (a 1.1 member) read: \"%s\"", variant, p->plugin_version);
  if (!p->desc) {
    check(0, "%s: descriptor kept", variant);
    return;
  }
  check(p->desc->struct_size > sizeof(struct asmspy_plugin),
        "%s: the host copy keeps the plugin's own (bigger) struct_size %u", variant,
        p->desc->struct_size);
  check(ASMSPY_HAS(p->desc, plugin_version), "%s: ASMSPY_HAS(desc, plugin_version)", variant);
  check(p->desc->view && strcmp(p->desc->view->mode, name) == 0, "%s: view mode '%s'", variant,
        name);
  check(p->desc->view && p->desc->view->struct_size > sizeof(struct asmspy_view_ops),
        "%s: view ops keep their bigger struct_size", variant);
  check(asmspy_find_view_for_mode(e, name) == p, "%s: serves mode '%s'", variant, name);
  check(asmspy_find_plugin(e, ASMSPY_KIND_VIEW, name) == p, "%s: found by name", variant);
}

static void test_old_small(const struct asmspy_engine *e) {
  const char *v = "old_small";
  const struct asmspy_plugin_info *p = fake_row(e, v);
  if (!p) return;
  /* Getting here at all means the host did not read past the 1.0
   * descriptor: the next byte is on a PROT_NONE page. */
  check(1, "%s: the host survived a 1.0 descriptor that ends at a PROT_NONE page", v);
  expect_status(v, p, ASMSPY_USABLE, NULL);
  check(strcmp(p->name, "fake_old") == 0, "%s: name 'fake_old'", v);
  check(p->abi_version == ASMSPY_ABI_MAKE(1, 0), "%s: recorded ABI 1.0", v);
  check(p->plugin_version && strcmp(p->plugin_version, "") == 0,
        "%s: plugin_version \"\" (absent in 1.0)", v);
  if (!p->desc) {
    check(0, "%s: descriptor kept", v);
    return;
  }
  check(p->desc->struct_size == offsetof(struct asmspy_plugin, plugin_version),
        "%s: host copy keeps struct_size %u = the 1.0 size", v, p->desc->struct_size);
  check(!ASMSPY_HAS(p->desc, plugin_version), "%s: !ASMSPY_HAS(desc, plugin_version)", v);
  check(ASMSPY_HAS(p->desc, view), "%s: ASMSPY_HAS(desc, view)", v);
  check(p->desc->plugin_version == NULL, "%s: the host copy's 1.1 tail is zero-filled", v);
  check(asmspy_find_view_for_mode(e, "fake_old") == p, "%s: serves mode 'fake_old'", v);
}

int main(void) {
  const char *pp = getenv("ASMSPY_PLUGIN_PATH");
  const char *to = getenv("ASMSPY_PROBE_TIMEOUT_MS");
  printf("# ASMSPY_PLUGIN_PATH=%s ASMSPY_PROBE_TIMEOUT_MS=%s host ABI %u.%u\n", pp ? pp : "(unset)",
         to ? to : "(unset)", ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);
  if (!pp || !*pp) {
    fprintf(stderr, "test_abi_loader: ASMSPY_PLUGIN_PATH must name the fakes' build dir\n");
    return 1;
  }
  fflush(stdout);

  struct asmspy_engine *e = asmspy_engine_open(0);
  check(e != NULL, "asmspy_engine_open(0) returned an engine (the host survived every fake)");
  if (!e) return 1;
  printf("# %zu rows\n", asmspy_plugin_count(e));
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    printf("#   %-18s %-4d %s\n", p->name, (int)p->status, base_name(p->path));
  }

  char want[128];

  /* newer minor: accepted, unknown tail ignored (non-zero and zero tails) */
  test_minor_future(e, "minor_future", "fake_future");
  test_minor_future(e, "minor_future_zero", "fake_future_zero");

  /* older minor: accepted, absent members read as absent, never past struct_size */
  test_old_small(e);

  /* other major: refused with the reason, never a crash */
  const struct asmspy_plugin_info *p = fake_row(e, "major_2");
  snprintf(want, sizeof want, "plugin ABI 2.0, host speaks %u.%u", ASMSPY_ABI_MAJOR,
           ASMSPY_ABI_MINOR);
  expect_status("major_2", p, ASMSPY_E_ABI, want);
  expect_not_loaded(e, "major_2", p);
  if (p) check(p->abi_version == ASMSPY_ABI_MAKE(2, 0), "major_2: recorded the plugin's ABI 2.0");

  /* the plugin refuses us */
  p = fake_row(e, "refuses");
  snprintf(want, sizeof want, "plugin refused host ABI %u.%u", ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);
  expect_status("refuses", p, ASMSPY_E_ABI, want);
  expect_not_loaded(e, "refuses", p);

  /* 1.12: the plugin needs a newer host minor: refused with both versions */
  p = fake_row(e, "needs_newer");
  snprintf(want, sizeof want, "plugin needs host ABI %u.%u, host speaks %u.%u", ASMSPY_ABI_MAJOR,
           ASMSPY_ABI_MINOR + 1, ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);
  expect_status("needs_newer", p, ASMSPY_E_ABI, want);
  expect_not_loaded(e, "needs_newer", p);
  check(asmspy_find_view_for_mode(e, "fake_needs_newer") == NULL,
        "needs_newer: its mode is not served");
  /* ... and one that needs exactly this host's minor loads */
  p = fake_row(e, "needs_current");
  expect_status("needs_current", p, ASMSPY_USABLE, NULL);
  check(asmspy_find_view_for_mode(e, "fake_needs_current") == p,
        "needs_current: serves mode 'fake_needs_current'");
  /* the host's capability word says what its operands() does */
  const struct asmspy_host_api *h = asmspy_host_api();
  check(ASMSPY_HAS(h, caps) && (h->caps & ASMSPY_HOST_CAP_OPERANDS_ISA_ACCESS),
        "host caps: operands() applies the ISA access table");
  check(ASMSPY_HAS(h, arch) && h->arch && h->arch->nregs <= ASMSPY_ARCH_MAX_REGS &&
            h->arch->reg_sp >= 0 && h->arch->reg_ret >= 0 && h->arch->nargs >= 6,
        "host arch: register identities described (%s)", h->arch ? h->arch->name : "none");

  /* no entry symbol */
  p = fake_row(e, "no_entry");
  expect_status("no_entry", p, ASMSPY_E_NO_ENTRY, "no entry point [" ASMSPY_PLUGIN_ENTRY_NAME "]");
  expect_not_loaded(e, "no_entry", p);

  /* isolated probes: a crash and a hang are recorded, the host carries on */
  p = fake_row(e, "probe_crash");
  expect_status("probe_crash", p, ASMSPY_E_PROBE_CRASH, "Segmentation fault");
  if (p) check(strcmp(p->name, "fake_crash") == 0, "probe_crash: name 'fake_crash'");
  p = fake_row(e, "probe_hang");
  snprintf(want, sizeof want, "exceeded %s ms", to ? to : "?");
  expect_status("probe_hang", p, ASMSPY_E_PROBE_HANG, want);
  if (p) check(strcmp(p->name, "fake_hang") == 0, "probe_hang: name 'fake_hang'");

  /* malformed descriptors */
  p = fake_row(e, "bad_desc");
  expect_status("bad_desc", p, ASMSPY_E_BAD_DESCRIPTOR, "run()");
  expect_not_loaded(e, "bad_desc", p);
  p = fake_row(e, "null_probe");
  expect_status("null_probe", p, ASMSPY_E_BAD_DESCRIPTOR, "probe()");
  expect_not_loaded(e, "null_probe", p);

  /* the same name twice: the first by path order wins */
  const struct asmspy_plugin_info *a = fake_row(e, "dup_a");
  const struct asmspy_plugin_info *b = fake_row(e, "dup_b");
  expect_status("dup_a", a, ASMSPY_USABLE, NULL);
  expect_status("dup_b", b, ASMSPY_E_DUP_NAME, "'fake_dup' already registered");
  expect_not_loaded(e, "dup_b", b);
  const struct asmspy_plugin_info *dup = asmspy_find_plugin(e, 0, "fake_dup");
  check(dup && a && dup == a, "dup: asmspy_find_plugin(\"fake_dup\") is the first (%s)",
        dup ? base_name(dup->path) : "none");
  check(asmspy_find_view_for_mode(e, "fake_dup_b") == NULL,
        "dup: the duplicate's mode 'fake_dup_b' is not served");

  /* a probe verdict of the 3xx class: loaded, listed, unavailable */
  p = fake_row(e, "probe_unavail");
  expect_status("probe_unavail", p, ASMSPY_E_NO_HW, NULL);
  if (p) {
    check(strcmp(p->reason, "fake: no such hardware") == 0,
          "probe_unavail: reason is the probe's own \"fake: no such hardware\"");
    check(ASMSPY_STATUS_CLASS(p->status) == 3, "probe_unavail: status is in the 3xx class");
    check(p->desc != NULL && p->kind == ASMSPY_KIND_BACKEND,
          "probe_unavail: loaded (descriptor kept), kind backend");
  }

  /* every fake .so got exactly one row */
  size_t nfake = 0;
  for (size_t i = 0; i < asmspy_plugin_count(e); i++)
    if (strncmp(base_name(asmspy_plugin_at(e, i)->path), "asmspy_fake_", 12) == 0) nfake++;
  check(nfake == FAKE_COUNT, "exactly %d fake rows, one per fake .so (got %zu)", FAKE_COUNT, nfake);

  /* the real plugins are still there, next to all of that */
  const struct asmspy_plugin_info *ss = asmspy_find_plugin(e, ASMSPY_KIND_BACKEND, "singlestep");
  check(ss != NULL, "real: singlestep backend loaded");
  if (ss)
    check(ss->status == ASMSPY_USABLE, "real: singlestep usable (got %d: %s)", (int)ss->status,
          ss->reason);
  const struct asmspy_plugin_info *st = asmspy_find_plugin(e, ASMSPY_KIND_VIEW, "stream");
  check(st != NULL, "real: stream view loaded");
  if (st) check(st->status == ASMSPY_USABLE, "real: stream usable (got %d)", (int)st->status);
  check(asmspy_find_view_for_mode(e, "stream") == st, "real: mode 'stream' still served");

  asmspy_engine_close(e);
  printf("# %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

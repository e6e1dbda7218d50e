/* A fake sampler backend for test_descriptors: one shared module per
 * variant (asmspy_fake_rung_<v>.so), each declaring a --sampler rung and a
 * ladder order (ABI 1.8). Its run() reports the session's sampler_arg back
 * through the sink as a NOTE ("arg=<arg>" or "arg=(none)"). */
#include <asmspy/plugin.h>

#include <stdio.h>

#if defined(FAKE_EARLY)
#define NAME "fake_rung_early"
#define RUNG "zearly" /* sorts last by name: the order must win */
#define ORDER 5
#elif defined(FAKE_MIDDLE)
#define NAME "fake_rung_middle"
#define RUNG "amiddle"
#define ORDER 25
#elif defined(FAKE_NAMED)
#define NAME "fake_rung_named"
#define RUNG "named" /* order 0: only when named */
#define ORDER 0
#else
#error "define one FAKE_* variant"
#endif

static int fake_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0, "fake rung %s", RUNG);
  return 0;
}

static int fake_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  (void)host;
  char text[128];
  snprintf(text, sizeof text, "rung=%s arg=%s", RUNG, s->sampler_arg ? s->sampler_arg : "(none)");
  struct asmspy_event ev = {0};
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_NOTE;
  ev.u.note.text = text;
  s->sink(s->sink_ctx, &ev);
  return 0;
}

static const struct asmspy_backend_ops fake_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = fake_run,
    .sampler_rung = RUNG,
    .sampler_order = ORDER,
};

static const struct asmspy_plugin fake_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = NAME,
    .description = "test_descriptors: a fake sampler rung",
    .caps = ASMSPY_CAP_IP_SAMPLES,
    .probe = fake_probe,
    .backend = &fake_ops,
};

ASMSPY_PLUGIN_ENTRY_FOR(fake_plugin)

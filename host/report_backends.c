/* `asmspy --backends [--json]`: every plugin found, usable or not, with the
 * measured reason. --json is a valid recording (header, one `plugin` event
 * per row, end footer) through the one writer. */
#include "host/host.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name(uint32_t kind) {
  return kind == ASMSPY_KIND_BACKEND ? "backend" : kind == ASMSPY_KIND_VIEW ? "view" : "?";
}

static const char *status_word(int status) {
  if (status == ASMSPY_USABLE) return "usable";
  if (ASMSPY_STATUS_CLASS(status) == 3) return "unavailable";
  return "error";
}

void asmspy_print_backends(const struct asmspy_engine *e, FILE *f, int json) {
  struct out_opts o = {.mode = "backends", .json = json, .text_out = f, .json_out = f};
  struct asmspy_out *out = out_open(&o, NULL);
  if (!out) return;
  if (!json) fprintf(f, "%-8s %-14s %-5s %-12s %s\n", "KIND", "NAME", "ABI", "STATUS", "REASON");
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    char abi[16] = "-";
    if (p->abi_version)
      snprintf(abi, sizeof abi, "%u.%u", ASMSPY_ABI_MAJOR_OF(p->abi_version),
               ASMSPY_ABI_MINOR_OF(p->abi_version));
    const char *reason = p->reason[0] ? p->reason : "-";
    char text[512];
    snprintf(text, sizeof text, "%-8s %-14s %-5s %-12s %s", kind_name(p->kind), p->name, abi,
             status_word(p->status), reason);
    char name_e[256], reason_e[1600], path_e[4200], desc_e[1600];
    json_escape(name_e, sizeof name_e, p->name, strlen(p->name));
    json_escape(reason_e, sizeof reason_e, p->reason, strlen(p->reason));
    json_escape(path_e, sizeof path_e, p->path, strlen(p->path));
    json_escape(desc_e, sizeof desc_e, p->description, strlen(p->description));
    char ver_e[256];
    json_escape(ver_e, sizeof ver_e, p->plugin_version, strlen(p->plugin_version));
    char fields[8192];
    snprintf(fields, sizeof fields,
             "\"name\":\"%s\",\"kind\":\"%s\",\"abi\":\"%s\",\"status\":\"%s\",\"code\":%d,"
             "\"errno\":%d,\"reason\":\"%s\",\"description\":\"%s\",\"caps\":%llu,"
             "\"path\":\"%s\",\"version\":\"%s\"",
             name_e, kind_name(p->kind), abi, status_word(p->status), p->status, p->sys_errno,
             reason_e, desc_e, (unsigned long long)p->caps, path_e, ver_e);
    /* 1.8: what names the plugin answers to besides its own: a view's mode,
     * a sampler's --sampler rung (tests/abi checks the host names none) */
    const char *alias_key = NULL, *alias = NULL;
    if (p->desc && p->kind == ASMSPY_KIND_VIEW && p->desc->view->mode) {
      alias_key = "mode";
      alias = p->desc->view->mode;
    } else if (p->desc && p->kind == ASMSPY_KIND_BACKEND &&
               ASMSPY_HAS(p->desc->backend, sampler_rung) && p->desc->backend->sampler_rung) {
      alias_key = "sampler_rung";
      alias = p->desc->backend->sampler_rung;
    }
    if (alias) {
      char alias_e[256];
      size_t k = strlen(fields);
      json_escape(alias_e, sizeof alias_e, alias, strlen(alias));
      snprintf(fields + k, sizeof fields - k, ",\"%s\":\"%s\"", alias_key, alias_e);
    }
    out_emit(out, "plugin", fields, text);
  }
  out_close(out, 0);
}

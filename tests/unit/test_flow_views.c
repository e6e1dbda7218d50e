/* test_flow_views: the call views (graph, tree) in flow mode — a session
 * without ASMSPY_SESS_EXACT_SP, as intel_pt gives them: instruction events
 * with no sp and no registers, every branch followed (callcheck.h, "flow
 * mode"). The built plugins are dlopen'd (argv[1] graph, argv[2] tree) and
 * driven through the scripted host with a synthesized instruction stream,
 * since no Intel PT hardware runs here.
 *
 * The stream (thread 1234; nop = 90, call = e8 rel32, ret = c3):
 *   main          nop; call entered_often
 *   entered_often nop; call memcpy
 *   memcpy        nop; ret            -> entered_often+6
 *   entered_often nop; ret            -> main+6
 *   main          call cold_path
 *   cold_path     ret                 -> main+11
 *   main          call $+5 (get-pc: lands on its own fall-through, no call)
 *   main          nop; call cold_path
 *   cold_path     ret */
#include "load_view.h"
#include "check.h"
#include "fake_sampling_host.h"

#include <dlfcn.h>

static struct asmspy_event stream[64];
static size_t nstream;

static void insn(uint64_t ip, const uint8_t *bytes, uint8_t len) {
  struct asmspy_event *ev = &stream[nstream++];
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = ASMSPY_EV_INSN;
  ev->flags = ASMSPY_EVF_SP_UNKNOWN; /* PT: no registers */
  ev->pid = ev->tid = 1234;
  ev->nthreads = 1;
  ev->ip = ip;
  ev->target = FAKE_TARGET;
  memcpy(ev->u.insn.bytes, bytes, len);
  ev->u.insn.len = len;
}
static void nop(uint64_t ip) { insn(ip, (const uint8_t[]){0x90}, 1); }
static void ret(uint64_t ip) { insn(ip, (const uint8_t[]){0xc3}, 1); }
static void call(uint64_t ip, uint64_t to) {
  int32_t rel = (int32_t)(to - (ip + 5));
  uint8_t b[5] = {0xe8};
  memcpy(b + 1, &rel, 4);
  insn(ip, b, 5);
}

#define MAIN 0x401000u
#define OFTEN 0x401100u /* entered_often */
#define COLD 0x401300u  /* cold_path */
#define MEMCPY 0x7f0000001000u

static void build_stream(void) {
  nstream = 0;
  nop(MAIN);
  call(MAIN + 1, OFTEN);
  nop(OFTEN);
  call(OFTEN + 1, MEMCPY);
  nop(MEMCPY);
  ret(MEMCPY + 1);
  nop(OFTEN + 6);
  ret(OFTEN + 7);
  call(MAIN + 6, COLD);
  ret(COLD);
  call(MAIN + 11, MAIN + 16); /* get-pc */
  nop(MAIN + 16);
  call(MAIN + 17, COLD);
  ret(COLD);
  nop(MAIN + 22);
}

static const struct asmspy_view_ops *load_view(const char *path, const char *mode) {
  return load_view_with(path, mode, &fake_host);
}

/* Run the stream through a view; flags = the session's flags. */
static void run_view(const struct asmspy_view_ops *v, const char *mode, uint32_t flags, int argc,
                     char **argv) {
  struct asmspy_session s;
  fake_session(&s, mode, argc, argv);
  s.flags = flags;
  fake_reset_output();
  void *st = NULL;
  if (v->open(&fake_host, &s, &st) != 0) {
    CHECK(0, "%s: open refused", mode);
    return;
  }
  for (size_t i = 0; i < nstream; i++)
    if (v->consume(st, &stream[i]) == ASMSPY_CONSUME_DONE) break;
  v->finish(st, 0);
  v->close(st);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s GRAPH.so TREE.so\n", argv[0]);
    return 99;
  }
  fake_host_init();
  fake_host.disasm = fake_disasm_min;
  fake_host.insn_class = fake_insn_class_min;
  build_stream();

  const struct asmspy_view_ops *graph = load_view(argv[1], "graph");
  const struct asmspy_view_ops *tree = load_view(argv[2], "tree");
  CHECK(ASMSPY_HAS(graph, caps_wanted) && graph->caps_wanted == ASMSPY_CAP_EXACT_SP &&
            !(graph->caps_required & ASMSPY_CAP_EXACT_SP),
        "graph wants EXACT_SP without requiring it (ABI 1.6)");
  CHECK(ASMSPY_HAS(tree, caps_wanted) && tree->caps_wanted == ASMSPY_CAP_EXACT_SP &&
            !(tree->caps_required & ASMSPY_CAP_EXACT_SP),
        "tree wants EXACT_SP without requiring it (ABI 1.6)");

  /* tree, flow mode: depth from calls and the rets that reach their frames */
  char *targs[] = {"-1"};
  run_view(tree, "tree", 0, 0, targs);
  printf("%s", fake_out);
  const char *want_tree[] = {"-> entered_often [auto_victim]", "  -> memcpy [libc.so.6]",
                             "-> cold_path [auto_victim]", "-> cold_path [auto_victim]"};
  const char *p = fake_out;
  int in_order = 1;
  for (size_t i = 0; i < 4; i++) {
    const char *q = strstr(p, want_tree[i]);
    if (!q || (q != fake_out && q[-1] != '\n')) {
      in_order = 0;
      break;
    }
    p = q + strlen(want_tree[i]);
  }
  CHECK(in_order, "tree (flow): entered_often, memcpy nested under it, cold_path twice at depth 0");
  CHECK(!strstr(fake_out, "-> main"), "tree (flow): the get-pc call $+5 is not a call");

  /* graph, flow mode: three distinct edges, 4 calls */
  char *gargs[] = {"-1"};
  run_view(graph, "graph", 0, 0, gargs);
  printf("%s", fake_out);
  CHECK(fake_has_line("[int] cold_path                      inv=2       calls=0       fanout=0     "
                      "[auto_victim]") &&
            fake_has_line("[int] entered_often                  inv=1       calls=1       fanout=1 "
                          "    [auto_victim]") &&
            fake_has_line("[EXT] memcpy                         inv=1       calls=0       fanout=0 "
                          "    [libc.so.6]") &&
            fake_has_line("[int] main                           inv=0       calls=3       fanout=2 "
                          "    [auto_victim]"),
        "graph (flow): cold_path inv=2, entered_often 1/1, memcpy 1, main calls=3 fanout=2");
  fake_record_flag = 1;
  run_view(graph, "graph", 0, 0, gargs);
  fake_record_flag = 0;
  CHECK(strstr(fake_json, "\"functions\":4,\"calls\":4") != NULL,
        "graph (flow): 4 calls (the get-pc excluded): %.300s", fake_json);

  /* the same events in an EXACT_SP session carry no sp: nothing can be
   * verified, nothing is invented */
  run_view(tree, "tree", ASMSPY_SESS_EXACT_SP, 0, targs);
  CHECK(!strstr(fake_out, "->"), "tree (sp mode) on events without sp: no calls claimed");

  return check_summary(argv[0]);
}

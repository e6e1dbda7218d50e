// Package asmspy is scoped tracing for Go: a thin cgo layer over libasmspy's
// <asmspy/scope.h>. A closure brackets native code and the result holds the
// assembly that ran inside it:
//
//	tr := asmspy.New(asmspy.Auto)
//	r := tr.Scope(asmspy.Func(workPtr), false, func() {
//		C.call_work(7) // a cgo call into the native code
//	})
//	fmt.Println(r.InsnCount, r.Tier, r.Path)
//
// The scope pins its OS thread (runtime.LockOSThread) for the region: the
// capture follows the calling OS thread. Goroutines started in the region
// run on other OS threads, untraced: Result.UntracedGoroutines and
// Result.Notes say so (use Tracer.Go to have them counted exactly). A scope
// begun on one OS thread and ended on another (the raw Begin/End pair) comes
// back Truncated with the core's "thread hop" reason.
//
// libasmspy is loaded at run time (dlopen): $ASMSPY_LIB (a path), then
// libasmspy.so.0 and libasmspy.so through the normal loader path. When it
// cannot be loaded, or nothing can trace, a scope is a recorded no-op: tier
// NONE with the reason, and the closure still runs. Nothing here panics.
package asmspy

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libasmspy entry points this package uses, as declared in
// <asmspy/scope.h>. When that header is on the include path (the tests pass
// CGO_CFLAGS=-I<src>/include) the declarations are checked against it.
typedef struct asmspy_scope asmspy_scope;
typedef asmspy_scope *(*gsp_begin_fn)(const char *, const void *, size_t, unsigned);
typedef int (*gsp_end_fn)(asmspy_scope *);
typedef void (*gsp_free_fn)(asmspy_scope *);
typedef const char *(*gsp_str_fn)(const asmspy_scope *);
typedef uint64_t (*gsp_u64_fn)(const asmspy_scope *);
typedef int (*gsp_int_fn)(const asmspy_scope *);
#define GSP_QUIET 1u
#define GSP_STRONG 2u
#define GSP_CEILING 4u
#if defined(__has_include)
#if __has_include(<asmspy/scope.h>)
#include <asmspy/scope.h>
_Static_assert(GSP_QUIET == ASMSPY_SCOPE_QUIET && GSP_STRONG == ASMSPY_SCOPE_STRONG &&
               GSP_CEILING == ASMSPY_SCOPE_CEILING, "scope.h flags changed");
_Static_assert(__builtin_types_compatible_p(__typeof__(&asmspy_scope_begin), gsp_begin_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_end), gsp_end_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_free), gsp_free_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_text), gsp_str_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_insn_count), gsp_u64_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_gaps), gsp_u64_fn) &&
               __builtin_types_compatible_p(__typeof__(&asmspy_scope_truncated), gsp_int_fn),
               "scope.h signatures changed");
#endif
#endif

static struct {
	void *dl;
	gsp_begin_fn begin;
	gsp_end_fn end;
	gsp_free_fn free;
	gsp_str_fn text, path, tier, reason, name;
	gsp_u64_fn insn_count, gaps;
	gsp_int_fn truncated;
} gsp;
static char gsp_err[1024];

// 0: loaded. Otherwise gsp_err says why (dlerror or the missing symbol).
static int gsp_load(const char *file) {
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(gsp_err, sizeof gsp_err, "%s", dlerror());
		return -1;
	}
#define GSP_SYM(field, sym)                                                      \
	*(void **)&gsp.field = dlsym(h, sym);                                        \
	if (!gsp.field) {                                                            \
		snprintf(gsp_err, sizeof gsp_err, "%s: no symbol %s", file, sym);        \
		dlclose(h);                                                              \
		return -1;                                                               \
	}
	GSP_SYM(begin, "asmspy_scope_begin")
	GSP_SYM(end, "asmspy_scope_end")
	GSP_SYM(free, "asmspy_scope_free")
	GSP_SYM(text, "asmspy_scope_text")
	GSP_SYM(path, "asmspy_scope_path")
	GSP_SYM(tier, "asmspy_scope_tier")
	GSP_SYM(reason, "asmspy_scope_reason")
	GSP_SYM(name, "asmspy_scope_name")
	GSP_SYM(insn_count, "asmspy_scope_insn_count")
	GSP_SYM(gaps, "asmspy_scope_gaps")
	GSP_SYM(truncated, "asmspy_scope_truncated")
#undef GSP_SYM
	gsp.dl = h;
	return 0;
}
static const char *gsp_error(void) { return gsp_err; }

// SIGTRAP and the Go runtime. The WEAK tier (EFLAGS.TF) needs libasmspy's
// own SIGTRAP handler, and libasmspy refuses a program that installed one:
// the Go runtime installs its handler for every signal. Go has no use for
// SIGTRAP (a stray one only crashes with a traceback), so the first scope
// hands it over: Go's handler is set back to SIG_DFL and libasmspy installs
// its own. If no backend took it (tier NONE), Go's handler is put back.
// Second, the stepped thread runs Go code on goroutine stacks, which are
// small and have no guard page: a signal frame pushed there can overrun
// them. The handler libasmspy installed is therefore marked SA_ONSTACK, so
// each trap runs on the thread's signal stack (every Go thread has one).
// This happens right after begin, while the thread is still in C code on
// its system stack; no trap has landed on a goroutine stack yet.
static pthread_mutex_t gsp_lock = PTHREAD_MUTEX_INITIALIZER;
static int gsp_took;                 // SIGTRAP handed over from Go
static int gsp_onstack;              // the installed handler is SA_ONSTACK already
static struct sigaction gsp_go_trap; // Go's SIGTRAP disposition before that

static int gsp_is_handler(const struct sigaction *sa) {
	return (sa->sa_flags & SA_SIGINFO) || (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN);
}

static uintptr_t gsp_begin(const char *name, const void *code, size_t len, unsigned flags) {
	if (__atomic_load_n(&gsp_onstack, __ATOMIC_ACQUIRE)) // fast path: only the return is stepped after begin
		return (uintptr_t)gsp.begin(name, code, len, flags);
	pthread_mutex_lock(&gsp_lock);
	if (!gsp_took) {
		struct sigaction cur;
		if (sigaction(SIGTRAP, NULL, &cur) == 0 && gsp_is_handler(&cur)) {
			struct sigaction dfl;
			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			sigemptyset(&dfl.sa_mask);
			gsp_go_trap = cur;
			sigaction(SIGTRAP, &dfl, NULL);
			gsp_took = 1;
		} else {
			gsp_took = 2; // nobody owned it: nothing to hand back
		}
	}
	pthread_mutex_unlock(&gsp_lock);
	asmspy_scope *s = gsp.begin(name, code, len, flags);
	struct sigaction now;
	if (sigaction(SIGTRAP, NULL, &now) == 0) {
		if (!gsp_is_handler(&now)) {
			// no backend installed a handler: give SIGTRAP back to Go
			pthread_mutex_lock(&gsp_lock);
			if (gsp_took == 1) {
				sigaction(SIGTRAP, &gsp_go_trap, NULL);
				gsp_took = 0;
			}
			pthread_mutex_unlock(&gsp_lock);
		} else if ((now.sa_flags & SA_SIGINFO) &&
		           !(gsp_took == 1 && now.sa_sigaction == gsp_go_trap.sa_sigaction)) {
			if (!(now.sa_flags & SA_ONSTACK)) {
				now.sa_flags |= SA_ONSTACK;
				sigaction(SIGTRAP, &now, NULL);
			}
			// libasmspy keeps its handler for the process lifetime
			__atomic_store_n(&gsp_onstack, 1, __ATOMIC_RELEASE);
		}
	}
	return (uintptr_t)s;
}

// The handle crosses cgo as an integer: no cgo pointer check runs (stepped)
// inside the region.
static int gsp_end(uintptr_t s) { return gsp.end((asmspy_scope *)s); }
static void gsp_free(uintptr_t s) { gsp.free((asmspy_scope *)s); }
static const char *gsp_text(uintptr_t s) { return gsp.text((asmspy_scope *)s); }
static const char *gsp_path(uintptr_t s) { return gsp.path((asmspy_scope *)s); }
static const char *gsp_tier(uintptr_t s) { return gsp.tier((asmspy_scope *)s); }
static const char *gsp_reason(uintptr_t s) { return gsp.reason((asmspy_scope *)s); }
static const char *gsp_name(uintptr_t s) { return gsp.name((asmspy_scope *)s); }
static uint64_t gsp_insn_count(uintptr_t s) { return gsp.insn_count((asmspy_scope *)s); }
static uint64_t gsp_gaps(uintptr_t s) { return gsp.gaps((asmspy_scope *)s); }
static int gsp_truncated(uintptr_t s) { return gsp.truncated((asmspy_scope *)s); }
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// HwBackend picks the tier a scope arms.
type HwBackend int

const (
	// Auto: the ladder (STRONG if a backend proves usable, else WEAK).
	Auto HwBackend = iota
	// IntelPt asks for the STRONG tier directly (ASMSPY_SCOPE_STRONG):
	// self-skips (tier NONE with the reason) where Intel PT is unusable.
	IntelPt
	// AmdLbr asks for the CEILING tier (ASMSPY_SCOPE_CEILING): sampled
	// branch edges, never auto-chosen.
	AmdLbr
)

func (b HwBackend) String() string {
	switch b {
	case Auto:
		return "Auto"
	case IntelPt:
		return "IntelPt"
	case AmdLbr:
		return "AmdLbr"
	}
	return fmt.Sprintf("HwBackend(%d)", int(b))
}

func (b HwBackend) flags() C.uint {
	switch b {
	case IntelPt:
		return C.GSP_STRONG
	case AmdLbr:
		return C.GSP_CEILING
	}
	return 0
}

// Code is what a scope records: a native function's extent, an explicit
// address range, or (the zero value, WholeWindow) everything the thread ran.
type Code struct {
	addr unsafe.Pointer
	n    uintptr
}

// WholeWindow records every instruction the thread runs in the region,
// Go runtime included (faithful but noisy).
var WholeWindow = Code{}

// Func is the extent of the native symbol covering p (e.g. a dlsym result).
func Func(p unsafe.Pointer) Code { return Code{addr: p} }

// Range is exactly [p, p+n).
func Range(p unsafe.Pointer, n uintptr) Code { return Code{addr: p, n: n} }

// Result is one scope's outcome; a no-op scope has Tier "NONE" and Reason.
type Result struct {
	Name      string // the registration key: "file.go:LINE" of the caller
	Text      string // the rendered listing + summary
	Path      string // the file the listing was written to, or ""
	Tier      string // "STRONG", "WEAK", "CEILING" or "NONE"
	Reason    string // why this tier / why truncated (the core's words)
	InsnCount uint64
	Truncated bool
	Gaps      uint64 // stretches stepped over untraced (thread creation, ...)
	// UntracedGoroutines: goroutines started in the region (they run on other
	// OS threads: never captured, never stitched into Text). Exact for those
	// started through Tracer.Go; otherwise the rise of runtime.NumGoroutine
	// over the region (a lower bound: those already finished are missed).
	UntracedGoroutines int
	Notes              []string // binding-level notes, e.g. the untraced goroutines
}

func (r *Result) String() string {
	s := fmt.Sprintf("%s: %d insns, tier %s", r.Name, r.InsnCount, r.Tier)
	if r.Truncated {
		s += " (truncated)"
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	for _, n := range r.Notes {
		s += "; " + n
	}
	return s
}

var (
	loadOnce sync.Once
	loadErr  string
)

func load() bool {
	loadOnce.Do(func() {
		var errs []string
		for _, name := range []string{os.Getenv("ASMSPY_LIB"), "libasmspy.so.0", "libasmspy.so"} {
			if name == "" {
				continue
			}
			cs := C.CString(name)
			rc := C.gsp_load(cs)
			C.free(unsafe.Pointer(cs))
			if rc == 0 {
				return
			}
			errs = append(errs, C.GoString(C.gsp_error()))
		}
		loadErr = "asmspy: cannot load libasmspy (" + strings.Join(errs, "; ") + ")"
	})
	return loadErr == ""
}

// Tracer holds the backend choice and counts goroutines started through Go.
type Tracer struct {
	Backend HwBackend
	open    int32 // scopes of this tracer open right now
	spawned int32 // goroutines started through Go while one was open
}

// New returns a tracer for that backend (Auto: the ladder).
func New(backend HwBackend) *Tracer { return &Tracer{Backend: backend} }

// Go starts fn in a new goroutine. Started while a scope of tr is open, it
// is counted in that scope's UntracedGoroutines: it runs on another OS
// thread and is not captured.
func (tr *Tracer) Go(fn func()) {
	if atomic.LoadInt32(&tr.open) > 0 {
		atomic.AddInt32(&tr.spawned, 1)
	}
	go fn()
}

// Handle is an open scope from Begin; End closes it.
type Handle struct {
	tr      *Tracer
	s       C.uintptr_t
	cname   *C.char
	name    string
	res     *Result
	goBase  int
	spawned int32
}

// Begin opens a scope on the calling OS thread without pinning it: call
// runtime.LockOSThread first, or End may run on another OS thread (then the
// result is Truncated with the "thread hop" reason). Prefer Scope. emit:
// also print the listing to stdout on End.
func (tr *Tracer) Begin(code Code, emit bool) *Handle {
	return tr.begin(code, emit, callerName(2))
}

func callerName(skip int) string {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return "go:unknown"
	}
	return fmt.Sprintf("%s:%d", file, line)
}

func (tr *Tracer) begin(code Code, emit bool, name string) *Handle {
	h := &Handle{tr: tr, name: name}
	if !load() {
		h.res = &Result{Name: name, Tier: "NONE", Reason: loadErr}
		return h
	}
	flags := tr.Backend.flags()
	if !emit {
		flags |= C.GSP_QUIET
	}
	atomic.AddInt32(&tr.open, 1)
	h.spawned = atomic.LoadInt32(&tr.spawned)
	h.goBase = runtime.NumGoroutine()
	h.cname = C.CString(name)
	h.s = C.gsp_begin(h.cname, code.addr, C.size_t(code.n), flags)
	return h
}

// End closes the scope (idempotent) and returns its result.
func (h *Handle) End() *Result {
	if h.res != nil {
		return h.res
	}
	if h.s == 0 { // out of memory in begin
		h.res = &Result{Name: h.name, Tier: "NONE", Reason: "asmspy_scope_begin returned NULL"}
		return h.res
	}
	C.gsp_end(h.s)
	goNow := runtime.NumGoroutine()
	s := h.s
	r := &Result{
		Name:      C.GoString(C.gsp_name(s)),
		Text:      C.GoString(C.gsp_text(s)),
		Path:      C.GoString(C.gsp_path(s)),
		Tier:      C.GoString(C.gsp_tier(s)),
		Reason:    C.GoString(C.gsp_reason(s)),
		InsnCount: uint64(C.gsp_insn_count(s)),
		Truncated: C.gsp_truncated(s) != 0,
		Gaps:      uint64(C.gsp_gaps(s)),
	}
	C.gsp_free(s)
	C.free(unsafe.Pointer(h.cname))
	h.s, h.cname = 0, nil
	spawned := int(atomic.LoadInt32(&h.tr.spawned) - h.spawned)
	atomic.AddInt32(&h.tr.open, -1)
	if spawned > 0 {
		r.UntracedGoroutines = spawned
		r.Notes = append(r.Notes, fmt.Sprintf("untraced: %d goroutine(s) started in the region "+
			"(Tracer.Go) ran on other OS threads, not captured", spawned))
	} else if d := goNow - h.goBase; d > 0 {
		r.UntracedGoroutines = d
		r.Notes = append(r.Notes, fmt.Sprintf("untraced: %d more goroutine(s) alive at the end of "+
			"the region than at its start: goroutines started in the region run on other OS "+
			"threads, not captured", d))
	}
	h.res = r
	return r
}

// Scope runs fn inside a scope over code, auto-named from the caller's
// file:line, with the goroutine pinned to its OS thread for the region
// (runtime.LockOSThread; unlocked after). emit: also print the listing to
// stdout. The result is never nil; a scope that cannot trace is tier NONE
// with the reason, and fn runs regardless. If fn panics the scope is ended
// and the panic goes on.
func (tr *Tracer) Scope(code Code, emit bool, fn func()) (res *Result) {
	return tr.scope(code, emit, callerName(1), fn)
}

// ScopeNamed is Scope with an explicit name (the registration key).
func (tr *Tracer) ScopeNamed(name string, code Code, emit bool, fn func()) *Result {
	return tr.scope(code, emit, name, fn)
}

func (tr *Tracer) scope(code Code, emit bool, name string, fn func()) (res *Result) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var h *Handle
	// deferred before begin: nothing is allocated inside the region
	defer func() {
		if h != nil {
			res = h.End()
		}
	}()
	h = tr.begin(code, emit, name)
	fn()
	return nil
}

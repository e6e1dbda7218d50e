// test_scope_go: the Go binding (bindings/go) on the scope victim. Run by
// run_go.sh through test_scope_counts.sh (the callgrind oracle exports
// SCOPE_EXP_*). Modes: no argument = the traced checks; -noplugin = run with
// ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent (tier NONE);
// -nolib = run with ASMSPY_LIB pointing nowhere.
package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void *victim_dl;
static void *victim_sym(const char *name) {
	if (!victim_dl) {
		const char *p = getenv("SCOPE_VICTIM_LIB");
		victim_dl = dlopen(p ? p : "libscope_victim.so", RTLD_NOW);
		if (!victim_dl) return NULL;
	}
	return dlsym(victim_dl, name);
}
// work/helper through a C function pointer: the cgo call is the only glue.
static long call_long(void *fn, long x) { return ((long (*)(long))fn)(x); }
// 1: SIGTRAP has a handler (Go's, or libasmspy's)
static int sigtrap_has_handler(void) {
	struct sigaction sa;
	if (sigaction(SIGTRAP, NULL, &sa) != 0) return -1;
	return (sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"asmspy.local/asmspy"
)

var failures int

func check(ok bool, format string, args ...interface{}) {
	if ok {
		fmt.Print("ok   ")
	} else {
		fmt.Print("FAIL ")
		failures++
	}
	fmt.Printf(format+"\n", args...)
}

func expectWork(n int64) int64 {
	var acc int64
	for i := int64(0); i < 5; i++ {
		acc += (n+i)*3 + 1
	}
	return acc
}

func envNum(name string) int64 {
	v, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil {
		return -1
	}
	return v
}

func sym(name string) unsafe.Pointer {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	p := C.victim_sym(cs)
	if p == nil {
		fmt.Printf("FAIL cannot load %s from SCOPE_VICTIM_LIB=%q\n", name, os.Getenv("SCOPE_VICTIM_LIB"))
		os.Exit(1)
	}
	return p
}

func call(fn unsafe.Pointer, x int64) int64 { return int64(C.call_long(fn, C.long(x))) }

func main() {
	work, helper := sym("work"), sym("helper")
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "-noplugin":
		noTrace(work, "no plugin reachable")
	case "-nolib":
		noTrace(work, "no libasmspy")
	default:
		traced(work, helper)
	}
	if failures > 0 {
		fmt.Printf("# %d failure(s)\n", failures)
		os.Exit(1)
	}
}

// (6) nothing can trace: a recorded no-op, the program's result unchanged,
// and Go's own SIGTRAP handler still in place.
func noTrace(work unsafe.Pointer, what string) {
	tr := asmspy.New(asmspy.Auto)
	var v int64
	ran := false
	r := tr.Scope(asmspy.Func(work), false, func() { v = call(work, 7); ran = true })
	fmt.Printf("# go %s: tier %s, reason: %s\n", what, r.Tier, r.Reason)
	check(ran && v == expectWork(7), "%s: the closure ran, work(7) = %d", what, v)
	check(r.Tier == "NONE" && r.Reason != "" && r.InsnCount == 0, "%s: tier NONE with a reason", what)
	if what == "no libasmspy" {
		check(strings.Contains(r.Reason, "cannot load libasmspy"), "the reason says libasmspy was not found")
	}
	check(C.sigtrap_has_handler() == 1, "%s: Go's SIGTRAP handler is still installed", what)
	w := tr.Scope(asmspy.WholeWindow, false, func() { v = call(work, 2) })
	check(w.Tier == "NONE" && v == expectWork(2), "%s: whole window too: tier NONE, work(2) right", what)
}

func traced(work, helper unsafe.Pointer) {
	wSelf, hX5, wIncl := envNum("SCOPE_EXP_WORK_SELF"), envNum("SCOPE_EXP_HELPER_X5"),
		envNum("SCOPE_EXP_WORK_INCL")
	exact := wSelf > 0 && hX5 > 0 && wIncl > 0
	if !exact {
		fmt.Println("# no SCOPE_EXP_* (not run through test_scope_counts.sh): exact counts not checked")
	}
	tr := asmspy.New(asmspy.Auto)
	var v int64

	// (1) region = work's extent: callgrind's exclusive count of work.
	_, file, line, _ := runtime.Caller(0)
	r := tr.Scope(asmspy.Func(work), false, func() { v = call(work, 7) })
	fmt.Printf("# go region work: %d insns, tier %s (%s)\n", r.InsnCount, r.Tier, r.Reason)
	if r.Tier != "WEAK" {
		fmt.Printf("FAIL no WEAK tier here: %s\n%s", r.Reason, r.Text)
		os.Exit(1)
	}
	check(v == expectWork(7), "work(7) returns the right value under the scope")
	check(!r.Truncated, "region scope not truncated")
	if exact {
		check(int64(r.InsnCount) == wSelf, "region work %d == callgrind work self %d", r.InsnCount, wSelf)
	}
	want := fmt.Sprintf("%s:%d", file, line+1)
	check(r.Name == want && strings.Contains(r.Name, "main.go:"), "auto-named from the caller: %s", r.Name)
	check(strings.Contains(r.Text, "work+0x"), "the text lists work+0x.. lines")
	check(r.Path != "", "written to %s", r.Path)
	check(r.UntracedGoroutines == 0 && len(r.Notes) == 0, "no untraced-goroutine note on a plain region")

	// (2) region = helper: 5 calls per work().
	r = tr.Scope(asmspy.Func(helper), false, func() { v = call(work, 3) })
	if exact {
		check(int64(r.InsnCount) == hX5, "region helper %d == callgrind helper x5 %d", r.InsnCount, hX5)
	}

	// (3) whole window: everything the thread ran, Go runtime included.
	r = tr.Scope(asmspy.WholeWindow, false, func() { v = call(work, 5) })
	fmt.Printf("# go whole window: %d insns (work inclusive %d), gaps %d, truncated %v\n",
		r.InsnCount, wIncl, r.Gaps, r.Truncated)
	check(v == expectWork(5) && !r.Truncated, "whole window: work(5) right, not truncated (%s)", r.Reason)
	if exact {
		check(int64(r.InsnCount) >= wSelf+hX5, "whole window %d >= work + helper x5 = %d",
			r.InsnCount, wSelf+hX5)
	}
	check(strings.Contains(r.Text, "work+0x") && strings.Contains(r.Text, "helper+0x"),
		"whole window lists work and helper")

	// (4) an explicit (address, 1) range: work's first instruction, once.
	r = tr.Scope(asmspy.Range(work, 1), false, func() { v = call(work, 1) })
	check(r.InsnCount == 1, "Range(work, 1) == %d (want 1)", r.InsnCount)

	// Hazard: the region pins its OS thread. Yield, allocate, collect and
	// sleep inside: the goroutine stays on one OS thread, the count exact.
	var tidIn, tidOut int
	r = tr.Scope(asmspy.Func(work), false, func() {
		tidIn = syscall.Gettid()
		for i := 0; i < 3; i++ {
			runtime.Gosched()
		}
		buf := make([]byte, 1<<16)
		buf[100] = 1
		runtime.GC() // a whole collection, stop-the-world included, stepped
		time.Sleep(time.Millisecond)
		v = call(work, 7)
		tidOut = syscall.Gettid()
	})
	check(tidIn == tidOut, "LockOSThread pins the region: tid %d at start, %d at end", tidIn, tidOut)
	check(!r.Truncated && v == expectWork(7), "Gosched/alloc/GC/sleep inside: not truncated (%s)", r.Reason)
	if exact {
		check(int64(r.InsnCount) == wSelf, "region work after Gosched/sleep: %d == %d", r.InsnCount, wSelf)
	}

	// Hazard: go func() fan-out inside a scope runs on other OS threads:
	// reported as untraced, never stitched into the listing.
	var wg sync.WaitGroup
	var fan [3]int64
	r = tr.Scope(asmspy.Func(work), false, func() {
		for i := range fan {
			i := i
			wg.Add(1)
			tr.Go(func() { defer wg.Done(); fan[i] = call(work, int64(i)) })
		}
		wg.Wait()
		v = call(work, 7)
	})
	fmt.Printf("# go fan-out: %d insns, untraced goroutines %d, notes %q\n", r.InsnCount,
		r.UntracedGoroutines, r.Notes)
	check(r.UntracedGoroutines == 3 && len(r.Notes) == 1 && strings.Contains(r.Notes[0], "untraced"),
		"tr.Go fan-out: 3 goroutines reported untraced")
	check(fan[0] == expectWork(0) && fan[2] == expectWork(2) && v == expectWork(7), "fan-out results right")
	if exact {
		check(int64(r.InsnCount) == wSelf, "fan-out not stitched: %d == one work() call %d",
			r.InsnCount, wSelf)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	r = tr.Scope(asmspy.Func(work), false, func() {
		go func() { close(started); <-release }() // a plain go statement
		<-started
		v = call(work, 7)
	})
	close(release)
	check(r.UntracedGoroutines >= 1 && len(r.Notes) == 1 && strings.Contains(r.Notes[0], "untraced"),
		"plain go func() still alive at the end: reported (%d, %q)", r.UntracedGoroutines, r.Notes)
	if exact {
		check(int64(r.InsnCount) == wSelf, "plain go func(): region work %d == %d", r.InsnCount, wSelf)
	}

	// (5) thread hop: Begin on one locked goroutine (OS thread), End on
	// another -> truncated with the core's thread-hop reason.
	handoff := make(chan *asmspy.Handle)
	done := make(chan *asmspy.Result)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h := <-handoff
		fmt.Printf("# ender tid %d\n", syscall.Gettid())
		done <- h.End()
	}()
	hopDone := make(chan int64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fmt.Printf("# beginner tid %d\n", syscall.Gettid())
		h := tr.Begin(asmspy.WholeWindow, false)
		x := call(work, 2)
		handoff <- h
		hr := <-done
		fmt.Printf("# go thread hop: truncated %v, %d insns, %s\n", hr.Truncated, hr.InsnCount, hr.Reason)
		check(hr.Truncated && strings.Contains(hr.Reason, "thread hop"), "thread hop -> truncated, reason %q", hr.Reason)
		hopDone <- x
	}()
	check(<-hopDone == expectWork(2), "the hopping goroutine kept running correctly")
	r = tr.Scope(asmspy.Func(work), false, func() { v = call(work, 7) })
	check(r.Tier == "WEAK" && !r.Truncated && (!exact || int64(r.InsnCount) == wSelf),
		"a scope after the hop is whole again: %d insns", r.InsnCount)

	// HwBackend: IntelPt asks for STRONG directly and never falls back to WEAK.
	r = asmspy.New(asmspy.IntelPt).Scope(asmspy.Func(work), false, func() { v = call(work, 7) })
	fmt.Printf("# go IntelPt: tier %s (%s)\n", r.Tier, r.Reason)
	check(r.Tier != "WEAK" && (r.Tier == "STRONG" || r.Reason != "") && v == expectWork(7),
		"HwBackend IntelPt: STRONG or a self-skip with the reason, never WEAK")
	r = asmspy.New(asmspy.AmdLbr).Scope(asmspy.Func(work), false, func() { v = call(work, 7) })
	fmt.Printf("# go AmdLbr: tier %s (%s)\n", r.Tier, r.Reason)
	check(r.Tier != "WEAK" && v == expectWork(7), "HwBackend AmdLbr: CEILING or a self-skip, never WEAK")

	// (7) per-scope overhead, printed only.
	const iters = 200
	t0 := time.Now()
	for i := 0; i < iters; i++ {
		tr.ScopeNamed("go-overhead", asmspy.Func(work), false, func() {})
	}
	us := float64(time.Since(t0).Microseconds()) / iters
	fmt.Printf("# overhead go: %.1f us per scope (begin+end, empty region)\n", us)
}

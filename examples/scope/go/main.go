// Go scope example: trace libc's labs() called through cgo, region mode.
// From the source root, after `ninja -C build`:
//
//	cd examples/scope/go && ASMSPY_LIB=$PWD/../../../build/host/libasmspy.so go run .
package main

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
static void *labs_addr(void) { return dlsym(RTLD_DEFAULT, "labs"); }
static long call_long(void *fn, long x) { return ((long (*)(long))fn)(x); }
*/
import "C"

import (
	"fmt"

	"asmspy.local/asmspy"
)

func main() {
	labs := C.labs_addr()
	var v C.long
	tr := asmspy.New(asmspy.Auto)
	r := tr.Scope(asmspy.Func(labs), false, func() { // region: labs's extent
		v = C.call_long(labs, -42)
	})
	fmt.Print(r.Text)
	fmt.Printf("labs(-42) = %d: %d insns, tier %s, written to %s\n", v, r.InsnCount, r.Tier, r.Path)
	if r.Tier == "NONE" {
		fmt.Println("not traced:", r.Reason)
	}
}

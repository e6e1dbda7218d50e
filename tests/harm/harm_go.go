// harm_go: goroutines, a recovered panic and runtime.Stack. harm.sh builds
// it with `go build` (offline, GOCACHE/GOPATH in a temp dir). Each round: 16
// goroutines sum their share of a known series, one call per goroutine
// panics and is recovered, and runtime.Stack must name main.harmMarker. The
// round's checksum must equal the one computed at start; prints the harm.h
// protocol (`<pid> ready reference=X`, `round N OK|CORRUPT ...`).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
)

//go:noinline
func mix(x uint64) uint64 { return (x ^ (x >> 11)) * 0x9E3779B97F4A7C15 }

//go:noinline
func mayPanic(x uint64) (v uint64, recovered bool) {
	defer func() {
		if r := recover(); r != nil {
			v, recovered = x, true
		}
	}()
	if x%1000 == 999 {
		panic(fmt.Sprintf("harm panic %d", x))
	}
	return mix(x), false
}

//go:noinline
func harmMarker() string {
	buf := make([]byte, 8192)
	return string(buf[:runtime.Stack(buf, false)])
}

func roundWork() (uint64, string) {
	var wg sync.WaitGroup
	sums := make([]uint64, 16)
	recs := make([]uint64, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := uint64(0); i < 20000; i++ {
				v, rec := mayPanic(uint64(g)*20000 + i)
				sums[g] += v
				if rec {
					recs[g]++
				}
			}
		}(g)
	}
	wg.Wait()
	var sum uint64
	for g := range sums {
		sum = sum*31 + sums[g] + recs[g]<<40
	}
	bad := ""
	if st := harmMarker(); !strings.Contains(st, "main.harmMarker") {
		bad = "runtime.Stack without main.harmMarker: " + strings.ReplaceAll(st, "\n", " | ")
	}
	return sum, bad
}

func main() {
	out := os.Stdout
	if p := os.Getenv("HARM_OUT"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			panic(err)
		}
		out = f
	}
	want, bad0 := roundWork()
	fmt.Fprintf(out, "%d ready reference=%d\n", os.Getpid(), want)
	if bad0 != "" {
		fmt.Fprintf(out, "round 0 CORRUPT before any tracer: %s\n", bad0)
	}
	for r := 1; ; r++ {
		got, bad := roundWork()
		switch {
		case got != want:
			fmt.Fprintf(out, "round %d CORRUPT checksum: got %d want %d\n", r, got, want)
		case bad != "":
			fmt.Fprintf(out, "round %d CORRUPT %s\n", r, bad)
		default:
			fmt.Fprintf(out, "round %d OK\n", r)
		}
	}
}

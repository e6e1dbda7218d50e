module asmspy.local/scopeexample

go 1.19

require asmspy.local/asmspy v0.0.0

// the binding from this source tree (no network: a local module)
replace asmspy.local/asmspy => ../../../bindings/go

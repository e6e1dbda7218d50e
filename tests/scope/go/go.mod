module asmspy.local/scopetest

go 1.19

require asmspy.local/asmspy v0.0.0

replace asmspy.local/asmspy => ../../../bindings/go

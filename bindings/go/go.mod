module asmspy.local/asmspy

go 1.19

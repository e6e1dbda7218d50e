# Ruby scope example: trace libc's labs() called through Fiddle.
# Run from the source root after `./run.sh` (or ninja -C build):
#   ASMSPY_LIB=build/host/libasmspy.so ruby -I bindings/ruby/lib examples/scope/ruby/scope_rb.rb
# (after `meson install` + ldconfig, ASMSPY_LIB is not needed.)
require "fiddle"
require "asmspy"

libc = Fiddle::Handle.new("libc.so.6")
labs = Fiddle::Function.new(libc["labs"], [Fiddle::TYPE_LONG], Fiddle::TYPE_LONG)

tr = Asmspy::HwTrace.new(quiet: true)          # HwBackend::Auto: the ladder
t = tr.scope(labs) { labs.call(-42) }          # region: labs' extent; auto-named file:line
puts t.text
puts "labs(-42) = #{t.value}: #{t.insn_count} insns, tier #{t.tier}, written to #{t.path}"
puts "# not captured: #{t.reason}" if t.tier == "NONE"

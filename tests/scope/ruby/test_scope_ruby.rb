# The Ruby block scope (bindings/ruby, Fiddle) on the known functions of
# libscope_victim.so: region counts equal callgrind's (SCOPE_EXP_* from
# test_scope_counts.sh), auto-name = this file:line, whole window, an
# explicit [addr, 1] range, the thread-hop backstop (begun on one Ruby
# Thread = OS thread, finished on another), a scope across Fiber.yield, and
# the per-scope overhead line (printed only).
# usage: ruby test_scope_ruby.rb            (through test_scope_counts.sh)
#        ruby test_scope_ruby.rb --no-plugin (ASMSPY_PLUGIN_PATH_ONLY=1 ...)
require "fiddle"
require "asmspy"

$failures = 0
def check(ok, what)
  puts((ok ? "ok   " : "FAIL ") + what)
  $failures += 1 unless ok
end

def expect_work(n) = (0...5).sum { |i| (n + i) * 3 + 1 }

lib = Fiddle::Handle.new(ENV.fetch("SCOPE_VICTIM_LIB"))
work = Fiddle::Function.new(lib["work"], [Fiddle::TYPE_LONG], Fiddle::TYPE_LONG)
helper = Fiddle::Function.new(lib["helper"], [Fiddle::TYPE_LONG], Fiddle::TYPE_LONG)
tr = Asmspy::HwTrace.new(quiet: true)

if ARGV.first == "--no-plugin"
  # nothing can trace: a recorded no-op with the reason, the program's own
  # result unchanged, no exception
  r = tr.scope(work) { work.call(7) }
  puts "# ruby no-plugin: tier #{r.tier}: #{r.reason}"
  check(r.tier == "NONE", "no plugin: tier NONE")
  check(!r.reason.empty?, "no plugin: the reason is recorded")
  check(r.value == expect_work(7), "no plugin: work(7) still returns #{expect_work(7)} (#{r.value})")
  check(r.insn_count == 0 && !r.truncated?, "no plugin: 0 instructions, not truncated")
  exit($failures.zero? ? 0 : 1)
end

exp_work = ENV["SCOPE_EXP_WORK_SELF"]
exp_helper = ENV["SCOPE_EXP_HELPER_X5"]
if exp_work.nil? || exp_helper.nil?
  puts "SKIP: run through test_scope_counts.sh (the callgrind oracle)"
  exit 77
end
exp_work = Integer(exp_work)
exp_helper = Integer(exp_helper)

# (1) region = work (the symbol's extent)
line = __LINE__ + 1
r = tr.scope(work) { work.call(7) }
puts "# ruby region work: #{r.insn_count} insns (callgrind #{exp_work}), tier #{r.tier}"
check(r.tier == "WEAK", "tier WEAK (#{r.reason})")
check(r.insn_count == exp_work, "region work == callgrind work (self): #{r.insn_count} == #{exp_work}")
check(!r.truncated?, "not truncated")
check(r.value == expect_work(7), "the block's value is work(7)")
check(r.name == "#{__FILE__}:#{line}" && r.name.include?("test_scope_ruby.rb"),
      "auto-named from the caller (caller_locations): #{r.name}")
check(!r.path.empty? && File.exist?(r.path), "listing written to #{r.path}")
check(r.text.include?("work+0x") && !r.text.include?("helper+"), "region text names work only")

# (2) region = helper: 5 calls per work()
h = tr.scope(helper) { work.call(3) }
puts "# ruby region helper: #{h.insn_count} insns (callgrind #{exp_helper})"
check(h.insn_count == exp_helper, "region helper == callgrind helper x5: #{h.insn_count} == #{exp_helper}")

# (3) whole window: the Ruby VM and Fiddle's glue are in it too
w = tr.scope(nil) { work.call(5) }
check(w.tier == "WEAK" && !w.truncated? && w.insn_count >= exp_work + exp_helper,
      "whole window: #{w.insn_count} >= work + helper (#{exp_work + exp_helper})")
check(w.text.include?("work+0x") && w.text.include?("helper+0x"), "whole window names work and helper")

# (4) an explicit [address, 1] range: work's first instruction, once
p1 = tr.scope([work.to_i, 1]) { work.call(1) }
check(p1.insn_count == 1, "an [address, 1] range sees exactly work's first instruction once (#{p1.insn_count})")

# (4b) the block raises: the scope still ends (ensure), the exception propagates
raised = nil
begin
  tr.scope(work) { work.call(2); raise ArgumentError, "boom" }
rescue ArgumentError => e
  raised = e
end
again = tr.scope(work) { work.call(2) }
check(raised&.message == "boom" && again.tier == "WEAK" && again.insn_count == exp_work,
      "a raising block: exception re-raised, the scope ended (the next one arms: #{again.insn_count})")

# (5) thread hop: begun on the main thread, finished on another Ruby Thread
# (a Ruby Thread is an OS thread): truncated with the core's reason, no
# partial listing. The thread exists before the scope begins.
q = Queue.new
hop = tr.start(work)
ender = Thread.new { q.pop; hop.finish }
work.call(2)
q << :go
ender.join
puts "# ruby thread hop: #{hop.reason}"
check(hop.truncated? && hop.reason.include?("thread hop"),
      "a scope finished on another Thread: truncated (#{hop.reason})")
check(hop.insn_count.zero?, "thread hop: no partial listing (#{hop.insn_count} insns)")
after = tr.scope(work) { work.call(2) }
check(after.insn_count == exp_work && !after.truncated?, "the main thread traces normally after the hop")

# (5b) fibers never leave their OS thread: a scope across Fiber.yield is
# complete (not truncated) and holds whatever the thread ran meanwhile
fib = Fiber.new { work.call(4); Fiber.yield; work.call(4) }
fs = tr.scope(work) do
  fib.resume        # work(4), then yields back here
  work.call(1)      # the thread runs this while the fiber is suspended
  fib.resume        # work(4) again, to the fiber's end
end
check(!fs.truncated? && fs.tier == "WEAK" && fs.insn_count == 3 * exp_work,
      "a scope across Fiber.yield: same OS thread, not truncated, 3 x work (#{fs.insn_count})")

# (7) per-scope overhead: printed only, never asserted. 10 iterations, not
# 200: under the WEAK tier every instruction between begin and end is
# single-stepped, and Fiddle's own call path (the return from
# asmspy_scope_begin, the call into asmspy_scope_end) is ~15k instructions
# of the Ruby VM, ~0.2 s per scope here. That cost is the line's point.
n = 10
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
n.times { tr.scope(work) {} }
us = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1e6 / n
puts format("# overhead ruby: %.1f us per scope (begin+end, empty region)", us)

exit($failures.zero? ? 0 : 1)

-- The Lua callback scope (asmspy_lua.so) on the known functions of
-- libscope_victim.so: region counts equal callgrind's (SCOPE_EXP_* from
-- test_scope_counts.sh), auto-name = this file:line, whole window, an
-- explicit { addr, 1 } range, an error in fn (the scope ends, the error is
-- re-raised), a scope spanning a coroutine yield (same OS thread: complete,
-- and it holds what the thread ran meanwhile), the overhead line.
-- usage: lua5.4 test_scope_lua.lua              (through test_scope_counts.sh)
--        lua5.4 test_scope_lua.lua --no-plugin  (ASMSPY_PLUGIN_PATH_ONLY=1 ...)
local asmspy = require "asmspy_lua"

local failures = 0
local function check(ok, what)
  print((ok and "ok   " or "FAIL ") .. what)
  if not ok then failures = failures + 1 end
end
local function expect_work(n)
  local acc = 0
  for i = 0, 4 do acc = acc + (n + i) * 3 + 1 end
  return acc
end

local victim = assert(os.getenv("SCOPE_VICTIM_LIB"), "SCOPE_VICTIM_LIB")
local work = asmspy.native(victim, "work")
local helper = asmspy.native(victim, "helper")
local tr = asmspy.HwTrace{ quiet = true }

if arg[1] == "--no-plugin" then
  -- nothing can trace: a recorded no-op with the reason, no error raised
  local t, r = tr:scope(work, function() return work:call(7) end)
  print("# lua no-plugin: tier " .. t.tier .. ": " .. t.reason)
  check(t.tier == "NONE", "no plugin: tier NONE")
  check(t.reason ~= "", "no plugin: the reason is recorded")
  check(r == expect_work(7), "no plugin: work(7) still returns " .. expect_work(7) .. " (" .. tostring(r) .. ")")
  check(t.insn_count == 0 and not t.truncated, "no plugin: 0 instructions, not truncated")
  os.exit(failures == 0 and 0 or 1)
end

local exp_work = tonumber(os.getenv("SCOPE_EXP_WORK_SELF") or "")
local exp_helper = tonumber(os.getenv("SCOPE_EXP_HELPER_X5") or "")
if not exp_work or not exp_helper then
  print("SKIP: run through test_scope_counts.sh (the callgrind oracle)")
  os.exit(77)
end

-- (1) region = work (the symbol's extent)
local line = debug.getinfo(1, "l").currentline + 1
local t, r = tr:scope(work, function() return work:call(7) end)
print(("# lua region work: %d insns (callgrind %d), tier %s"):format(t.insn_count, exp_work, t.tier))
check(t.tier == "WEAK", "tier WEAK (" .. t.reason .. ")")
check(t.insn_count == exp_work, ("region work == callgrind work (self): %d == %d"):format(t.insn_count, exp_work))
check(not t.truncated, "not truncated")
check(r == expect_work(7), "fn's result comes back after the scope: " .. tostring(r))
local me = debug.getinfo(1, "S").source:sub(2)
check(t.name == me .. ":" .. line and t.name:find("test_scope_lua.lua", 1, true) ~= nil,
      "auto-named from the caller (debug.getinfo): " .. t.name)
local f = t.path ~= "" and io.open(t.path) or nil
check(f ~= nil, "listing written to " .. t.path)
if f then f:close() end
check(t.text:find("work+0x", 1, true) and not t.text:find("helper+", 1, true), "region text names work only")

-- (2) region = helper: 5 calls per work()
local h = tr:scope(helper, function() work:call(3) end)
print(("# lua region helper: %d insns (callgrind %d)"):format(h.insn_count, exp_helper))
check(h.insn_count == exp_helper, ("region helper == callgrind helper x5: %d == %d"):format(h.insn_count, exp_helper))

-- (3) whole window: the Lua VM's glue is in it too
local w = tr:scope(nil, function() work:call(5) end)
check(w.tier == "WEAK" and not w.truncated and w.insn_count >= exp_work + exp_helper,
      ("whole window: %d >= work + helper (%d)"):format(w.insn_count, exp_work + exp_helper))
check(w.text:find("work+0x", 1, true) and w.text:find("helper+0x", 1, true), "whole window names work and helper")

-- (4) an explicit { address, 1 } range: work's first instruction, once
local p = tr:scope({ work:addr(), 1 }, function() work:call(1) end)
check(p.insn_count == 1, "a { address, 1 } range sees exactly work's first instruction once (" .. p.insn_count .. ")")

-- (4b) fn raises: the scope still ends (pcall), the error is re-raised as is
local boom = { "boom" }
local ok, err = pcall(tr.scope, tr, work, function() work:call(2); error(boom) end)
local again = tr:scope(work, function() work:call(2) end)
check(not ok and err == boom and again.tier == "WEAK" and again.insn_count == exp_work,
      "an error in fn: the same error object re-raised, the scope ended (the next one arms: " .. again.insn_count .. ")")

-- (5) coroutines share the OS thread: a scope whose fn yields stays open
-- while the coroutine is suspended and records whatever the thread runs
-- meanwhile. Region = helper: the coroutine's helper(1) twice, plus the
-- 5 helper calls of the work(3) the main code runs while it is suspended.
local per_helper = exp_helper // 5
local co = coroutine.create(function()
  return tr:scope(helper, function()
    helper:call(1)
    coroutine.yield()   -- yields across the scope's pcall (lua_pcallk continuation)
    helper:call(1)
    return "done"
  end)
end)
assert(coroutine.resume(co))               -- helper(1), then yields
work:call(3)                               -- runs on the same thread: recorded
local ok2, cs, cr = coroutine.resume(co)   -- helper(1), fn returns, scope ends
check(ok2 and cr == "done" and not cs.truncated and cs.tier == "WEAK" and cs.insn_count == 7 * per_helper,
      ("a scope spanning a yield: not truncated, %d == 7 x helper (2 in the coroutine + 5 the main code ran meanwhile)")
      :format(ok2 and cs.insn_count or -1))
-- the same as a whole window: the listing completes (summary, no TRUNCATED)
local co2 = coroutine.wrap(function()
  return tr:scope(nil, function() coroutine.yield(); work:call(1) end)
end)
co2()
work:call(2)
local ws = co2()
check(not ws.truncated and ws.tier == "WEAK" and ws.text:find("# scope .*: %d+ instructions, tier WEAK\n") ~= nil
      and not ws.text:find("TRUNCATED", 1, true),
      ("a whole-window scope spanning a yield: complete listing, %d insns, not truncated"):format(ws.insn_count))

-- (7) per-scope overhead: printed only, never asserted
local n = 200
local empty = function() end
local t0 = asmspy.monotonic()   -- the module's CLOCK_MONOTONIC helper (wall time)
for _ = 1, n do tr:scope(work, empty) end
local us = (asmspy.monotonic() - t0) * 1e6 / n
print(("# overhead lua: %.1f us per scope (begin+end, empty region)"):format(us))
os.exit(failures == 0 and 0 or 1)

-- Lua scope example: trace libc's labs().
-- Run from the source root after `./run.sh` (or ninja -C build):
--   LUA_CPATH='build/tests/scope/lua/?.so' lua5.4 examples/scope/lua/scope_lua.lua
-- (after `meson install`, the module is in <prefix>/lib/lua/5.4: no LUA_CPATH.)
local asmspy = require "asmspy_lua"

-- asmspy.native is the module's small test/example helper (Lua has no FFI):
-- dlopen + dlsym, :addr() and :call(n) for a `long f(long)`.
local labs = asmspy.native("libc.so.6", "labs")

local tr = asmspy.HwTrace{ quiet = true }        -- backend = HwBackend.Auto
local t, r = tr:scope(labs, function() return labs:call(-42) end)  -- region: labs
print(t.text)
print(("labs(-42) = %d: %d insns, tier %s, written to %s"):format(r, t.insn_count, t.tier, t.path))
if t.tier == "NONE" then print("# not captured: " .. t.reason) end

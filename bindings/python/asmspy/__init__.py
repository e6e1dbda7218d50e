"""asmspy scoped tracing for Python: ctypes over libasmspy (no compiled
extension). A `with` block brackets native code and yields the assembly that
ran inside it:

    import ctypes, asmspy
    lib = ctypes.CDLL("./libscope_victim.so")
    with asmspy.HwTrace.scope(lib.work) as t:    # region: work's extent
        lib.work(3)
    print(t.insn_count, t.tier, t.path)

`code` may be a ctypes function pointer, an (address, length) pair, or None
for the whole window (which then includes the interpreter's own
instructions: faithful but noisy). The scope is auto-named from the
caller's file and line. Library lookup: $ASMSPY_LIB, then libasmspy.so(.0)
through the normal loader path (LD_LIBRARY_PATH / the installed prefix).
"""
import ctypes
import os
import sys

__all__ = ["HwTrace", "Scope", "QUIET", "STRONG", "CEILING", "INTEL_PT", "AMD_LBR"]


def _load():
    names = [os.environ.get("ASMSPY_LIB"), "libasmspy.so.0", "libasmspy.so"]
    errors = []
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError as e:  # try the next name
            errors.append(str(e))
    raise OSError("asmspy: cannot load libasmspy (" + "; ".join(errors) + ")")


_lib = _load()
_scope_p = ctypes.c_void_p
_lib.asmspy_scope_begin.restype = _scope_p
_lib.asmspy_scope_begin.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
_lib.asmspy_scope_end.restype = ctypes.c_int
_lib.asmspy_scope_end.argtypes = [_scope_p]
for _name, _type in (("text", ctypes.c_char_p), ("path", ctypes.c_char_p),
                     ("tier", ctypes.c_char_p), ("reason", ctypes.c_char_p),
                     ("insn_count", ctypes.c_size_t), ("truncated", ctypes.c_int),
                     ("gaps", ctypes.c_uint64)):
    _f = getattr(_lib, "asmspy_scope_" + _name)
    _f.restype = _type
    _f.argtypes = [_scope_p]
_lib.asmspy_scope_free.restype = None
_lib.asmspy_scope_free.argtypes = [_scope_p]

# flag values mirror include/asmspy/scope.h
QUIET = 1
STRONG = 2   # ask for the STRONG tier (every branch in hardware) directly
CEILING = 4  # ask for the CEILING tier (sampled branch edges) directly
# the names of the same bits from when each tier had one backend
INTEL_PT = STRONG
AMD_LBR = CEILING


def _code_range(code):
    """(address, length) for a ctypes function, an (addr, len) pair, or None."""
    if code is None:
        return None, 0
    if isinstance(code, tuple):
        addr, length = code
        return int(addr), int(length)
    return ctypes.cast(code, ctypes.c_void_p).value, 0  # 0: the symbol's extent


def _text(b):
    return b.decode("utf-8", "replace") if b else ""


class Scope:
    """One scope; the accessors are valid after the `with` block."""

    def __init__(self, code=None, flags=0, name=None, _depth=2):
        if name is None:
            frame = sys._getframe(_depth)
            name = "%s:%d" % (frame.f_code.co_filename, frame.f_lineno)
        self.name = name
        self._addr, self._len = _code_range(code)
        self._flags = flags
        self._s = None

    def __enter__(self):
        self._s = _lib.asmspy_scope_begin(self.name.encode(), self._addr, self._len, self._flags)
        return self

    def __exit__(self, *exc):
        if self._s:
            _lib.asmspy_scope_end(self._s)
            self.text = _text(_lib.asmspy_scope_text(self._s))
            self.path = _text(_lib.asmspy_scope_path(self._s))
            self.insn_count = int(_lib.asmspy_scope_insn_count(self._s))
            self.truncated = bool(_lib.asmspy_scope_truncated(self._s))
            self.gaps = int(_lib.asmspy_scope_gaps(self._s))
            self.tier = _text(_lib.asmspy_scope_tier(self._s))
            self.reason = _text(_lib.asmspy_scope_reason(self._s))
            _lib.asmspy_scope_free(self._s)
            self._s = None
        return False


class HwTrace:
    @staticmethod
    def scope(code=None, flags=0):
        """`with HwTrace.scope(code) as t:` — auto-named from the caller."""
        return Scope(code, flags, _depth=2)

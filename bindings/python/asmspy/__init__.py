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
caller's file and line. An explicit backend: HwTrace.scope(code,
backend=HwBackend.IntelPt) (Auto = the ladder; IntelPt / AmdLbr self-skip
with a reason where the silicon or plugin is missing).

Library lookup (first that loads; docs/scope/python.md):
  1. $ASMSPY_LIB (a path: the build tree),
  2. libasmspy.so.0 / libasmspy.so through the dynamic loader
     (LD_LIBRARY_PATH, the ldconfig cache: a `meson install` to a standard
     prefix runs ldconfig),
  3. ctypes.util.find_library("asmspy") (also searches gcc's/ld's paths),
  4. the libdir recorded when this package was pip-installed
     (asmspy/_config.py, from pkg-config asmspy),
  5. the prefix this module is installed in (`meson install` puts it in
     <prefix>/<datadir>/asmspy/python/asmspy: <prefix>/lib/<multiarch>,
     lib64, lib), so a relocated prefix needs no ASMSPY_LIB,
  6. the standard library directories (/usr/local/lib/<multiarch>, ...).
When none loads, importing still works and every scope is a recorded no-op
(tier NONE, `reason` says why): the traced code runs on, untouched.
"""
import ctypes
import ctypes.util
import enum
import os
import sys
import sysconfig

__version__ = "0.1.0"
__all__ = ["HwTrace", "HwBackend", "Scope", "QUIET", "STRONG", "CEILING", "INTEL_PT", "AMD_LBR",
           "library_path", "load_error"]


def _recorded_libdir():
    for mod in ("asmspy._config", "_asmspy_config"):  # wheel / editable install
        try:
            return __import__(mod, fromlist=["LIBDIR"]).LIBDIR
        except (ImportError, AttributeError):
            pass
    return None


def _std_libdirs():
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    dirs = []
    for prefix in ("/usr/local", "/usr", sys.prefix, sys.base_prefix):
        for sub in ("lib/" + multiarch, "lib64", "lib"):
            d = os.path.join(prefix, sub)
            if d not in dirs:
                dirs.append(d)
    return dirs


def _own_prefix_libdirs():
    # <prefix>/share/asmspy/python/asmspy/__init__.py -> <prefix>
    here = os.path.dirname(os.path.abspath(__file__))
    parts = here.split(os.sep)
    if len(parts) < 5 or parts[-2:] != ["python", "asmspy"] or parts[-3] != "asmspy":
        return []
    prefix = os.sep.join(parts[:-4]) or os.sep
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    return [os.path.join(prefix, sub) for sub in ("lib/" + multiarch, "lib64", "lib")]


def _candidates():
    env = os.environ.get("ASMSPY_LIB")
    if env:
        yield env
    yield "libasmspy.so.0"
    yield "libasmspy.so"
    found = ctypes.util.find_library("asmspy")
    if found:
        yield found
    recorded = _recorded_libdir()
    for d in ([recorded] if recorded else []) + _own_prefix_libdirs() + _std_libdirs():
        yield os.path.join(d, "libasmspy.so.0")


def _load():
    errors = []
    for name in _candidates():
        if os.sep in name and not os.path.exists(name) and name != os.environ.get("ASMSPY_LIB"):
            continue  # a directory guess with nothing there: not worth an error line
        try:
            return ctypes.CDLL(name), name, None
        except OSError as e:  # try the next name
            errors.append(str(e))
    return None, None, "libasmspy not loaded (" + "; ".join(errors) + ")"


_lib, library_path, load_error = _load()
_scope_p = ctypes.c_void_p
if _lib is not None:
    _lib.asmspy_scope_begin.restype = _scope_p
    _lib.asmspy_scope_begin.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.c_uint]
    _lib.asmspy_scope_end.restype = ctypes.c_int
    _lib.asmspy_scope_end.argtypes = [_scope_p]
    for _name, _type in (("text", ctypes.c_char_p), ("path", ctypes.c_char_p),
                         ("tier", ctypes.c_char_p), ("reason", ctypes.c_char_p),
                         ("insn_count", ctypes.c_uint64), ("truncated", ctypes.c_int),
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


class HwBackend(enum.IntEnum):
    """Explicit backend choice (the seed's HwBackend), as scope.h flags.
    Auto: the ladder (STRONG, then WEAK). IntelPt / AmdLbr: that tier only,
    a recorded no-op with the reason where it cannot arm."""
    Auto = 0
    IntelPt = STRONG
    AmdLbr = CEILING


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
        if _lib is None:  # nothing can trace: a recorded no-op, never an exception
            self._none(load_error)
            return self
        self._s = _lib.asmspy_scope_begin(self.name.encode(), self._addr, self._len, self._flags)
        if not self._s:
            self._none("asmspy_scope_begin returned NULL (out of memory)")
        return self

    def _none(self, reason):
        self.text = "# scope %s: 0 instructions, tier NONE\n# not captured: %s\n" % (self.name,
                                                                                     reason)
        self.path, self.insn_count, self.truncated, self.gaps = "", 0, False, 0
        self.tier, self.reason = "NONE", reason

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
    def scope(code=None, flags=0, backend=HwBackend.Auto, name=None):
        """`with HwTrace.scope(code) as t:` — auto-named from the caller.
        backend: a HwBackend (or the STRONG / CEILING flags in `flags`)."""
        return Scope(code, int(flags) | int(backend), name=name, _depth=2)

"""A tiny in-tree PEP 517 build backend for the asmspy Python package.

Why not setuptools: the package is pure Python (ctypes), and a backend
with no requirements lets `pip install ./bindings/python` work offline,
with or without build isolation (pip installs nothing into the isolated
build environment: `requires = []`). Nothing is fetched from an index.

What it adds to the plain sources: `asmspy/_config.py`, recording the
directory libasmspy was installed to, so the installed package finds the
library after `meson install` with no environment variable. That directory
is, first found:
  1. pip's --config-settings libdir=DIR  (libdir=none records nothing),
  2. $ASMSPY_LIBDIR at build time,
  3. `pkg-config --variable=libdir asmspy` (the installed asmspy.pc; with
     $PKG_CONFIG_SYSROOT_DIR, e.g. a `meson install --destdir` tree, the
     sysroot is prefixed where pkg-config did not already do it).
Nothing found: LIBDIR = None, and the package relies on the loader.
"""
import base64
import hashlib
import io
import os
import re
import subprocess
import tarfile
import zipfile

NAME = "asmspy"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bindings/python
PKG = os.path.join(HERE, NAME)


def _version():
    with open(os.path.join(PKG, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    return m.group(1) if m else "0"


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: asmspy scoped tracing for Python (ctypes over libasmspy)\n"
            "License: MIT\nRequires-Python: >=3.6\n" % (NAME, _version()))


def _recorded_libdir(config_settings):
    cs = config_settings or {}
    if cs.get("libdir"):
        return None if cs["libdir"] == "none" else os.path.abspath(cs["libdir"])
    if os.environ.get("ASMSPY_LIBDIR"):
        return os.path.abspath(os.environ["ASMSPY_LIBDIR"])
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "asmspy"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip() if out.returncode == 0 else ""
    if not libdir:
        return None
    sysroot = os.environ.get("PKG_CONFIG_SYSROOT_DIR", "").rstrip("/")
    if sysroot and not libdir.startswith(sysroot + "/"):
        libdir = sysroot + libdir
    return libdir


def _config_py(libdir):
    return ('"""Written by the asmspy build backend when this package was built."""\n'
            "# the directory libasmspy was installed to (None: rely on the loader)\n"
            "LIBDIR = %r\n" % (libdir,))


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _wheel_name():
    return "%s-%s-py3-none-any.whl" % (NAME, _version())


def _write_wheel(wheel_directory, files):
    """files: [(archive name, bytes)]; adds the dist-info and RECORD."""
    di = _dist_info()
    files = list(files) + [
        (di + "/METADATA", _metadata().encode()),
        (di + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: asmspy_build\n"
                        b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = io.StringIO()
    path = os.path.join(wheel_directory, _wheel_name())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            z.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.write("%s,sha256=%s,%d\n" % (arc, digest.decode(), len(data)))
        record.write(di + "/RECORD,,\n")
        z.writestr(di + "/RECORD", record.getvalue())
    return os.path.basename(path)


def _package_files():
    out = []
    for root, dirs, names in os.walk(PKG):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in sorted(names):
            if n.endswith(".py") and n != "_config.py":
                full = os.path.join(root, n)
                with open(full, "rb") as f:
                    out.append((os.path.relpath(full, HERE).replace(os.sep, "/"), f.read()))
    return out


# ---- PEP 517 -------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    di = os.path.join(metadata_directory, _dist_info())
    os.makedirs(di, exist_ok=True)
    with open(os.path.join(di, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = _package_files()
    files.append((NAME + "/_config.py", _config_py(_recorded_libdir(config_settings)).encode()))
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a .pth putting this source directory on sys.path, and the
    recorded libdir as a top-level _asmspy_config module."""
    return _write_wheel(wheel_directory, [
        ("_asmspy_editable.pth", (HERE + "\n").encode()),
        ("_asmspy_config.py", _config_py(_recorded_libdir(config_settings)).encode()),
    ])


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as t:
        for rel in ["pyproject.toml", "_build/asmspy_build.py"] + [a for a, _ in _package_files()]:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return os.path.basename(path)

#!/usr/bin/env python3
"""Draft plugins/views/syslog/syscalls.in from the running kernel's own
prototypes (one-off; the output is then reviewed by hand and committed).

Usage (root, tracefs mounted):
    syscalls_bootstrap.py [--classes <name:classes file>] > syscalls.in.draft

Every /sys/kernel/tracing/events/syscalls/sys_enter_<name>/format lists the
syscall's arguments with their C types and names as SYSCALL_DEFINE declares
them. Each (type, name) pair is mapped to an argument kind (see
docs/syslog.md, "The syscall table"); the mapping is a first guess, not the
last word: the committed syscalls.in is the reviewed version.

--classes: lines `name class,class` (trace classes: desc file network
process signal memory ipc creds clock) merged in as the class column.
Python 3 standard library only.
"""
import os
import re
import sys

BASE = '/sys/kernel/tracing/events/syscalls'
# tracefs names that differ from the __NR_ name
ALIASES = {'newfstat': 'fstat', 'newstat': 'stat', 'newlstat': 'lstat', 'newuname': 'uname',
           'sendfile64': 'sendfile', 'newfstatat': 'newfstatat'}
PATH_NAMES = {'filename', 'pathname', 'path', 'oldname', 'newname', 'specialfile', 'dev_name',
              'dir_name', 'library', 'old', 'new', 'oldpath', 'newpath', 'name', 'target',
              'from_pathname', 'to_pathname', 'put_old', 'new_root', 'special'}


def kind(syscall, ctype, name):
    t = ctype.replace('__user', '').replace('  ', ' ').strip()
    ptr = '*' in t
    if not ptr:
        t = re.sub(r'^const ', '', t)
    if ptr:
        if name in ('buf', 'ubuf'):
            return 'ptr'  # a counted buffer: its own decoder prints the bytes
        if re.match(r'^const char \*$', t) and name in PATH_NAMES:
            return 'path'
        if re.match(r'^const char \*$', t):
            return 'str'
        return 'ptr'
    if name in ('dfd', 'olddfd', 'newdfd', 'dirfd', 'fromfd', 'to_dfd', 'from_dfd') and 'int' in t:
        return 'dirfd'
    if name in ('fd', 'epfd', 'oldfd', 'newfd', 'out_fd', 'in_fd', 'fd_in', 'fd_out',
                'pidfd', 'kernel_fd', 'initrd_fd', 'ufd', 'fdin', 'fdout', 'mqdes') \
            or name.endswith('_fd'):
        return 'fd'
    if name in ('addr', 'start', 'brk', 'new_addr', 'old_addr', 'newsp', 'tls', 'addr_hint') \
            and t == 'unsigned long':
        return 'ptr'
    if t in ('umode_t', 'mode_t') or (syscall == 'umask' and name == 'mask'):
        return 'mode'
    if name == 'sig' and t == 'int':
        return 'signal'
    if t == 'pid_t':
        return 'pid'
    if t in ('uid_t', 'gid_t', 'old_uid_t', 'old_gid_t', 'qid_t'):
        return 'uid'
    if t == 'clockid_t':
        return 'clockid'
    if t == 'size_t':
        return 'size'
    if t in ('loff_t', 'off_t', '__kernel_off_t'):
        return 'off'
    if name in ('off', 'pgoff', 'pgoff_t'):
        return 'hex'
    if name == 'flags':
        return 'flags'
    if t in ('int', 'int32_t', '__s32', 's32', 'key_serial_t', 'timer_t', 'rwf_t', 'key_t'):
        return 'int'
    if t in ('unsigned int', 'u32', '__u32', 'uint32_t', 'unsigned'):
        return 'uint'
    if t in ('long', 'ssize_t'):
        return 'long'
    if t in ('unsigned long', 'u64', '__u64', 'aio_context_t', 'size_t'):
        return 'ulong'
    return 'ulong'


def main():
    classes = {}
    if len(sys.argv) > 2 and sys.argv[1] == '--classes':
        for line in open(sys.argv[2]):
            p = line.split()
            if p:
                classes[p[0]] = p[1] if len(p) > 1 else ''
    rows = []
    for d in sorted(os.listdir(BASE)):
        if not d.startswith('sys_enter_'):
            continue
        tname = d[len('sys_enter_'):]
        name = ALIASES.get(tname, tname)
        fmt = open(os.path.join(BASE, d, 'format')).read()
        args = []
        for m in re.finditer(r'field:([^;]+);\s*offset:(\d+);', fmt):
            if int(m.group(2)) < 16:  # common_* and __syscall_nr
                continue
            mm = re.match(r'(.*?)\s*(\w+)$', m.group(1).strip())
            args.append('%s %s' % (kind(name, mm.group(1), mm.group(2)), mm.group(2)))
        rows.append('%s(%s)' % (name, ', '.join(args)) + ('  ' + classes[name] if classes.get(name) else ''))
    print('\n'.join(rows))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
# perf_uprobe.py FILE SYMBOL: the kernel's own verdict on a uprobe for this
# user, without kptrace: a bare perf_event_open(2) of the uprobe PMU at
# SYMBOL's file offset (readelf's numbers), system-wide on CPU 0. Prints
# "ok", or the errno's name and exits 1.
import ctypes, errno, os, struct, subprocess, sys

path, sym = sys.argv[1], sys.argv[2]
syms = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout
vaddr = next(int(l.split()[1], 16) for l in syms.splitlines() if l.split()[-1:] == [sym])
# the PT_LOAD holding it: file offset = vaddr - its VirtAddr + its Offset
segs = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
off = None
for l in segs.splitlines():
    f = l.split()
    if f[:1] == ["LOAD"]:
        o, va, fs = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if va <= vaddr < va + fs:
            off = vaddr - va + o
libc = ctypes.CDLL(None, use_errno=True)
pmu = int(open("/sys/bus/event_source/devices/uprobe/type").read())
name = ctypes.create_string_buffer(path.encode())
attr = bytearray(128)
struct.pack_into("IIQ", attr, 0, pmu, 128, 0)       # type, size, config (0: entry)
struct.pack_into("QQ", attr, 56, ctypes.addressof(name), off)  # uprobe_path, probe_offset
buf = (ctypes.c_char * 128).from_buffer(attr)
fd = libc.syscall(298, buf, -1, 0, -1, 8)           # perf_event_open, FD_CLOEXEC
if fd < 0:
    print(errno.errorcode.get(ctypes.get_errno(), "?"))
    sys.exit(1)
os.close(fd)
print("ok")

#!/usr/bin/env python3
"""Cut the raw BTF out of a file holding it whole (an arm64 Image's .BTF
section, /sys/kernel/btf/vmlinux itself): the blob is BTF's header (magic
0xeb9f, version 1, flags 0, hdr_len 24), then type_off, type_len, str_off,
str_len; its size is hdr_len + str_off + str_len.
Usage: btf-blob.py FILE OUT"""
import struct
import sys

data = open(sys.argv[1], 'rb').read()
magic = bytes.fromhex('9feb010018000000')
at = 0 if data.startswith(magic) else data.find(magic)
if at < 0:
	sys.exit('btf-blob.py: no BTF in ' + sys.argv[1])
type_off, type_len, str_off, str_len = struct.unpack_from('<4I', data, at + 8)
open(sys.argv[2], 'wb').write(data[at:at + 24 + str_off + str_len])

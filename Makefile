# kptrace: ftrace kprobe_events definitions run as CO-RE BPF programs.
#
#   make          build ./kptrace (static)
#   make kptrace-arm64  cross-build .output/arm64/kptrace for aarch64 (also: make ARCH=arm64)
#   make run      install missing build dependencies, build, run the default job
#   make test     install test dependencies, build, run unit + host + VM tests (x86-64, arm64)
#   make install  the binary, man pages, bash completion, systemd unit and
#                 example job file under DESTDIR/PREFIX (default /usr/local);
#                 make uninstall removes them
#   make deb      .output/kptrace_VERSION_ARCH.deb (dpkg-deb, no dependencies)
#   V=1           show the commands

OUTPUT  := .output
# The host's build is x86-64's; ARCH=arm64 makes the arm64 cross build the default goal.
ARCH    := x86
HOST_ARCH := x86
CLANG   ?= clang
BPFTOOL ?= bpftool
CC      ?= gcc

CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Iinclude -Isrc -I$(OUTPUT) -D_GNU_SOURCE
LDFLAGS ?=
# Static: the binary must run alone in a bare initramfs (tests/vm) and on hosts
# without libbpf installed.
# libdw before libelf, and the compressions libdw's reader opens sections with
LIBS    := -lbpf -ltraceevent -ldw -lelf -lz -llzma -lbz2 -lzstd -ljansson -liberty -lm
LDLIBS  := -static $(LIBS)
# Header dependencies from the compiler: touching a header rebuilds only its includers.
DEPFLAGS = -MMD -MP

bpf_cflags = -target bpf -g -O2 -D__TARGET_ARCH_$(1) -Wall -Werror -Iinclude -Ibpf -Ivmlinux/$(1)
BPF_CFLAGS := $(call bpf_cflags,$(HOST_ARCH))

# Everything but main.c, so the unit tests link the same objects; src/'s
# folders are layers (docs/ARCHITECTURE.md, tests/layers.sh).
LIB_SRCS := $(wildcard src/*/*.c)
LIB_OBJS := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(LIB_SRCS))
BPF_HDRS := $(wildcard bpf/*.bpf.h) $(wildcard include/*.h)

BUILD_PKGS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libtraceevent-dev libjansson-dev \
	libiberty-dev libdw-dev libbz2-dev libzstd-dev gcc make
# the arm64 cross build and its VM tests (the arm64 libraries: vmlinux/arm64-debs.sh)
ARM64_PKGS := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
TEST_PKGS  := $(BUILD_PKGS) qemu-system-x86 busybox-static cpio python3 systemtap-sdt-dev g++ libclang-rt-14-dev lz4 zstd \
	prometheus chromium libxml2-utils lintian mandoc groff-base man-db dpkg-dev binutils debuginfod curl dwarves gdb strace linux-perf runc $(ARM64_PKGS)

# What this build is (src/cmd/version.c, the .deb): git describe in a checkout
# (no tag yet: 0.1 and the commit, as a version must start with a digit), a
# VERSION file in a release tarball, else 0.1+unknown.
VERSION := $(shell git describe --tags --dirty 2>/dev/null | sed 's/^v//' | grep . || \
	{ h=$$(git describe --always --dirty 2>/dev/null) && echo 0.1-g$$h; } || \
	cat VERSION 2>/dev/null || echo 0.1+unknown)
# Debian's: no '-' in a native package's version (it would start a revision)
DEB_VERSION = $(shell echo '$(VERSION)' | sed 's/-/+/; s/-/./g')

PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
DOCDIR     ?= $(PREFIX)/share/doc/kptrace
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean run test unit host-test vm-test deps test-deps soak soak-serve install uninstall \
	deb FORCE kptrace-arm64 vm-test-arm64

ifeq ($(ARCH),arm64)
all: kptrace-arm64
else
all: kptrace
endif

$(OUTPUT):
	$(Q)mkdir -p $@

# Linked by libbpf's linker (bpftool gen object): the DWARF clang's -g adds
# goes (BTF stays), so the object the skeleton embeds is ~40% smaller: less
# to parse at start-up, less resident memory.
$(OUTPUT)/kptrace.bpf.o: bpf/kptrace.bpf.c $(BPF_HDRS) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $(OUTPUT)/kptrace.unlinked.bpf.o
	$(Q)$(BPFTOOL) gen object $@ $(OUTPUT)/kptrace.unlinked.bpf.o

$(OUTPUT)/kptrace.skel.h: $(OUTPUT)/kptrace.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name kptrace_bpf > $@

# Rewritten only when its text changes: a new version recompiles version.o
# and relinks, an unchanged one nothing.
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)printf '#define KPT_GIT_VERSION "%s"\n' '$(VERSION)' > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(OUTPUT)/obj/cmd/version.o $(OUTPUT)/san/cmd/version.o: $(OUTPUT)/version.h $(OUTPUT)/bpf_id.h

FORCE:

# The skeleton is order-only: the .d files name it for the objects that include it.
$(OUTPUT)/obj/%.o: src/%.c | $(OUTPUT)/kptrace.skel.h $(OUTPUT)/kptrace_compat.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

kptrace: $(OUTPUT)/obj/main.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---------------------------------------------------------------------------
# arm64: the same static binary cross-built for aarch64, into $(ARM64_OUT)
# only (its own BPF object, skeleton and objects). The libraries are
# Debian's arm64 packages extracted into a sysroot, never installed.
# ---------------------------------------------------------------------------
ARM64_OUT     := $(OUTPUT)/arm64
ARM64_SYSROOT := $(ARM64_OUT)/sysroot
ARM64_CC      ?= aarch64-linux-gnu-gcc
ARM64_DEBS    := libbpf-dev libelf-dev zlib1g-dev libtraceevent-dev libjansson-dev libiberty-dev \
	libdw-dev liblzma-dev libbz2-dev libzstd-dev
ARM64_OBJS    := $(patsubst src/%.c,$(ARM64_OUT)/obj/%.o,src/main.c $(LIB_SRCS))
# the skeleton from $(ARM64_OUT) first; libbpf, libelf, jansson from the sysroot
ARM64_CFLAGS  := -I$(ARM64_OUT) $(CFLAGS) -I$(ARM64_SYSROOT)/usr/include \
	-I$(ARM64_SYSROOT)/usr/include/aarch64-linux-gnu
ARM64_LDFLAGS := -L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu

# the Makefile too: ARM64_DEBS is its (the script extracts only a changed list)
$(ARM64_SYSROOT)/.stamp: vmlinux/arm64-debs.sh Makefile
	$(call msg,SYSROOT,$(ARM64_SYSROOT))
	$(Q)vmlinux/arm64-debs.sh $(ARM64_SYSROOT) $(ARM64_DEBS)
	$(Q)touch $@

$(ARM64_OUT)/kptrace.bpf.o: bpf/kptrace.bpf.c $(BPF_HDRS) vmlinux/arm64/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(call bpf_cflags,arm64) -c $< -o $(ARM64_OUT)/kptrace.unlinked.bpf.o
	$(Q)$(BPFTOOL) gen object $@ $(ARM64_OUT)/kptrace.unlinked.bpf.o

$(ARM64_OUT)/kptrace.skel.h: $(ARM64_OUT)/kptrace.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name kptrace_bpf > $@

# The object for kernels without bpf_loop() (before 5.17; load/loader.c):
# no callback code at all, which kernels before 5.13 refuse even where it
# is never run. The main skeleton opens it, so it must lay out its maps,
# programs and variables as the main object does: the two skeletons are
# compared with the bytes left out; only its bytes are kept.
$(OUTPUT)/kptrace_compat.bpf.o $(ARM64_OUT)/kptrace_compat.bpf.o: %/kptrace_compat.bpf.o: \
		bpf/kptrace.bpf.c $(BPF_HDRS) vmlinux/arm64/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(if $(filter $(ARM64_OUT),$*),$(call bpf_cflags,arm64),$(BPF_CFLAGS)) \
		-DKPT_COMPAT -c $< -o $*/kptrace_compat.unlinked.bpf.o
	$(Q)$(BPFTOOL) gen object $@ $*/kptrace_compat.unlinked.bpf.o

# a skeleton's layout: without its bytes, and its maps as a sorted list (the
# open finds them by name, so their order in the object does not matter)
skel_layout = { awk '/^static inline const void \*kptrace_bpf__elf_bytes\(size_t \*sz\)$$/ { s = 1 } \
	!s; s && /^}$$/ { s = 0 }' $(1) | grep -v 'maps\[[0-9]*\]\|struct bpf_map \*'; \
	grep -o 'obj->maps\.[a-z0-9_]*' $(1) | sort; }
$(OUTPUT)/kptrace_compat.skel.h $(ARM64_OUT)/kptrace_compat.skel.h: %/kptrace_compat.skel.h: \
		%/kptrace_compat.bpf.o %/kptrace.skel.h
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name kptrace_bpf > $@.full
	$(Q)$(call skel_layout,$@.full) > $@.layout && $(call skel_layout,$*/kptrace.skel.h) | \
		cmp -s - $@.layout || { echo "$@: the compat object's layout differs from" \
		"kptrace.bpf.o's (its skeleton: $@.full)"; exit 1; }
	$(Q)$(BPFTOOL) gen skeleton $< name kptrace_compat_bpf | \
		awk '/^static inline const void \*kptrace_compat_bpf__elf_bytes\(size_t \*sz\)$$/ { s = 1 } s; s && /^}$$/ { exit }' > $@
	$(Q)rm -f $@.full $@.layout

$(ARM64_OUT)/obj/%.o: src/%.c | $(ARM64_OUT)/kptrace.skel.h $(ARM64_OUT)/kptrace_compat.skel.h $(ARM64_SYSROOT)/.stamp
	$(call msg,CC-ARM64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(ARM64_CC) $(ARM64_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The embedded object's hash, for --version: each build its own object's
$(OUTPUT)/bpf_id.h $(ARM64_OUT)/bpf_id.h: %/bpf_id.h: %/kptrace.bpf.o
	$(call msg,GEN,$@)
	$(Q)printf '#define KPT_BPF_SHA256 "%s"\n' "$$(sha256sum < $< | cut -d' ' -f1)" > $@

# a clean tree's arm64 build makes them itself, not after an x86 build
$(ARM64_OUT)/obj/cmd/version.o: $(OUTPUT)/version.h $(ARM64_OUT)/bpf_id.h

$(ARM64_OUT)/kptrace: $(ARM64_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(ARM64_CC) $(ARM64_CFLAGS) $(LDFLAGS) $(ARM64_LDFLAGS) $^ $(LDLIBS) -o $@

kptrace-arm64: $(ARM64_OUT)/kptrace

# The arm64 VM tests: Debian's arm64 cloud kernels in qemu-system-aarch64 (TCG)
vm-test-arm64: kptrace-arm64
	$(Q)KPT_VM_ARCH=arm64 tests/vm/test.sh

# Install what is missing from Debian's packages (root), say what otherwise;
# no service starts as it installs (policy-rc.d): prometheus's would listen on
# every interface.
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing missing packages:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "run as root, or: apt-get install" $$missing >&2; exit 1; fi; \
		rc=/usr/sbin/policy-rc.d; own=; [ -e $$rc ] || { printf '#!/bin/sh\nexit 101\n' > $$rc; \
			chmod +x $$rc; own=1; }; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		st=$$?; [ -z "$$own" ] || rm -f $$rc; [ $$st = 0 ] || exit $$st; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_PKGS))

test-deps:
	$(call install_missing,$(TEST_PKGS))

# The default job: file opens with their flags and results, for five seconds,
# while a small workload opens a few files. Kprobes where the kernel has them;
# otherwise the same question asked of libc's open() through uprobes (this
# development VM has no CONFIG_KPROBES).
LIBC := $(firstword $(wildcard /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6))
RUN_KPROBE := 'p:open do_sys_openat2 dfd=%di:s32 path=+0(%si):string flags=+0(%dx):x64' \
	'r:open_ret do_sys_openat2 ret=$$retval:s64'
RUN_UPROBE := 'p:open $(LIBC):open path=+0(%di):ustring flags=%si:x32' \
	'r:open_ret $(LIBC):open ret=$$retval:s32'
RUN_WORKLOAD := (sleep 1; for f in /etc/hostname /etc/os-release /etc/passwd; do \
	cat $$f > /dev/null; done) &

run: deps
	$(Q)$(MAKE) --no-print-directory kptrace
	$(Q)if grep -qw register_kprobe /proc/kallsyms; then \
		$(RUN_WORKLOAD) ./kptrace -d 5 $(RUN_KPROBE); \
	else \
		echo "(no kprobes in this kernel: tracing libc's open() through uprobes)" >&2; \
		$(RUN_WORKLOAD) ./kptrace -d 5 $(RUN_UPROBE); \
	fi

# ---- install, deb ----------------------------------------------------------
INSTALLED = $(SBINDIR)/kptrace $(MANDIR)/man8/kptrace.8.gz $(MANDIR)/man5/kptrace-definitions.5.gz \
	$(COMPDIR)/kptrace $(SYSTEMDDIR)/kptrace.service $(DOCDIR)/examples/jobs.kpt

$(OUTPUT)/%.gz: docs/% | $(OUTPUT)
	$(call msg,GZIP,$@)
	$(Q)gzip -9n < $< > $@

# The unit's ExecStart names the binary where this install puts it.
install: kptrace $(OUTPUT)/kptrace.8.gz $(OUTPUT)/kptrace-definitions.5.gz
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(addprefix $(DESTDIR),$(SBINDIR) $(MANDIR)/man8 $(MANDIR)/man5 $(COMPDIR) \
		$(SYSTEMDDIR) $(DOCDIR)/examples)
	$(Q)install -m 0755 kptrace $(DESTDIR)$(SBINDIR)/kptrace
	$(Q)install -m 0644 $(OUTPUT)/kptrace.8.gz $(DESTDIR)$(MANDIR)/man8/kptrace.8.gz
	$(Q)install -m 0644 $(OUTPUT)/kptrace-definitions.5.gz \
		$(DESTDIR)$(MANDIR)/man5/kptrace-definitions.5.gz
	$(Q)install -m 0644 docs/kptrace.bash $(DESTDIR)$(COMPDIR)/kptrace
	$(Q)sed 's|^ExecStart=/usr/sbin/kptrace |ExecStart=$(SBINDIR)/kptrace |' docs/kptrace.service \
		> $(DESTDIR)$(SYSTEMDDIR)/kptrace.service
	$(Q)chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/kptrace.service
	$(Q)install -m 0644 docs/jobs.kpt $(DESTDIR)$(DOCDIR)/examples/jobs.kpt

uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# A native package of the static binary: no Depends. Stripped and with its
# copyright and changelog as Debian's policy asks; the lintian overrides
# are the static link's, which is the point (a bare initramfs, hosts without
# libbpf). DEB_MAINTAINER: the last commit's author unless given.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_MAINTAINER ?= $(or $(shell git log -1 --format='%an <%ae>' 2>/dev/null), \
	kptrace maintainers <root@localhost>)
DEB_ROOT = $(OUTPUT)/deb/root
DEB      = $(OUTPUT)/kptrace_$(DEB_VERSION)_$(DEB_ARCH).deb

deb: kptrace
	$(Q)rm -rf $(OUTPUT)/deb && mkdir -p $(DEB_ROOT)/DEBIAN
	$(Q)$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr \
		SYSTEMDDIR=/lib/systemd/system
	$(Q)strip --strip-unneeded --remove-section=.comment $(DEB_ROOT)/usr/sbin/kptrace
	$(Q)install -m 0644 docs/copyright $(DEB_ROOT)/usr/share/doc/kptrace/copyright
	$(Q)printf 'kptrace (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
		'$(DEB_VERSION)' '$(VERSION)' '$(DEB_MAINTAINER)' \
		"$$(date -R -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)})" \
		| gzip -9n > $(DEB_ROOT)/usr/share/doc/kptrace/changelog.gz
	$(Q)install -d $(DEB_ROOT)/usr/share/lintian/overrides
	$(Q)printf '%s\n' '# static on purpose: it runs in a bare initramfs and without libbpf' \
		'kptrace: statically-linked-binary [usr/sbin/kptrace]' \
		'# libbpf needs zlib; linked in for the same reason' \
		'kptrace: embedded-library zlib [usr/sbin/kptrace]' \
		> $(DEB_ROOT)/usr/share/lintian/overrides/kptrace
	$(Q)printf '%s\n' 'Package: kptrace' 'Version: $(DEB_VERSION)' 'Architecture: $(DEB_ARCH)' \
		'Maintainer: $(DEB_MAINTAINER)' 'Section: admin' \
		'Priority: optional' "Installed-Size: $$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)" \
		'Description: ftrace kprobe_events definitions run as BPF programs' \
		' kptrace takes probe definitions in the kernel'"'"'s kprobe_events and' \
		' uprobe_events grammar and runs them as CO-RE BPF programs, printing the' \
		' lines of the kernel'"'"'s trace buffer, histograms, latencies and counts.' \
		' One static binary with the BPF object embedded.' > $(DEB_ROOT)/DEBIAN/control
	$(Q)cd $(DEB_ROOT) && find usr lib -type f -exec md5sum {} + | sort -k2 > DEBIAN/md5sums
	$(call msg,DEB,$(DEB))
	$(Q)dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB) > /dev/null

TEST_BIN := $(OUTPUT)/tests

$(TEST_BIN):
	$(Q)mkdir -p $@

$(TEST_BIN)/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(LIB_OBJS) | $(TEST_BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) $(LDLIBS) -o $@

UNIT_TESTS := $(patsubst tests/unit/%.c,$(TEST_BIN)/%,$(wildcard tests/unit/test_*.c))

# The same unit tests under ASan + UBSan (dynamic: the sanitizers need it).
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_TESTS := $(patsubst tests/unit/%.c,$(TEST_BIN)/san/%,$(wildcard tests/unit/test_*.c))

# The library once under the sanitizers, linked into each test and kptrace-san:
# compiling every source again for each of them took most of make test's build.
SAN_OBJS := $(patsubst src/%.c,$(OUTPUT)/san/%.o,$(LIB_SRCS))

$(OUTPUT)/san/%.o: src/%.c | $(OUTPUT)/kptrace.skel.h $(OUTPUT)/kptrace_compat.skel.h
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c $< -o $@

$(TEST_BIN)/san/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(SAN_OBJS)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -Itests/unit $< $(SAN_OBJS) $(LIBS) -o $@

unit: $(UNIT_TESTS) $(SAN_TESTS)
	$(Q)tests/run-unit.sh $(UNIT_TESTS) $(SAN_TESTS)

host-test: kptrace
	$(Q)tests/host/run.sh

vm-test: kptrace
	$(Q)tests/vm/test.sh

# Not in make test: SOAK_KILLS (240) SIGKILLs at random moments in a VM
# (KPT_VM_KERNELS, default 6.12), then nothing of kptrace may remain.
soak: kptrace
	$(Q)tests/vm/soak.sh

# serve scraped each second, reloaded each minute: SOAK_SECONDS (1800)
soak-serve: kptrace
	$(Q)tests/host/soak-serve.sh

# kptrace itself under ASan+UBSan (dynamic: the sanitizers need it) for the host suites
$(OUTPUT)/kptrace-san: $(SAN_OBJS) $(OUTPUT)/san/main.o
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(SAN_OBJS) $(OUTPUT)/san/main.o $(LIBS) -o $@

# The build a core a job unless make was given -j: serial, a clean clone's
# build (unit, sanitizer, fuzz and arm64) was minutes of make test.
TEST_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc))
test: test-deps
	$(Q)$(MAKE) --no-print-directory $(TEST_JOBS) kptrace $(UNIT_TESTS) $(SAN_TESTS) \
		$(OUTPUT)/kptrace-san fuzz-build kptrace-arm64
	$(Q)tests/run-all.sh

# What -MMD wrote: each object's headers (none yet on a clean tree)
-include $(patsubst %.o,%.d,$(OUTPUT)/obj/main.o $(LIB_OBJS) $(OUTPUT)/san/main.o $(SAN_OBJS) \
	$(ARM64_OBJS))

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) kptrace

# ---------------------------------------------------------------------------
# bench: the benchmark harness (bench/README.md). Everything down to "end of
# bench" is the benchmark's own; it builds into $(OUTPUT)/bench only.
#
#   make bench     build kptrace and the bench programs, run every scenario
#                  side by side (the host's, then kprobes in qemu), print the
#                  table, write $(OUTPUT)/bench/results.json and results.svg
#   make bench-vm  the VM scenarios alone, into the last results.json
# ---------------------------------------------------------------------------
BENCH_OUT := $(OUTPUT)/bench
BENCH_BINS := $(BENCH_OUT)/workload $(BENCH_OUT)/baseline $(BENCH_OUT)/decoder

.PHONY: bench bench-build bench-vm

$(BENCH_OUT):
	$(Q)mkdir -p $@

# Whether sys/sdt.h is there, as a file of its own: a workload built before
# systemtap-sdt-dev was installed has no USDT probe, and the header keeps
# its package's old mtime, so only a change of this name rebuilds it.
SDT_STAMP := $(BENCH_OUT)/.sdt-$(if $(wildcard /usr/include/sys/sdt.h /usr/include/*/sys/sdt.h),yes,no)

$(SDT_STAMP): | $(BENCH_OUT)
	$(Q)rm -f $(BENCH_OUT)/.sdt-* && touch $@

# -no-pie: bench_fn's ELF address is what uprobe_events is given
$(BENCH_OUT)/workload: bench/workload.c $(SDT_STAMP) | $(BENCH_OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -no-pie -pthread $< -o $@

$(BENCH_OUT)/baseline.bpf.o: bench/baseline.bpf.c bench/baseline.h | $(BENCH_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibench -c $< -o $@

$(BENCH_OUT)/baseline.skel.h: $(BENCH_OUT)/baseline.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name baseline_bpf > $@

# static, like kptrace: the same start-up conditions
$(BENCH_OUT)/baseline: bench/baseline.c bench/baseline.h $(BENCH_OUT)/baseline.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BENCH_OUT) -Ibench $< $(LDLIBS) -o $@

# kptrace's own decoder, linked from its objects as the unit tests are
$(BENCH_OUT)/decoder: bench/decoder.c $(LIB_OBJS) | $(BENCH_OUT)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -o $@

# the VM scenarios' guest driver (bench/vm/): static, for the busybox initramfs
$(BENCH_OUT)/vmdrive: bench/vm/vmdrive.c | $(BENCH_OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -static $< -o $@

bench-build: kptrace $(BENCH_BINS) $(BENCH_OUT)/vmdrive

# Host scenarios, then the kprobe scenarios in qemu (bench/README.md, 5.);
# BENCH_VM=0 skips the VM part, BENCH_VM_KERNELS picks the kernels.
bench: kptrace $(BENCH_BINS) $(BENCH_OUT)/vmdrive
	$(Q)bench/run.sh

# The VM scenarios alone (their results merged into results.json)
bench-vm: kptrace $(BENCH_BINS) $(BENCH_OUT)/vmdrive
	$(Q)bench/run.sh --only vm
# ---- end of bench ---------------------------------------------------------

# ---------------------------------------------------------------------------
# fuzz: libFuzzer harnesses (tests/fuzz/). Everything below is the fuzzers'
# own; it builds into $(OUTPUT)/fuzz and changes nothing above.
#
#   make fuzz         each harness for FUZZ_SECONDS (default 300) seconds
#   make fuzz-smoke   each harness for 10 s, as make test runs them; fails on any crash
#
# Both run tests/fuzz/run.sh on a copy of tests/fuzz/corpus in
# $(OUTPUT)/fuzz (the committed corpus is never grown) and end with
# "N passed, N failed", one per harness. Needs clang's libFuzzer and
# sanitizer runtimes: on Debian 12, clang + libclang-rt-14-dev.
# ---------------------------------------------------------------------------
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_OUT     := $(OUTPUT)/fuzz
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -std=gnu11 -Wall -Wextra -Werror -Iinclude -Isrc \
	-I$(OUTPUT) -D_GNU_SOURCE
FUZZ_HDRS    := tests/fuzz/fuzz_common.h tests/unit/ev_layout.h $(wildcard src/*/*.h) $(wildcard include/*.h)

# What each harness links: the stage it fuzzes and what that stage calls.
FUZZ_SRCS_spec   := src/lang/spec.c src/lang/types.c
FUZZ_SRCS_filter := src/prepare/filter.c src/lang/spec.c src/lang/types.c src/lang/valfmt.c
FUZZ_SRCS_decode := src/out/decode.c src/out/output_text.c src/out/output_json.c src/out/nspid.c \
	src/util/json.c src/util/fmt.c \
	src/sys/ksyms.c src/lang/valfmt.c src/out/umaps.c src/sys/procmaps.c src/lang/spec.c src/lang/types.c \
	src/out/stackout.c src/sys/usym.c src/sys/elf.c src/out/tpprint.c src/sys/tracepoint.c src/util/suggest.c \
	src/out/outtime.c src/util/htab.c src/util/demangle.c src/sys/dwline.c \
	src/sys/perfmap.c src/sys/debuginfod.c src/sys/debugfile.c src/out/structfmt.c src/sys/btfwalk.c
FUZZ_SRCS_jobs   := src/serve/jobs.c
FUZZ_SRCS_http   := src/serve/http.c
FUZZ_SRCS_elf    := src/sys/elf.c src/sys/usym.c src/sys/procmaps.c src/util/htab.c src/util/demangle.c \
	src/sys/dwline.c src/sys/perfmap.c src/sys/debuginfod.c src/sys/debugfile.c
FUZZ_SRCS_diff   := $(wildcard src/diff/*.c) src/util/svg.c src/util/table.c src/agg/hist.c \
	src/util/htab.c
FUZZ_SRCS_usdt   := src/sys/usdt.c src/sys/elf.c src/lang/spec.c src/lang/types.c
FUZZ_SRCS_ehframe := src/sys/ehframe.c src/sys/elf.c
FUZZ_BINS := $(FUZZ_OUT)/bin/fuzz_spec $(FUZZ_OUT)/bin/fuzz_filter $(FUZZ_OUT)/bin/fuzz_decode \
	$(FUZZ_OUT)/bin/fuzz_jobs $(FUZZ_OUT)/bin/fuzz_http $(FUZZ_OUT)/bin/fuzz_usdt \
	$(FUZZ_OUT)/bin/fuzz_elf $(FUZZ_OUT)/bin/fuzz_diff $(FUZZ_OUT)/bin/fuzz_ehframe

.PHONY: fuzz fuzz-smoke fuzz-build

$(FUZZ_OUT)/bin/fuzz_spec: tests/fuzz/fuzz_spec.c $(FUZZ_SRCS_spec) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_spec) -o $@

$(FUZZ_OUT)/bin/fuzz_filter: tests/fuzz/fuzz_filter.c $(FUZZ_SRCS_filter) $(FUZZ_HDRS) \
		bpf/filter.bpf.h bpf/scratch.bpf.h
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_filter) -o $@

$(FUZZ_OUT)/bin/fuzz_decode: tests/fuzz/fuzz_decode.c $(FUZZ_SRCS_decode) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_decode) -lbpf -ltraceevent -ldw -lelf -lz -llzma -lbz2 -lzstd -liberty -o $@

$(FUZZ_OUT)/bin/fuzz_jobs: tests/fuzz/fuzz_jobs.c $(FUZZ_SRCS_jobs) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_jobs) -o $@

$(FUZZ_OUT)/bin/fuzz_http: tests/fuzz/fuzz_http.c $(FUZZ_SRCS_http) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_http) -o $@

$(FUZZ_OUT)/bin/fuzz_usdt: tests/fuzz/fuzz_usdt.c $(FUZZ_SRCS_usdt) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_usdt) -lelf -lz -o $@

$(FUZZ_OUT)/bin/fuzz_ehframe: tests/fuzz/fuzz_ehframe.c $(FUZZ_SRCS_ehframe) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_ehframe) -lelf -lz -o $@

$(FUZZ_OUT)/bin/fuzz_elf: tests/fuzz/fuzz_elf.c $(FUZZ_SRCS_elf) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_elf) -ldw -lelf -lz -llzma -lbz2 -lzstd -liberty -o $@

$(FUZZ_OUT)/bin/fuzz_diff: tests/fuzz/fuzz_diff.c $(FUZZ_SRCS_diff) $(FUZZ_HDRS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_diff) -ljansson -lm -o $@

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	$(Q)tests/fuzz/run.sh 10
# ---- end of fuzz ----------------------------------------------------------

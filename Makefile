# irqlab: non-recursive build.  Kbuild says what each program is made of.
#
#   make            build/irqlab-vmm, build/kernel/irqlab.elf, irqlab32.elf,
#                   irqlab-pvh.elf
#   make run        build, boot the kernel on 2 vCPUs in irqlab-vmm, print its
#                   records (calibration, SMP, IPI check, 3 benchmark cases)
#                   and the exit table
#   make run-nested the same on nested KVM (no /dev/kvm needed)
#   make iso        build/irqlab.iso: GRUB 2 for BIOS and UEFI, the kernel
#                   and kernel/boot/grub.cfg (grub-pc-bin, grub-efi-amd64-bin,
#                   xorriso, mtools)
#   make test       install test dependencies if needed, run every test
#   make labs       the lab course (docs/labs/README.md): the labs;
#                   make lab LAB=NAME DIR=PATH [SOLUTION=1]: a student tree;
#                   make grade (in it; LAB=NAME elsewhere): the points
#   make install    irqlab-vmm, irqlab-vmm(1) and the kernel images under
#                   $(DESTDIR)$(PREFIX) (default /usr/local); make uninstall
#   make bench-pir  the PIR-fold microbenchmark
#   make bench-calib  calibration from CPUID against the PIT, 50 boots each
#   make bench      the guest-bench matrix (QUICK=1: a short run)
#   make bench-boot irqlab-vmm's boot against QEMU's, on nested KVM
#   make bench-grub boot-to-@ready: irqlab-vmm, QEMU -kernel, GRUB on
#                   SeaBIOS and OVMF (make iso's tools, ovmf)
#   make linux-guest  build/linux-guest/: Debian's kernel and an initramfs
#                   running perf bench futex wake (apt-get download)
#   make bench-linux  perf bench futex wake -t 1 in a Linux guest: native,
#                   irqlab-vmm, QEMU TCG, QEMU/KVM (docs/LINUX.md)
#   make fuzz       the libFuzzer harnesses (tests/fuzz/), FUZZ_SECONDS each
#                   (default 60); FUZZ=name runs one (docs/FUZZING.md)
#   make clean
#   make SAN=1 B=build/san build/san/irqlab-vmm   irqlab-vmm with ASan and UBSan
#   make TSAN=1 B=build/tsan build/tsan/irqlab-vmm irqlab-vmm with ThreadSanitizer
#   make tsan-storm the IPI storm (8 vCPUs, 1M IPIs, timers) under that build

B	:= build
include Kbuild

CC	?= gcc
# Debian's python3 (python3-matplotlib, python3-pytest), not a pyenv's
PYTHON	?= /usr/bin/python3
LD	:= ld
OBJCOPY	:= objcopy

WARN	:= -Wall -Wextra -Werror
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -MMD -MP -pthread
HOST_INC := -Iinclude -Ivmm
HOST_LDFLAGS := -pthread
# make SAN=1 B=build/san build/san/irqlab-vmm: AddressSanitizer and
# UBSan, for tests/integration/test_vmm_fuzz.py
ifdef SAN
HOST_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
HOST_LDFLAGS += -fsanitize=address,undefined
endif
# make TSAN=1 B=build/tsan build/tsan/irqlab-vmm: ThreadSanitizer (gcc's
# libtsan), for the IPI storm (tests/integration/test_tsan_storm.py);
# tests/tsan.supp holds the reports judged benign, each with its reason
ifdef TSAN
HOST_CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
HOST_LDFLAGS += -fsanitize=thread
endif

# The kernel: freestanding, no red zone (interrupts push onto the stack),
# no SSE (the kernel saves no FPU state), identity-mapped below 2 GiB.
KERN_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -Ikernel -ffreestanding \
	-fno-stack-protector -fno-pic -fno-pie -mno-red-zone \
	-mgeneral-regs-only -mcmodel=small -fno-asynchronous-unwind-tables \
	-fno-omit-frame-pointer -MMD -MP
KERN_LDFLAGS := -m elf_x86_64 -nostdlib -static -no-pie -z max-page-size=0x1000 \
	-T kernel/kernel.ld

host	= $(addprefix $(B)/host/,$(1))
guest	= $(addprefix $(B)/guest/,$(1))

VMM		:= $(B)/irqlab-vmm
KERNEL		:= $(B)/kernel/irqlab.elf
KERNEL32	:= $(B)/kernel/irqlab32.elf
KERNEL_PVH	:= $(B)/kernel/irqlab-pvh.elf
UNIT		:= $(B)/tests/unit

VMM_CORE_OBJS	:= $(call host,$(vmm-core-y))
VMM_OBJS	:= $(call host,$(vmm-y)) $(VMM_CORE_OBJS)
KERNEL_OBJS	:= $(call guest,$(kernel-y) $(calib-y))
UNIT_OBJS	:= $(call host,$(tests-unit-y) $(calib-y)) $(VMM_CORE_OBJS)

VERSION	:= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# make install: $(DESTDIR)$(PREFIX)/bin, share/irqlab, share/man/man1
PREFIX	?= /usr/local
DESTDIR	?=
BINDIR	:= $(PREFIX)/bin
DATADIR	:= $(PREFIX)/share/irqlab
MAN1DIR	:= $(PREFIX)/share/man/man1

.PHONY: all run run-nested iso man install uninstall labs lab lab-refs grade conformance test unit integration fuzz fuzz-probe bench-pir bench-calib bench anatomy bench-boot bench-grub linux-guest bench-linux tsan-storm clean FORCE
all: $(VMM) $(KERNEL) $(KERNEL32) $(KERNEL_PVH)

$(VMM): $(VMM_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -lseccomp

# The version both programs print, and where make install puts the
# kernel (irqlab-vmm's default KERNEL); the header changes (and they
# rebuild) only when the git revision or PREFIX does.
$(B)/version.h: FORCE
	@mkdir -p $(B)
	@{ echo '#define IRQLAB_VERSION_STR "$(VERSION)"'; \
	   echo '#define IRQLAB_DATADIR "$(DATADIR)"'; } >$@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
$(B)/host/vmm/cli.o $(B)/guest/kernel/main.o: $(B)/version.h
$(B)/host/vmm/cli.o: HOST_CFLAGS += -include $(B)/version.h
$(B)/guest/kernel/main.o: KERN_CFLAGS += -include $(B)/version.h

$(KERNEL): $(KERNEL_OBJS) kernel/kernel.ld
	@mkdir -p $(dir $@)
	$(LD) $(KERN_LDFLAGS) -o $@ $(KERNEL_OBJS)

# QEMU's -kernel loads only ELF32 multiboot images: the same bytes, 32-bit headers.
$(KERNEL32): $(KERNEL)
	$(OBJCOPY) -O elf32-i386 $< $@

# The PVH entry alone (docs/HYPERVISORS.md): QEMU's -kernel takes the
# multiboot header first and refuses it in an ELF64, so this one has none.
$(KERNEL_PVH): $(filter-out %/header.o,$(KERNEL_OBJS)) kernel/kernel.ld
	$(LD) $(KERN_LDFLAGS) -o $@ $(filter %.o,$^)

# One image for BIOS and UEFI: docs/BOOT.md.
ISO		:= $(B)/irqlab.iso
iso: $(ISO)
$(ISO): $(KERNEL) kernel/boot/grub.cfg scripts/mkiso
	scripts/mkiso $(KERNEL) $@

$(UNIT): $(UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -lcriterion -lm

PIR_BENCH	:= $(B)/pir-bench
$(PIR_BENCH): $(call host,$(bench-pir-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^

bench-pir: $(PIR_BENCH)
	$(PYTHON) guest-bench/pir-bench $(PIR_BENCH)

# make anatomy: the timeline hook's cost on irqlab-vmm's hot path
TL_BENCH	:= $(B)/tl-bench
$(TL_BENCH): $(call host,$(tl-bench-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^

# $(call via_rig,TARGET,WHAT,COMMAND): COMMAND, with --rig where there is
# no usable /dev/kvm (saying so) or with RIG=1; RIG=0 refuses to go there
define via_rig
@rig=$(if $(filter 1,$(RIG)),--rig); \
if [ -z "$$rig" ] && ! { $(KVM_USABLE); }; then \
	if [ "$(RIG)" = 0 ]; then \
		echo "make $(1): no usable /dev/kvm here, and RIG=0" \
			"keeps $(2) out of the nested rig" >&2; exit 2; fi; \
	scripts/build-deps.sh --rig; \
	echo "note: no usable /dev/kvm here: $(2) in the nested rig" \
		"(RIG=0 refuses)" >&2; \
	rig=--rig; fi; \
echo "$(3) $$rig"; \
$(3) $$rig
endef

# docs/CALIB.md: boot-to-ready, calib exits and accuracy, cpuid against
# pit, written to docs/results/HOST-DATE-calib.md (CALIB_ARGS: -n, -q,
# -c, --no-qemu: then no file); in the nested rig where /dev/kvm is missing
bench-calib: all
	$(call via_rig,bench-calib,irqlab-vmm,$(PYTHON) guest-bench/calib-bench.py $(CALIB_ARGS))

# The host runner: docs/BENCHMARKS.md "Host runner" (guest-bench/runner/).
NATIVE_FUTEX	:= $(B)/native-futex
$(NATIVE_FUTEX): $(call host,$(native-futex-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^

# make bench: every config, full; make bench QUICK=1: small iters, < 2 min.
# Without a usable /dev/kvm the KVM configs run in the nested rig by
# themselves, as make run does, and it says so; RIG=1 puts them there on
# any host, RIG=0 refuses to go there.
bench: all $(NATIVE_FUTEX)
	$(call via_rig,bench,the KVM configs (irqlab-vmm and QEMU/KVM),$(PYTHON) guest-bench/run $(if $(QUICK),--quick))

# docs/ANATOMY.md: ipi_wake and ipi_pingpong with --timeline under each
# irqchip, APIC mode and latency knob, the phases side by side, written to
# docs/results/HOST-DATE-anatomy.md (QUICK=1: fewer, smaller, not
# written).  Without a usable /dev/kvm it runs in the nested rig, as make
# bench does, and says so; RIG=1 puts it there anyway, RIG=0 refuses.
anatomy: all $(TL_BENCH)
	$(call via_rig,anatomy,irqlab-vmm,$(PYTHON) guest-bench/anatomy --run $(if $(QUICK),--quick))

# docs/CONFORMANCE.md: every check step under every configuration here
# (irqlab-vmm's three irqchips x two APIC modes, QEMU TCG and KVM, Bochs);
# CONFORMANCE_ARGS: -c LIST, --log FILE, --no-rig (guest-bench/conformance -h)
conformance: all
	@scripts/build-deps.sh --conformance $(if $(wildcard /dev/kvm),,--rig)
	$(PYTHON) guest-bench/conformance $(CONFORMANCE_ARGS)

# docs/BENCHMARKS.md "Boot: irqlab-vmm against QEMU with KVM": it builds
# the revision it measures itself (BOOT_BENCH_ARGS: -r RUNS, -R REV)
bench-boot:
	$(PYTHON) guest-bench/boot-bench $(BOOT_BENCH_ARGS)

# docs/BENCHMARKS.md "Boot paths": irqlab-vmm, QEMU -kernel, GRUB on
# SeaBIOS and OVMF (GRUB_BENCH_ARGS: -r RUNS, --kvm-firmware)
bench-grub: all
	$(PYTHON) guest-bench/grub-bench $(GRUB_BENCH_ARGS)

# docs/LINUX.md: Debian's kernel, busybox and perf, fetched with apt-get
# download (nothing installed), and the initramfs; up to date, it only
# repacks the initramfs
linux-guest:
	guest-bench/linux/make-guest.sh

# docs/LINUX.md: perf bench futex wake -t 1 in ms, native, irqlab-vmm
# (directly or in the nested rig), QEMU TCG and QEMU/KVM; boot to /init
# (LINUX_BENCH_ARGS: --help).  Without a usable /dev/kvm the irqlab-vmm
# rows go to the nested rig by themselves and it says so; RIG=1 puts them
# there anyway, RIG=0 refuses.
bench-linux: all
	@rig=$(if $(filter 1,$(RIG)),--irqlab nested); \
	if [ -z "$$rig" ] && ! { $(KVM_USABLE); }; then \
		if [ "$(RIG)" = 0 ]; then \
			echo "make bench-linux: no usable /dev/kvm here, and" \
				"RIG=0 keeps irqlab-vmm out of the nested rig" >&2; \
			exit 2; fi; \
		echo "note: no usable /dev/kvm here: the irqlab-vmm rows run" \
			"in the nested rig (RIG=0 refuses)" >&2; \
		rig="--irqlab nested"; fi; \
	$(MAKE) --no-print-directory linux-guest && \
	echo "$(PYTHON) guest-bench/linux-bench $$rig $(LINUX_BENCH_ARGS)" && \
	$(PYTHON) guest-bench/linux-bench $$rig $(LINUX_BENCH_ARGS)

# vmm/'s layers (docs/ARCHITECTURE.md) as build rules.  Only vmm/kvm/ may
# call ioctl(): every other object of vmm/ has it poisoned (vmm/poison.h).
# The pure folders (Kbuild: vmm-pure-dirs) also lose vmm/ from their
# include path: they see include/ and one another (links in $(PURE_INC)),
# not vm.h or kvm/, and a <linux/kvm.h> or <asm/kvm.h> there is an error.
PURE_INC := $(B)/pure-include
$(B)/host/vmm/%.o: VMM_FLAGS = -include vmm/poison.h
$(B)/host/vmm/kvm/%.o: VMM_FLAGS =
$(addprefix $(B)/host/,$(addsuffix /%.o,$(vmm-pure-dirs))): \
	HOST_INC = -Iinclude -I$(PURE_INC)
# The kernel's host-tested files (mbinfo, acpi, cmdline, haltpoll) see
# include/ and kernel/ as the kernel does (its layer/name.h), not vmm/
$(B)/host/kernel/%.o: HOST_INC = -Iinclude -Ikernel

$(PURE_INC)/linux/kvm.h: Kbuild
	@rm -rf $(PURE_INC)
	@mkdir -p $(PURE_INC)/linux $(PURE_INC)/asm
	@for d in $(vmm-pure-dirs); do \
		ln -s $(CURDIR)/$$d $(PURE_INC)/$${d#vmm/}; done
	@for h in asm/kvm.h linux/kvm.h; do \
		echo "#error \"<$$h> in a pure folder of vmm/: no KVM here\"" \
			>$(PURE_INC)/$$h; done

$(B)/host/%.o: %.c | $(PURE_INC)/linux/kvm.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_INC) $(VMM_FLAGS) -c $< -o $@

$(B)/guest/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERN_CFLAGS) -c $< -o $@

$(B)/guest/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERN_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

# The IPI storm under ThreadSanitizer (docs/LAPIC.md "The IPI storm"):
# 8 vCPUs, ipi_k=8334 (1,000,080 IPIs), x2APIC then xAPIC, each with no
# TSan report and exact counts; without /dev/kvm in the nested rig, with
# ipi_k=200, said so; written to docs/results/HOST-DATE-tsanstorm.md.
# STORM_ARGS: scripts/tsan-storm's options (-k N, --apic xapic, --rig).
TSAN_B	:= build/tsan
tsan-storm: $(KERNEL)
	$(MAKE) --no-print-directory TSAN=1 B=$(TSAN_B) $(TSAN_B)/irqlab-vmm
	scripts/tsan-storm $(TSAN_B)/irqlab-vmm $(KERNEL) $(STORM_ARGS)

# Two vCPUs: calibration, SMP, the IPI check and three short benchmark
# cases, then the exit table.  Without a usable /dev/kvm, it falls back
# to run-nested below.
RUN_ARGS := --cpus 2 --stats -a "check=ipi bench=ipi_pingpong,ipi_wake,exit_cost.pio iters=200"
KVM_USABLE := [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]

run:
	@if $(KVM_USABLE); then scripts/build-deps.sh; \
	else scripts/build-deps.sh --rig; fi
	@$(MAKE) --no-print-directory all
	@if $(KVM_USABLE); then \
		echo '$(VMM) $(RUN_ARGS) $(KERNEL)'; $(VMM) $(RUN_ARGS) $(KERNEL); \
	else \
		echo "note: no usable /dev/kvm here: booting irqlab-vmm on" \
			"nested KVM under QEMU TCG (make run-nested)" >&2; \
		echo 'tests/nested/run-in-kvm.sh -t 300 -- $(RUN_ARGS) $(KERNEL)'; \
		tests/nested/run-in-kvm.sh -t 300 -- $(RUN_ARGS) $(KERNEL); \
	fi

# The same boot, inside a Linux guest under QEMU TCG with emulated SVM
# (two guest CPUs), for hosts without /dev/kvm (tests/nested/README.md).
run-nested:
	@scripts/build-deps.sh --rig
	@$(MAKE) --no-print-directory all
	tests/nested/run-in-kvm.sh -t 300 -- $(RUN_ARGS) $(KERNEL)

# irqlab-vmm(1), from its --help and --version (help2man) and
# docs/irqlab-vmm.h2m: the page cannot drift from the program.
MAN	:= $(B)/irqlab-vmm.1
man: $(MAN)
$(MAN): $(VMM) docs/irqlab-vmm.h2m
	@command -v help2man >/dev/null || scripts/build-deps.sh --man
	sed 's|@DATADIR@|$(DATADIR)|g' docs/irqlab-vmm.h2m >$(B)/irqlab-vmm.h2m
	help2man --no-info --section 1 --include $(B)/irqlab-vmm.h2m \
		--name 'a small KVM monitor that emulates the interrupt controllers and counts every VM exit' \
		--output $@.tmp $(VMM) && mv $@.tmp $@

# make install PREFIX=/usr/local DESTDIR=: irqlab-vmm, its man page, the
# kernel images (and build/irqlab.iso, if make iso made it) in
# share/irqlab, where irqlab-vmm looks when given no KERNEL
install: all $(MAN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MAN1DIR)
	install -m 755 $(VMM) $(DESTDIR)$(BINDIR)/irqlab-vmm
	install -m 644 $(KERNEL) $(KERNEL32) $(KERNEL_PVH) $(DESTDIR)$(DATADIR)/
	if [ -f $(ISO) ]; then install -m 644 $(ISO) $(DESTDIR)$(DATADIR)/; fi
	install -m 644 $(MAN) $(DESTDIR)$(MAN1DIR)/irqlab-vmm.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/irqlab-vmm $(DESTDIR)$(MAN1DIR)/irqlab-vmm.1 \
		$(addprefix $(DESTDIR)$(DATADIR)/,$(notdir $(KERNEL) $(KERNEL32) $(KERNEL_PVH) $(ISO)))
	-rmdir $(DESTDIR)$(DATADIR)

# Every test: the unit tests (Criterion), then the integration tests
# (pytest: boots under irqlab-vmm and QEMU), then both summaries; it fails
# if either failed.  The dependencies first: irqlab-vmm links libseccomp.
# The course: docs/labs/README.md (labs/lab.py, labs/catalog.toml)
labs:
	@$(PYTHON) labs/lab.py list

lab:
	@if [ -z "$(LAB)" ] || [ -z "$(DIR)" ]; then \
		echo "usage: make lab LAB=NAME DIR=PATH [SOLUTION=1]" \
			"(make labs lists the labs)" >&2; exit 2; fi
	@$(PYTHON) labs/lab.py make $(LAB) $(DIR) $(if $(SOLUTION),--solution)

# in a student tree: the diff, answers-LAB.md and the grade, one tarball
handin:
	@$(PYTHON) labs/lab.py handin

# docs/labs/README.md "Reference numbers": each handout's measurement, 5
# runs, median and range, into docs/results/HOST-DATE-labrefs.md (the
# nested rig where /dev/kvm is missing, as make grade does)
lab-refs: all $(PIR_BENCH)
	@if $(KVM_USABLE); then scripts/build-deps.sh --grade; \
	else scripts/build-deps.sh --grade --rig; fi
	@$(PYTHON) labs/lab.py refs

grade:
	@if $(KVM_USABLE); then scripts/build-deps.sh --grade; \
	else scripts/build-deps.sh --grade --rig; fi
	@$(PYTHON) labs/lab.py grade $(LAB)

test:
	@PYTHON=$(PYTHON) scripts/test-deps.sh
	@$(MAKE) --no-print-directory all
	@rm -f $(UNIT).log $(B)/tests/runner.log $(B)/tests/integration.summary \
		$(B)/fuzz/summary; rc=0; \
	$(MAKE) --no-print-directory unit || rc=1; \
	$(MAKE) --no-print-directory integration || rc=1; \
	$(MAKE) --no-print-directory fuzz FUZZ= \
		FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) FUZZ_DOC=--no-doc || rc=1; \
	echo "unit (Criterion): $$(sed -n 's/^\[====\] Synthesis: //p' \
		$(UNIT).log 2>/dev/null)"; \
	echo "unit (pytest, tests/runner): $$(tail -n 1 $(B)/tests/runner.log \
		2>/dev/null)"; \
	cat $(B)/tests/integration.summary 2>/dev/null || \
		echo "integration (pytest): did not run"; \
	cat $(B)/fuzz/summary 2>/dev/null || \
		echo "fuzz (libFuzzer): did not run"; \
	exit $$rc

# Criterion, then the host runner's pytest tests (tests/runner/)
unit: $(UNIT)
	@scripts/run-unit.sh $(UNIT)
	@$(PYTHON) -m pytest -q tests/runner >$(B)/tests/runner.log 2>&1; \
		rc=$$?; cat $(B)/tests/runner.log; exit $$rc

# Coverage-guided fuzzing (docs/FUZZING.md).  Each tests/fuzz/fuzz_<name>.c
# links what Kbuild's fuzz-<name>-y lists, all built again by clang with
# libFuzzer's coverage, ASan and UBSan into $(B)/fuzz/obj/ (the same include
# paths and ioctl poison as the host build).  tests/fuzz/run.py first
# replays tests/fuzz/regress/<name>/, then fuzzes for FUZZ_SECONDS on a copy
# of tests/fuzz/corpus/<name>/ in $(B)/fuzz/corpus/<name>/, prints a table
# and fails on any crash, naming the reproducer.  make test: 10 s each;
# a full make fuzz (every harness, 60 s or more) writes docs/results/.
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
FUZZ_TEST_SECONDS ?= 10
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS	:= -std=gnu11 -O1 -g $(WARN) -D_GNU_SOURCE -MMD -MP \
	-fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_LDFLAGS	:= -fsanitize=fuzzer $(FUZZ_SAN)
FUZZ_OBJ	:= $(B)/fuzz/obj
FUZZ_ALL	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES	:= $(if $(FUZZ),$(FUZZ),$(FUZZ_ALL))

define fuzz_link
$(B)/fuzz/fuzz_$(1): $(FUZZ_OBJ)/tests/fuzz/fuzz_$(1).o \
		$(addprefix $(FUZZ_OBJ)/,$(fuzz-$(1)-y))
	$$(FUZZ_CC) $$(FUZZ_LDFLAGS) -o $$@ $$^
endef
$(foreach n,$(FUZZ_ALL),$(eval $(call fuzz_link,$(n))))

$(FUZZ_OBJ)/vmm/%.o: VMM_FLAGS = -include vmm/poison.h
$(FUZZ_OBJ)/vmm/kvm/%.o: VMM_FLAGS =
$(addprefix $(FUZZ_OBJ)/,$(addsuffix /%.o,$(vmm-pure-dirs))): \
	HOST_INC = -Iinclude -I$(PURE_INC)
$(FUZZ_OBJ)/kernel/%.o: HOST_INC = -Iinclude -Ikernel

$(FUZZ_OBJ)/%.o: %.c | $(PURE_INC)/linux/kvm.h fuzz-probe
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(HOST_INC) $(VMM_FLAGS) -c $< -o $@

# Without clang or libFuzzer's runtime, say what to install, and fail.
fuzz-probe:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 && \
	test -f "$$($(FUZZ_CC) -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" || \
		{ echo "make fuzz needs $(FUZZ_CC) with libFuzzer: apt-get install" \
			"clang libclang-rt-14-dev (scripts/test-deps.sh does)" >&2; \
		exit 1; }

fuzz: $(addprefix $(B)/fuzz/fuzz_,$(FUZZ_NAMES))
	@$(PYTHON) tests/fuzz/run.py --build $(B)/fuzz \
		--seconds $(FUZZ_SECONDS) $(FUZZ_DOC) $(FUZZ_NAMES)

# tests/integration/test_*.py; one case: make integration PYTEST_ARGS='-k smp'
integration: all $(NATIVE_FUTEX)
	$(PYTHON) -m pytest tests/integration -rsx --durations=10 $(PYTEST_ARGS)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)

# irqlab: non-recursive build.  Kbuild says what each program is made of.
#
#   make            build/irqlab-vmm, build/kernel/irqlab.elf, irqlab32.elf
#   make run        build, boot the kernel on 2 vCPUs in irqlab-vmm, print its
#                   records (calibration, SMP, IPI check, 3 benchmark cases)
#                   and the exit table
#   make run-nested the same on nested KVM (no /dev/kvm needed)
#   make test       install test dependencies if needed, run every test
#   make bench-pir  the PIR-fold microbenchmark
#   make bench-calib  calibration from CPUID against the PIT, 50 boots each
#   make bench      the guest-bench matrix (QUICK=1: a short run)
#   make clean
#   make SAN=1 B=build/san build/san/irqlab-vmm   irqlab-vmm with ASan and UBSan

B	:= build
include Kbuild

CC	?= gcc
# Debian's python3, which has python3-pytest (scripts/test-deps.sh)
PYTHON	?= /usr/bin/python3
LD	:= ld
OBJCOPY	:= objcopy

WARN	:= -Wall -Wextra -Werror
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -Ivmm -D_GNU_SOURCE \
	-MMD -MP -pthread
HOST_LDFLAGS := -pthread
# make SAN=1 B=build/san build/san/irqlab-vmm: AddressSanitizer and
# UBSan, for tests/integration/test_vmm_fuzz.py
ifdef SAN
HOST_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
HOST_LDFLAGS += -fsanitize=address,undefined
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
UNIT		:= $(B)/tests/unit

VMM_CORE_OBJS	:= $(call host,$(vmm-core-y))
VMM_OBJS	:= $(call host,$(vmm-y)) $(VMM_CORE_OBJS)
KERNEL_OBJS	:= $(call guest,$(kernel-y) $(calib-y))
UNIT_OBJS	:= $(call host,$(tests-unit-y) $(calib-y)) $(VMM_CORE_OBJS)

VERSION	:= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: all run run-nested test unit integration bench-pir bench-calib bench clean FORCE
all: $(VMM) $(KERNEL) $(KERNEL32)

$(VMM): $(VMM_OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $^

# The version both programs print; the header changes (and they rebuild)
# only when the git revision does.
$(B)/version.h: FORCE
	@mkdir -p $(B)
	@echo '#define IRQLAB_VERSION_STR "$(VERSION)"' >$@.tmp
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

$(UNIT): $(UNIT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -lcriterion -lm

PIR_BENCH	:= $(B)/pir-bench
$(PIR_BENCH): $(call host,$(bench-pir-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^

bench-pir: $(PIR_BENCH)
	$(PIR_BENCH)

# docs/CALIB.md: boot-to-ready, calib exits and accuracy, cpuid against pit
bench-calib: all
	guest-bench/calib-bench.py

# The host runner (issue 6): docs/BENCHMARKS.md "Host runner".
BENCH_REPORT	:= $(B)/bench-report
NATIVE_FUTEX	:= $(B)/native-futex
$(BENCH_REPORT): $(call host,$(bench-report-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -lm
$(NATIVE_FUTEX): $(call host,$(native-futex-y))
	$(CC) $(HOST_LDFLAGS) -o $@ $^ -lm

# make bench: every config, full; make bench QUICK=1: small iters, < 2 min
bench: all $(BENCH_REPORT) $(NATIVE_FUTEX)
	guest-bench/run $(if $(QUICK),--quick)

$(B)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(B)/guest/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERN_CFLAGS) -c $< -o $@

$(B)/guest/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERN_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

# Two vCPUs: calibration, SMP, the IPI check and three short benchmark
# cases, then the exit table.  Without a usable /dev/kvm, it falls back
# to run-nested below.
RUN_ARGS := --cpus 2 --stats -a "check=ipi bench=ipi_pingpong,ipi_wake,exit_cost.pio iters=200"
run: all
	@if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then \
		echo '$(VMM) $(RUN_ARGS) $(KERNEL)'; $(VMM) $(RUN_ARGS) $(KERNEL); \
	else \
		echo "note: no usable /dev/kvm here: booting irqlab-vmm on" \
			"nested KVM under QEMU TCG (make run-nested)" >&2; \
		tests/nested/run-in-kvm.sh -- --stats $(KERNEL); \
	fi

# The same, inside a Linux guest under QEMU TCG with emulated SVM, for
# hosts without /dev/kvm (tests/nested/README.md).
run-nested: all
	tests/nested/run-in-kvm.sh -- --stats $(KERNEL)

# Every test: the unit tests (Criterion), then the integration tests
# (pytest: boots under irqlab-vmm and QEMU), then both summaries; it fails
# if either failed.
test: all
	@PYTHON=$(PYTHON) scripts/test-deps.sh
	@rm -f $(UNIT).log $(B)/tests/integration.summary; rc=0; \
	$(MAKE) --no-print-directory unit || rc=1; \
	$(MAKE) --no-print-directory integration || rc=1; \
	echo "unit (Criterion): $$(sed -n 's/^\[====\] Synthesis: //p' \
		$(UNIT).log 2>/dev/null)"; \
	cat $(B)/tests/integration.summary 2>/dev/null || \
		echo "integration (pytest): did not run"; \
	exit $$rc

unit: $(UNIT)
	@scripts/run-unit.sh $(UNIT)

# tests/integration/test_*.py; one case: make integration PYTEST_ARGS='-k smp'
integration: all $(BENCH_REPORT) $(NATIVE_FUTEX)
	$(PYTHON) -m pytest tests/integration -rsx --durations=10 $(PYTEST_ARGS)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

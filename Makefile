# Vernier top-level Makefile.
#
#   make          build build/vernier.iso (and the self-test ISO)
#   make run      set up, build, boot in QEMU with the serial console here
#   make check    set up, build, run every test (TAP through prove)
#   make check-qemu7  ktest and the profiling ground truths on the old QEMU
#   make debug    boot QEMU stopped with a gdb stub; gdb -x build/gdbinit
#   make bochs    boot the ISO in Bochs with 2 CPUs
#   make fuzz     run the syscall fuzzer (SEED= CALLS= CPUS=); make failinj
#   make profile  boot, profile CMD=, leave build/profile/ (CPUS= SECS= ARGS= TASK=1)
#
# Variables: CROSS= (toolchain prefix, e.g. x86_64-elf-), CPUS= MEM= ACCEL=
# (tcg|kvm), V=1 for verbose commands, CPROFILE=1 (call profiling: the
# kernel and CPROFILE_PROGS built with -finstrument-functions, in
# build/cprof), ICOUNT= for make run: auto (default: QEMU -icount, exact
# profiles), 0 (plain multi-threaded TCG, faster, profiles biased to
# translation blocks) or shift=N (one instruction = 2^N ns of guest time).
# QEMU= picks the emulator of run, check, profile and the rest
# (tools/qemu.sh --qemu): 10 (default: QEMU 10, the system's on Debian 13,
# bookworm-backports' on Debian 12, which tools/setup.sh unpacks), system
# (the distribution's, 7.2 on Debian 12: `make check-qemu7` runs the
# ground truths and ktest there) or a path; also read from VERNIER_QEMU.

ARCH    ?= x86_64
CROSS   ?=
# make CPROFILE=1: the call-profiled system (README "Call profiling"),
# built apart in build/cprof so that its objects never mix with these.
CPROFILE ?= 0
ifeq ($(CPROFILE),1)
BUILD   ?= build/cprof
endif
BUILD   ?= build
CPUS    ?= 2
MEM     ?= 256
ACCEL   ?= tcg
FIRMWARE ?= bios
TEST_ACCEL ?= tcg
ICOUNT  ?= auto
QEMU    ?= $(or $(VERNIER_QEMU),10)
export VERNIER_QEMU := $(QEMU)
ICOUNT_OPT := $(if $(filter 0 off,$(ICOUNT)),off,$(patsubst shift=%,%,$(ICOUNT)))

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJCOPY := $(CROSS)objcopy
NM      := $(CROSS)nm
NASM    ?= nasm
HOSTCC  ?= gcc

ifeq ($(V),1)
Q :=
else
Q := @
endif

.DEFAULT_GOAL := all

# ---------------------------------------------------------------- flags
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wstrict-prototypes \
	-Wmissing-prototypes -Wshadow -Wvla
CC_INCLUDE := $(shell $(CC) -print-file-name=include)
# Kernel and user space: canaries in every function with arrays or
# address-taken locals, one global guard chosen at boot / program start.
STACKPROT := -fstack-protector-strong -mstack-protector-guard=global

KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARN) \
	-ffreestanding -nostdinc -isystem $(CC_INCLUDE) \
	-fno-pic -fno-pie -mcmodel=kernel -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fno-strict-aliasing $(STACKPROT) \
	-fno-asynchronous-unwind-tables -fno-common -fcf-protection=none \
	-Iarch/$(ARCH)/include -Ikernel/include -Ilib/include -I$(BUILD)/gen \
	-MMD -MP
KERNEL_ASFLAGS := -f elf64 -g -F dwarf -Iarch/$(ARCH)/include/ -I$(BUILD)/gen/
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T arch/$(ARCH)/kernel.ld

HOST_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fno-omit-frame-pointer -DLIB_HOSTED \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Ilib/include -Ikernel/include -I$(BUILD)/gen -MMD -MP

# ---------------------------------------------------------------- sources
# lib/: freestanding code shared by the kernel, user space and the host.
# lib/prof/: the profiler tools' code (reports, exports, symbol tables,
# kprof): user space and host only.
LIB_SRCS    := $(wildcard lib/*.c)
LIB_PROF_SRCS := $(wildcard lib/prof/*.c lib/prof/*/*.c)
LIB_ALL_SRCS := $(LIB_SRCS) $(LIB_PROF_SRCS)
# The lib/ files the kernel calls: all but floating point (user space and
# host only) and the path and pattern code only user space uses.
KERNEL_LIB_SRCS := $(filter-out lib/fmt_float.c lib/match.c lib/path.c lib/numentry.c,$(LIB_SRCS))
# arch/$(ARCH)/asm-offsets.c is never linked: it only generates
# $(ASM_OFFSETS) (below).
KERNEL_SRCS := $(wildcard kernel/*.c kernel/*/*.c) \
	$(filter-out arch/$(ARCH)/asm-offsets.c,$(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*/*.c)) \
	$(KERNEL_LIB_SRCS)
KERNEL_ASMS := $(wildcard arch/$(ARCH)/*.asm arch/$(ARCH)/*/*.asm)
KERNEL_GEN  := $(BUILD)/gen/font.c
ASM_OFFSETS := $(BUILD)/gen/asm-offsets.inc

KOBJ := $(BUILD)/kernel
KERNEL_OBJS := $(patsubst %.c,$(KOBJ)/%.o,$(KERNEL_SRCS)) \
	$(patsubst %.c,$(KOBJ)/%.o,$(KERNEL_GEN:$(BUILD)/%=%)) \
	$(patsubst %.asm,$(KOBJ)/%.asm.o,$(KERNEL_ASMS))

KERNEL_ELF := $(BUILD)/kernel.elf
ISO        := $(BUILD)/vernier.iso
KTEST_ISO  := $(BUILD)/vernier-ktest.iso
INITRD     := $(BUILD)/initrd.tar

all: $(ISO) $(KTEST_ISO) host-tests host-tools
.PHONY: all

# ---------------------------------------------------------------- user space
# Programs: every directory uspace/app/NAME and uspace/srv/NAME becomes
# /bin/NAME in the initrd, linked statically with libc (uspace/lib/c) and
# the shared lib/ code. Binaries keep their symbol tables (profilers use them).
USER_CFLAGS := -std=gnu11 -O2 -g $(WARN) \
	-ffreestanding -nostdinc -isystem $(CC_INCLUDE) \
	-fno-pic -fno-pie -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fno-common $(STACKPROT) \
	-fcf-protection=none -fno-asynchronous-unwind-tables \
	-Iuspace/lib/c/include -Iuspace/lib/prof/include -Ilib/include -MMD -MP
USER_ASFLAGS := -f elf64 -g -F dwarf
USER_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	--no-warn-rwx-segments -T uspace/link.ld
LIBGCC := $(shell $(CC) -print-libgcc-file-name)

UOBJ := $(BUILD)/uspace
ULIBC_SRCS := $(wildcard uspace/lib/c/src/*.c) $(LIB_ALL_SRCS)
ULIBC_ASMS := $(wildcard uspace/lib/c/arch/$(ARCH)/*.asm)
ULIBC_OBJS := $(patsubst %.c,$(UOBJ)/%.o,$(ULIBC_SRCS)) \
	$(patsubst %.asm,$(UOBJ)/%.asm.o,$(filter-out %/crt0.asm,$(ULIBC_ASMS)))
UCRT0 := $(UOBJ)/uspace/lib/c/arch/$(ARCH)/crt0.asm.o
ULIBC := $(UOBJ)/libc.a
UPROGS := $(notdir $(wildcard uspace/app/* uspace/srv/*))
UPROGS := $(filter-out README.md,$(UPROGS))
UBINS := $(patsubst %,$(UOBJ)/bin/%,$(UPROGS))

$(UOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(UOBJ)/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UNASM   $<")
	$(Q)$(NASM) $(USER_ASFLAGS) -MD $(@:.o=.d) -MP $< -o $@

$(ULIBC): $(ULIBC_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The console server draws the framebuffer with the kernel's 8x16 font.
$(UOBJ)/gen/font.o: $(BUILD)/gen/font.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -Ikernel/include -c $< -o $@
UPROG_EXTRA_console := $(UOBJ)/gen/font.o
# uspace/lib/prof: the profiling tools' library (ptool.c: options and the
# session loop of profile and sprofile; psink.c: the -o sink, a file or
# com2, which cprof uses too; profenv.c: the one prof_env_t of every tool
# with a C library, compiled into the host tools too), linked into the
# programs that call it.
UPROFLIB := $(UOBJ)/libprof.a
$(UPROFLIB): $(patsubst %.c,$(UOBJ)/%.o,$(wildcard uspace/lib/prof/*.c))
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^
UPROG_EXTRA_profile := $(UPROFLIB)
UPROG_EXTRA_sprofile := $(UPROFLIB)
UPROG_EXTRA_cprof := $(UPROFLIB)
UPROG_EXTRA_sprofdiff := $(UPROFLIB)
UPROG_EXTRA_bench := $(UPROFLIB)
# reboot: poweroff's source built again with -DPOWER_REBOOT (another
# name and system call argument); uspace/app/reboot holds its README.
REBOOT_OBJ := $(UOBJ)/reboot/power.o
$(REBOOT_OBJ): uspace/app/poweroff/power.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $< (reboot)")
	$(Q)$(CC) $(USER_CFLAGS) -DPOWER_REBOOT -c $< -o $@
UPROG_EXTRA_reboot := $(REBOOT_OBJ)
# kprof and cprofalyze are built for the host too, from the same source
# (uspace/app/kprof, uspace/app/cprofalyze; see KPROF, CPROFALYZE).
UPROG_EXTRA_kprof := $(UPROFLIB)
UPROG_EXTRA_cprofalyze := $(UPROFLIB)
# callbench-cp: callbench's source built again, with the call profiler's
# hooks (UPROG_CPROF) and its own name; uspace/app/callbench-cp holds its
# README.
CALLBENCH_CP_OBJ := $(UOBJ)/callbench-cp/main.o
$(CALLBENCH_CP_OBJ): uspace/app/callbench/main.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $< (callbench-cp)")
	$(Q)$(CC) $(USER_CFLAGS) $(CPROF_CFLAGS) -DCALLBENCH_NAME='"callbench-cp"' -c $< -o $@
UPROG_EXTRA_callbench-cp := $(CALLBENCH_CP_OBJ)

# Call profiling: these programs are always built with the hooks (the
# call profiler's own tests and benchmark); CPROFILE=1 adds CPROFILE_PROGS
# and the kernel. The hooks and their bookkeeping (libc, lib/cprof.c) are
# never instrumented themselves.
CPROF_CFLAGS := -finstrument-functions
UPROG_CPROF := cpdemo callbench-cp
CPROFILE_PROGS ?= workload sh fs cat
ifeq ($(CPROFILE),1)
UPROG_CPROF += $(CPROFILE_PROGS)
KERNEL_CPROF_CFLAGS := $(CPROF_CFLAGS)
endif
# Kernel files never instrumented: the hooks, the code that runs before
# a CPU's per-CPU data is set up, the context switch and the accounting
# around it (acct_switch runs on the old thread's stack for the new one and
# moves the new one's off-CPU clock), the NMI sample path, and the sample
# sources' ktest (it spins in a function that calls nothing), the trace
# events' hooks (measuring code).
KERNEL_NOINSTR := lib/cprof.c $(wildcard kernel/cprof/*.c) kernel/acct.c \
	arch/$(ARCH)/cpu.c arch/$(ARCH)/gdt.c arch/$(ARCH)/smp.c arch/$(ARCH)/thread.c \
	arch/$(ARCH)/prof.c arch/$(ARCH)/prof_timer.c arch/$(ARCH)/prof_pmc.c \
	arch/$(ARCH)/unwind.c kernel/prof/sample.c kernel/prof/jitter.c arch/$(ARCH)/test/test_prof_src.c \
	arch/$(ARCH)/irqlat.c arch/$(ARCH)/nmi.c kernel/trace/trace.c
$(foreach p,$(UPROG_CPROF),$(eval $(UOBJ)/uspace/app/$(p)/%.o: USER_CFLAGS += $(CPROF_CFLAGS)))
$(foreach p,$(UPROG_CPROF),$(eval $(UOBJ)/uspace/srv/$(p)/%.o: USER_CFLAGS += $(CPROF_CFLAGS)))
# Programs are rebuilt when the instrumented list changes (a stamp file
# rewritten only when its contents differ).
CPROF_STAMP := $(BUILD)/cprof-progs.stamp
$(shell mkdir -p $(BUILD) && echo '$(UPROG_CPROF)' | cmp -s - $(CPROF_STAMP) || \
	echo '$(UPROG_CPROF)' > $(CPROF_STAMP))
$(foreach p,$(UPROGS),$(patsubst %.c,$(UOBJ)/%.o,$(wildcard uspace/*/$(p)/*.c))): $(CPROF_STAMP)

# Each program's objects: the .c files of its directory (plus
# UPROG_EXTRA_<name>).
define uprog_rule
$(UOBJ)/bin/$(1): $(patsubst %.c,$(UOBJ)/%.o,$(wildcard uspace/*/$(1)/*.c)) $(UPROG_EXTRA_$(1)) $(UCRT0) $(ULIBC) uspace/link.ld
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  ULD     $$@")
	$$(Q)$$(LD) $$(USER_LDFLAGS) -o $$@ $(UCRT0) $(patsubst %.c,$(UOBJ)/%.o,$(wildcard uspace/*/$(1)/*.c)) $(UPROG_EXTRA_$(1)) $(ULIBC) $(LIBGCC)
endef
$(foreach p,$(UPROGS),$(eval $(call uprog_rule,$(p))))

# The shell's help lists each program's synopsis as its usage text says
# it (tools/gen-help.py, from the sources each program is built from).
HELP_SRC_reboot := uspace/app/poweroff/power.c
HELP_SRC_callbench-cp := uspace/app/callbench/main.c
help_srcs = $(or $(HELP_SRC_$(1)),$(wildcard uspace/*/$(1)/*.c))
HELP_COMMA := ,
HELP_EMPTY :=
HELP_SPACE := $(HELP_EMPTY) $(HELP_EMPTY)
HELP_USAGE_H := $(BUILD)/gen/help_usage.h
$(HELP_USAGE_H): tools/gen-help.py $(foreach p,$(UPROGS),$(call help_srcs,$(p)))
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)python3 tools/gen-help.py $@ $(foreach p,$(UPROGS),\
		$(p)=$(subst $(HELP_SPACE),$(HELP_COMMA),$(strip $(call help_srcs,$(p)))))
$(UOBJ)/uspace/app/sh/builtin.o: $(HELP_USAGE_H)
$(UOBJ)/uspace/app/sh/builtin.o: USER_CFLAGS += -I$(BUILD)/gen

# The initrd also holds the kernel's ELF as /boot/kernel (for the profilers'
# symbols); its tree stays staged in $(INITRD_ROOT) for host tools (vprof -r).
INITRD_ROOT := $(BUILD)/initrd-root
$(INITRD): $(UBINS) $(KERNEL_ELF) tools/mkinitrd.sh
	@$(if $(Q),echo "  INITRD  $@")
	$(Q)tools/mkinitrd.sh --root $(INITRD_ROOT) --kernel $(KERNEL_ELF) $@ $(UBINS)

uspace: $(UBINS)
.PHONY: uspace

$(KOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) $(if $(filter $<,$(KERNEL_NOINSTR)),,$(KERNEL_CPROF_CFLAGS)) -c $< -o $@

$(KOBJ)/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(KOBJ)/%.asm.o: %.asm $(ASM_OFFSETS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(KERNEL_ASFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# The assembly's offsets into C structures (and a few constants), from
# arch/$(ARCH)/asm-offsets.c: compiled with -S (its -MMD dependencies
# regenerate it when a header it reads changes), then each ASM_OFFSET
# marker becomes a %define. A name listed but not generated fails here, a
# name used but not generated fails in NASM.
$(BUILD)/gen/asm-offsets.s: arch/$(ARCH)/asm-offsets.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC -S   $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) -S $< -o $@

$(ASM_OFFSETS): $(BUILD)/gen/asm-offsets.s tools/asm-offsets.py
	@$(if $(Q),echo "  GEN     $@")
	$(Q)python3 tools/asm-offsets.py arch/$(ARCH)/asm-offsets.c $< $@

$(BUILD)/gen/font.c: tools/psf2c.py
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)python3 tools/psf2c.py $(FONT_PSF) $@

FONT_PSF ?= /usr/share/consolefonts/Lat15-VGA16.psf.gz

$(KERNEL_ELF): $(KERNEL_OBJS) arch/$(ARCH)/kernel.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

$(ISO): $(KERNEL_ELF) $(INITRD) tools/mkiso.sh boot/grub.cfg.in
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh --initrd $(INITRD) $@ $(KERNEL_ELF) ""

$(KTEST_ISO): $(KERNEL_ELF) $(INITRD) tools/mkiso.sh boot/grub.cfg.in
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh --initrd $(INITRD) $@ $(KERNEL_ELF) "ktest"

kernel: $(KERNEL_ELF)
iso: $(ISO)
isos: $(ISO) $(KTEST_ISO)
.PHONY: kernel iso isos

# ---------------------------------------------------------------- host tests
UNIT_SRCS  := $(wildcard test/unit/test_*.c)
UNIT_BINS  := $(patsubst test/unit/%.c,$(BUILD)/host/test/%,$(UNIT_SRCS))
HOST_LIB_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_ALL_SRCS))
# Pure kernel logic that is unit-tested on the host.
HOST_KERNEL_SRCS := kernel/mm/frame_pool.c arch/$(ARCH)/pc/acpi_parse.c \
	kernel/sched/load_fold.c kernel/sched/idle_adjust.c kernel/profil/calc.c \
	kernel/prof/fifo.c kernel/prof/jitter.c kernel/proc/binquota.c
HOST_KERNEL_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(wildcard $(HOST_KERNEL_SRCS)))
# Pure user-space logic likewise (the shell's lexer and parser; top's
# computations, formatting, keys and rendering).
HOST_KERNEL_OBJS += $(BUILD)/host/uspace/app/sh/lex.o $(BUILD)/host/uspace/app/sh/parse.o
HOST_KERNEL_OBJS += $(patsubst %,$(BUILD)/host/uspace/app/top/%.o,compute table format keys render)
# top's formatting shares libc's pure stats_calc.c (<stats.h>): they see
# libc's headers only where the host has none of that name.
TOP_HOST_OBJS := $(filter $(BUILD)/host/uspace/app/top/%,$(HOST_KERNEL_OBJS)) \
	$(BUILD)/host/uspace/lib/c/src/stats_calc.o
HOST_KERNEL_OBJS += $(BUILD)/host/uspace/lib/c/src/stats_calc.o
# The host tools' environment (<profenv.h>), which test_kprof uses too.
HOST_KERNEL_OBJS += $(BUILD)/host/uspace/lib/prof/profenv.o
$(BUILD)/host/uspace/lib/prof/profenv.o $(BUILD)/host/test/test_kprof: private HOST_EXTRA_INC := -Iuspace/lib/prof/include
$(TOP_HOST_OBJS) $(BUILD)/host/test/test_top_calc: private HOST_EXTRA_INC := -idirafter uspace/lib/c/include

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Iarch/$(ARCH)/include $(HOST_EXTRA_INC) -c $< -o $@

# Tests that start threads compile and link with -pthread.
$(BUILD)/host/test/test_ring: HOST_TEST_THREADS := -pthread
# The profiler report tests share a fake env and a stream builder.
PROF_TESTS := $(patsubst %,$(BUILD)/host/test/test_prof%,diff export report ipc wall live) \
	$(BUILD)/host/test/test_cprofreport
$(PROF_TESTS): HOST_TEST_EXTRA := $(BUILD)/host/test/unit/prof_testutil.o
$(PROF_TESTS): $(BUILD)/host/test/unit/prof_testutil.o

$(BUILD)/host/test/%: test/unit/%.c $(HOST_LIB_OBJS) $(HOST_KERNEL_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(HOST_TEST_THREADS) -Iarch/$(ARCH)/include \
		$(HOST_EXTRA_INC) -Itest/unit $< $(HOST_TEST_EXTRA) $(HOST_LIB_OBJS) $(HOST_KERNEL_OBJS) -o $@

host-tests: $(UNIT_BINS)
.PHONY: host-tests

# ---------------------------------------------------------------- host tools
# vprof: the profiler report on the host, from the same lib/ sources as the
# guest tools; optimized and without the sanitizers (it is used for work).
VPROF := $(BUILD)/host/vprof
# Every host tool compiles all of lib/prof/ (one list to keep up to date).
HOST_PROF_SRCS := $(LIB_PROF_SRCS) lib/elfsym.c lib/numentry.c lib/fmt.c lib/fmt_float.c lib/string.c \
	uspace/lib/prof/profenv.c
HOST_PROF_HDRS := $(wildcard lib/include/lib/*.h lib/include/abi/*.h lib/prof/*/*.h) \
	uspace/lib/prof/include/profenv.h
VPROF_SRCS := tools/prof/vprof.c tools/prof/vprof_diff.c tools/prof/vprof_annotate.c $(HOST_PROF_SRCS)
VPROF_CFLAGS := -std=gnu11 -O2 -g $(WARN) -fno-omit-frame-pointer -DLIB_HOSTED \
	-Ilib/include -Iuspace/lib/prof/include

$(VPROF): $(VPROF_SRCS) $(HOST_PROF_HDRS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(HOSTCC) $(VPROF_CFLAGS) $(VPROF_SRCS) -o $@

# kprof: the kernel PC histogram report, the same source as /bin/kprof.
KPROF := $(BUILD)/host/kprof
KPROF_SRCS := uspace/app/kprof/kprof.c $(HOST_PROF_SRCS)

$(KPROF): $(KPROF_SRCS) $(HOST_PROF_HDRS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(HOSTCC) $(VPROF_CFLAGS) -DKPROF_HOST $(KPROF_SRCS) -o $@

# cprofalyze: the call profile report, the same source as /bin/cprofalyze.
CPROFALYZE := $(BUILD)/host/cprofalyze
CPROFALYZE_SRCS := uspace/app/cprofalyze/cprofalyze.c $(HOST_PROF_SRCS)

$(CPROFALYZE): $(CPROFALYZE_SRCS) $(HOST_PROF_HDRS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(HOSTCC) $(VPROF_CFLAGS) -DCPROFALYZE_HOST $(CPROFALYZE_SRCS) -o $@

host-tools: $(VPROF) $(KPROF) $(CPROFALYZE)

# test_profreport, test_profdiff, test_profexport and test_profipc also run vprof; test_cprofreport cprofalyze.
$(BUILD)/host/test/test_profreport: | $(VPROF)
$(BUILD)/host/test/test_profdiff: | $(VPROF)
$(BUILD)/host/test/test_cprofreport: | $(CPROFALYZE)
$(BUILD)/host/test/test_profexport: | $(VPROF)
$(BUILD)/host/test/test_profipc: | $(VPROF)
$(BUILD)/host/test/test_profwall: | $(VPROF)
.PHONY: host-tools

# libc's host unit tests (their own rules).
-include uspace/lib/c/host.mk

# ---------------------------------------------------------------- run/test
setup:
	$(Q)tools/setup.sh
.PHONY: setup

run: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/qemu.sh --iso $(ISO) --cpus $(CPUS) --mem $(MEM) \
		--accel $(ACCEL) --firmware $(FIRMWARE) --icount $(ICOUNT_OPT) \
		--interactive

debug: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sed 's|@KERNEL@|$(abspath $(KERNEL_ELF))|' tools/gdbinit.in > $(BUILD)/gdbinit
	@echo "QEMU waits for gdb on :1234. In another terminal: gdb -x $(BUILD)/gdbinit"
	$(Q)tools/qemu.sh --iso $(ISO) --cpus $(CPUS) --mem $(MEM) \
		--accel tcg --firmware $(FIRMWARE) --interactive --gdb

bochs: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bochs.sh $(ISO) 2

check: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory CPROFILE=1 BUILD=$(BUILD)/cprof isos
	$(Q)VERNIER_ACCEL=$(TEST_ACCEL) tools/check.sh

# make check-qemu7: the old QEMU target (the distribution's QEMU, 7.2 on
# Debian 12): the ktest suite and the profiling ground truths on it; the
# reports' figures say how exact it is there (README "QEMU versions").
QEMU7_TESTS := test/ktest.t test/groundtruth.t test/gtloop.t test/gtcallgrind.t test/gtfault.t \
	test/workload.t test/icount.t test/missed.t test/gtsmp.t
check-qemu7: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory CPROFILE=1 BUILD=$(BUILD)/cprof isos
	$(Q)VERNIER_QEMU=system VERNIER_ACCEL=$(TEST_ACCEL) tools/check.sh $(QEMU7_TESTS)
.PHONY: run debug bochs check check-qemu7

# make profile CMD='workload -d 5 alpha:2 beta:1' [CPUS=] [SECS=] [ARGS='-g']
# [TASK=1] [ICOUNT=]: boot (1 CPU by default), run CMD under sprofile -o com2
# (TASK=1: profile -o com2), power off; the stream, report.txt and the other formats in
# $(BUILD)/profile (tools/profile-vm.sh; its PROFILE_FORMATS lists them).
profile: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/profile-vm.sh --build $(BUILD) --secs $(or $(SECS),5) --args "$(ARGS)" \
		$(if $(filter command line,$(origin CPUS)),--cpus $(CPUS)) \
		$(if $(filter command line,$(origin ICOUNT)),--icount $(ICOUNT_OPT)) \
		$(if $(filter 1,$(TASK)),--task) \
		-- "$(or $(CMD),workload -d 5 alpha:2 beta:1)"
.PHONY: profile

# make fuzz [SEED=] [CALLS=] [CPUS=]: one vfuzz run of any length (default
# seed 1, 1,000,000 calls, 4 CPUs) with a progress bar; FUZZ_ARGS=-x adds
# the calls that stall today (README "Fuzzing and fault injection").
fuzz: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)FUZZ_SEED=$(or $(SEED),1) FUZZ_CALLS=$(or $(CALLS),1000000) \
		FUZZ_CPUS=$(if $(filter command line,$(origin CPUS)),$(CPUS),4) FUZZ_BAR=1 \
		VERNIER_ACCEL=$(TEST_ACCEL) prove -v test/fuzz.t
# make srvfuzz [SEED=] [CALLS=] [CPUS=] [WORKERS=]: one server fuzzer run
# (vfuzz -S fs,console,ns; default seed 1, 1,000,000 requests, 2 CPUs,
# one worker task per CPU).
srvfuzz: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)SRVFUZZ_SEED=$(or $(SEED),1) SRVFUZZ_CALLS=$(or $(CALLS),1000000) \
		SRVFUZZ_CPUS=$(if $(filter command line,$(origin CPUS)),$(CPUS),2) \
		SRVFUZZ_ARGS="$(if $(WORKERS),-t $(WORKERS))" \
		VERNIER_ACCEL=$(TEST_ACCEL) prove -v test/srvfuzz.t
# make failinj: the whole fault-injection sweep (make check runs a sample).
failinj: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)FAILINJ_FULL=1 VERNIER_ACCEL=$(TEST_ACCEL) prove -v test/failinj.t
.PHONY: fuzz srvfuzz failinj
# make soak [MINUTES=] [CPUS=]: the soak run (tools/soak.sh); make soak-check:
# its 1-minute slice with the invariants as TAP (test/soak.t, in make check too).
soak: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)VERNIER_ACCEL=$(TEST_ACCEL) tools/soak.sh $(or $(MINUTES),30) \
		$(if $(filter command line,$(origin CPUS)),$(CPUS),2)
soak-check: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)VERNIER_ACCEL=$(TEST_ACCEL) prove -v test/soak.t
.PHONY: soak soak-check

clean:
	rm -rf $(BUILD)
.PHONY: clean

# Keep intermediate objects (host objects would be deleted after each link).
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

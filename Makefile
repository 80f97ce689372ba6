# Vernier top-level Makefile.
#
#   make          build build/vernier.iso (and the self-test ISO)
#   make run      set up, build, boot in QEMU with the serial console here
#   make check    set up, build, run every test (TAP through prove)
#   make debug    boot QEMU stopped with a gdb stub; gdb -x build/gdbinit
#   make bochs    boot the ISO in Bochs with 2 CPUs
#
# Variables: CROSS= (toolchain prefix, e.g. x86_64-elf-), CPUS= MEM= ACCEL=
# (tcg|kvm), V=1 for verbose commands.

ARCH    ?= x86_64
CROSS   ?=
BUILD   ?= build
CPUS    ?= 2
MEM     ?= 256
ACCEL   ?= tcg
FIRMWARE ?= bios
TEST_ACCEL ?= tcg

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

KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARN) \
	-ffreestanding -nostdinc -isystem $(CC_INCLUDE) \
	-fno-pic -fno-pie -mcmodel=kernel -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fno-stack-protector -fno-strict-aliasing \
	-fno-asynchronous-unwind-tables -fno-common -fcf-protection=none \
	-Iarch/$(ARCH)/include -Ikernel/include -Ilib/include -I$(BUILD)/gen \
	-MMD -MP
KERNEL_ASFLAGS := -f elf64 -g -F dwarf -Iarch/$(ARCH)/include/
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 \
	-z noexecstack --no-warn-rwx-segments -T arch/$(ARCH)/kernel.ld

HOST_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fno-omit-frame-pointer -DLIB_HOSTED \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Ilib/include -Ikernel/include -I$(BUILD)/gen -MMD -MP

# ---------------------------------------------------------------- sources
LIB_SRCS    := $(wildcard lib/*.c)
KERNEL_SRCS := $(wildcard kernel/*.c kernel/*/*.c) \
	$(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*/*.c) $(LIB_SRCS)
KERNEL_ASMS := $(wildcard arch/$(ARCH)/*.asm arch/$(ARCH)/*/*.asm)
KERNEL_GEN  := $(BUILD)/gen/font.c

KOBJ := $(BUILD)/kernel
KERNEL_OBJS := $(patsubst %.c,$(KOBJ)/%.o,$(KERNEL_SRCS)) \
	$(patsubst %.c,$(KOBJ)/%.o,$(KERNEL_GEN:$(BUILD)/%=%)) \
	$(patsubst %.asm,$(KOBJ)/%.asm.o,$(KERNEL_ASMS))

KERNEL_ELF := $(BUILD)/kernel.elf
ISO        := $(BUILD)/vernier.iso
KTEST_ISO  := $(BUILD)/vernier-ktest.iso

all: $(ISO) $(KTEST_ISO) host-tests
.PHONY: all

$(KOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(KOBJ)/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(KOBJ)/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(KERNEL_ASFLAGS) -MD $(@:.o=.d) -MP $< -o $@

$(BUILD)/gen/font.c: tools/psf2c.py
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)python3 tools/psf2c.py $(FONT_PSF) $@

FONT_PSF ?= /usr/share/consolefonts/Lat15-VGA16.psf.gz

$(KERNEL_ELF): $(KERNEL_OBJS) arch/$(ARCH)/kernel.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

$(ISO): $(KERNEL_ELF) tools/mkiso.sh boot/grub.cfg.in
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh $@ $(KERNEL_ELF) ""

$(KTEST_ISO): $(KERNEL_ELF) tools/mkiso.sh boot/grub.cfg.in
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh $@ $(KERNEL_ELF) "ktest"

kernel: $(KERNEL_ELF)
iso: $(ISO)
.PHONY: kernel iso

# ---------------------------------------------------------------- host tests
UNIT_SRCS  := $(wildcard test/unit/test_*.c)
UNIT_BINS  := $(patsubst test/unit/%.c,$(BUILD)/host/test/%,$(UNIT_SRCS))
HOST_LIB_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SRCS))
# Pure kernel logic that is unit-tested on the host.
HOST_KERNEL_SRCS := kernel/mm/frame_pool.c arch/$(ARCH)/pc/acpi_parse.c
HOST_KERNEL_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(wildcard $(HOST_KERNEL_SRCS)))

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Iarch/$(ARCH)/include -c $< -o $@

$(BUILD)/host/test/%: test/unit/%.c $(HOST_LIB_OBJS) $(HOST_KERNEL_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Iarch/$(ARCH)/include -Itest/unit $< \
		$(HOST_LIB_OBJS) $(HOST_KERNEL_OBJS) -o $@

host-tests: $(UNIT_BINS)
.PHONY: host-tests

# ---------------------------------------------------------------- run/test
setup:
	$(Q)tools/setup.sh
.PHONY: setup

run: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/qemu.sh --iso $(ISO) --cpus $(CPUS) --mem $(MEM) \
		--accel $(ACCEL) --firmware $(FIRMWARE) --interactive

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
	$(Q)VERNIER_ACCEL=$(TEST_ACCEL) tools/check.sh
.PHONY: run debug bochs check

clean:
	rm -rf $(BUILD)
.PHONY: clean

# Keep intermediate objects (host objects would be deleted after each link).
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# libc host unit tests (included by the top Makefile).
#
# The real libc sources (uspace/lib/c/src/*.c except start.c, plus
# setjmp.asm and thread_entry.asm) are compiled for the host with libc's
# own headers (-nostdinc) and the sanitizers, linked into one relocatable
# object, and every symbol that object defines is renamed with a vl_ prefix
# (vl_malloc, vl_printf, ...) so that it neither clashes with nor
# interposes on the host C library. The system call layer is replaced by a
# fake kernel (uspace/lib/c/test/host_sys.c) that captures console output,
# maps memory with mmap and records calls. Tests are test/unit/test_libc_*.c;
# they see libc through uspace/lib/c/test/libc_host.h.
#
# test_libc_e2e also runs a program built exactly like /bin programs
# (uspace/lib/c/test/e2e.c with crt0 and libc.a) on the host under ptrace
# (uspace/lib/c/test/vrun.c); test_libc_nofloat links the kernel's
# kernel/fmt_nofloat.c with lib/fmt.c.

LIBC_DIR := uspace/lib/c
LIBC_HOST := $(BUILD)/host-libc
LIBC_HOST_CFLAGS := $(HOST_CFLAGS) -ffreestanding -nostdinc \
	-isystem $(CC_INCLUDE) -I$(LIBC_DIR)/include
LIBC_HOST_SRCS := $(filter-out $(LIBC_DIR)/src/start.c,\
	$(wildcard $(LIBC_DIR)/src/*.c))
LIBC_HOST_ASMS := $(LIBC_DIR)/arch/$(ARCH)/setjmp.asm \
	$(LIBC_DIR)/arch/$(ARCH)/thread_entry.asm
LIBC_HOST_OBJS := $(patsubst $(LIBC_DIR)/%.c,$(LIBC_HOST)/%.o,$(LIBC_HOST_SRCS)) \
	$(patsubst $(LIBC_DIR)/%.asm,$(LIBC_HOST)/%.asm.o,$(LIBC_HOST_ASMS))
LIBC_HOST_LIB := $(LIBC_HOST)/libc_host.o
LIBC_HOST_SYS := $(LIBC_HOST)/test/host_sys.o $(LIBC_HOST)/test/vrun.o
LIBC_E2E := $(LIBC_HOST)/e2e/libc-e2e
LIBC_E2E_OBJ := $(UOBJ)/$(LIBC_DIR)/test/e2e.o

LIBC_NOFLOAT_TEST := $(BUILD)/host/test/test_libc_nofloat
LIBC_NOFLOAT_OBJS := $(LIBC_HOST)/kernel/fmt_nofloat.o $(BUILD)/host/lib/fmt.o \
	$(BUILD)/host/lib/string.o
LIBC_TEST_SRCS := $(wildcard test/unit/test_libc_*.c)
LIBC_TEST_BINS := $(filter-out $(LIBC_NOFLOAT_TEST),\
	$(patsubst test/unit/%.c,$(BUILD)/host/test/%,$(LIBC_TEST_SRCS)))

$(LIBC_HOST)/src/%.o: $(LIBC_DIR)/src/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(LIBC_HOST_CFLAGS) -c $< -o $@

$(LIBC_HOST)/%.asm.o: $(LIBC_DIR)/%.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTASM $<")
	$(Q)$(NASM) -f elf64 -g -F dwarf $< -o $@

$(LIBC_HOST)/test/%.o: $(LIBC_DIR)/test/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -c $< -o $@

$(LIBC_HOST)/kernel/fmt_nofloat.o: kernel/fmt_nofloat.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -c $< -o $@

# Everything the object defines gets the vl_ prefix (sanitizer bookkeeping
# symbols excepted).
$(LIBC_HOST_LIB): $(LIBC_HOST_OBJS) $(LIBC_DIR)/host.mk
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)ld -r -o $@.raw $(LIBC_HOST_OBJS)
	$(Q)nm -g --defined-only $@.raw | \
		awk '$$3 !~ /asan|ubsan/ { print $$3, "vl_" $$3 }' > $@.syms
	$(Q)objcopy --redefine-syms=$@.syms $@.raw $@

$(LIBC_E2E): $(LIBC_E2E_OBJ) $(UCRT0) $(ULIBC) uspace/link.ld
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  ULD     $@")
	$(Q)$(LD) $(USER_LDFLAGS) -o $@ $(UCRT0) $(LIBC_E2E_OBJ) $(ULIBC) $(LIBGCC)

$(LIBC_TEST_BINS): $(BUILD)/host/test/%: test/unit/%.c $(LIBC_HOST_LIB) \
		$(LIBC_HOST_SYS) $(HOST_LIB_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -I$(LIBC_DIR)/test -Itest/unit \
		-DLIBC_E2E_PROG='"$(LIBC_E2E)"' $< \
		$(LIBC_HOST_LIB) $(LIBC_HOST_SYS) $(HOST_LIB_OBJS) -lm -o $@

$(BUILD)/host/test/test_libc_e2e: $(LIBC_E2E)

$(LIBC_NOFLOAT_TEST): test/unit/test_libc_nofloat.c $(LIBC_NOFLOAT_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTLD  $@")
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -Itest/unit $< $(LIBC_NOFLOAT_OBJS) -o $@

host-tests: $(LIBC_TEST_BINS) $(LIBC_NOFLOAT_TEST)
libc-host-tests: $(LIBC_TEST_BINS) $(LIBC_NOFLOAT_TEST)
.PHONY: libc-host-tests

/*
 * tools/qemuplugin.h - the few QEMU TCG plugin API functions the plugins
 * here use (tools/insncount.c, tools/pccount.c), declared with QEMU 7.2's
 * signatures (the same in QEMU 10) so that no QEMU headers are needed, and
 * the version symbol QEMU checks: QEMU_PLUGIN_API (tools/plugin-lib.sh
 * sets it from the QEMU that will run: 1 up to QEMU 8, which accept at
 * most 1; 2 from QEMU 9, which accept at least 2). Include it once, in the
 * plugin's one source file.
 */
#ifndef TOOLS_QEMUPLUGIN_H
#define TOOLS_QEMUPLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb_t)(unsigned int vcpu, void *userdata);
typedef void (*atexit_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t i);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, udata_cb_t cb,
					    int flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb_t cb, void *userdata);

#define PLUGIN_CB_R_REGS 1              /* enum qemu_plugin_cb_flags: QEMU_PLUGIN_CB_R_REGS */

#ifndef QEMU_PLUGIN_API
#define QEMU_PLUGIN_API 1
#endif
__attribute__((visibility("default"))) int qemu_plugin_version = QEMU_PLUGIN_API;

/*
 * Have cb(vcpu, address) called for each instruction of tb in [lo, hi) it
 * runs, and first(vcpu, address) with the registers readable before it
 * for the first of them (first may be NULL).
 */
static void plugin_tb_insns(struct qemu_plugin_tb *tb, uint64_t lo, uint64_t hi, udata_cb_t cb,
			    udata_cb_t first)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t a = qemu_plugin_insn_vaddr(insn);
		if (a < lo || a >= hi)
			continue;
		if (first)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, first, PLUGIN_CB_R_REGS,
							       (void *)(uintptr_t)a);
		first = NULL;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, cb, 0, (void *)(uintptr_t)a);
	}
}

#if QEMU_PLUGIN_API >= 2
/*
 * Registers (QEMU 9 and later). GLib's GArray and GByteArray begin with
 * these fields; the GLib functions come from the QEMU that loads the
 * plugin. qemu_plugin_read_register returns an int before QEMU 10.1 and a
 * bool after, so only the bytes it appended are looked at.
 */
typedef struct plugin_array {
	char *data;
	unsigned len;
} plugin_array_t;

typedef struct plugin_bytes {
	uint8_t *data;
	unsigned len;
} plugin_bytes_t;

typedef struct plugin_reg_desc {
	struct qemu_plugin_register *handle;
	const char *name;
	const char *feature;
} plugin_reg_desc_t;

typedef void (*vcpu_cb_t)(qemu_plugin_id_t id, unsigned int vcpu);

void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, vcpu_cb_t cb);
plugin_array_t *qemu_plugin_get_registers(void);
int qemu_plugin_read_register(struct qemu_plugin_register *handle, plugin_bytes_t *buf);
plugin_bytes_t *g_byte_array_new(void);
plugin_bytes_t *g_byte_array_set_size(plugin_bytes_t *a, unsigned len);
char *g_array_free(plugin_array_t *a, int free_segment);

/* The handle of the vCPU register called name, or NULL (from a vCPU's init callback). */
static inline struct qemu_plugin_register *plugin_reg(const char *name)
{
	plugin_array_t *regs = qemu_plugin_get_registers();
	struct qemu_plugin_register *h = NULL;

	if (!regs)
		return NULL;
	for (unsigned i = 0; i < regs->len && !h; i++) {
		const plugin_reg_desc_t *d = (const plugin_reg_desc_t *)(const void *)regs->data + i;
		if (!strcmp(d->name, name))
			h = d->handle;
	}
	g_array_free(regs, 1);
	return h;
}

/* The running vCPU's 64-bit register h in *v (a callback with PLUGIN_CB_R_REGS). */
static inline bool plugin_reg_u64(struct qemu_plugin_register *h, uint64_t *v)
{
	static __thread plugin_bytes_t *buf;

	if (!h || (!buf && !(buf = g_byte_array_new())))
		return false;
	g_byte_array_set_size(buf, 0);
	(void)qemu_plugin_read_register(h, buf);
	if (buf->len < sizeof(*v))
		return false;
	memcpy(v, buf->data, sizeof(*v));
	return true;
}
#endif

#define PLUGIN_MAX_VCPUS 8                /* CPUs told apart */

#if QEMU_PLUGIN_API >= 2
/*
 * Which vCPU runs. With one TCG thread for every vCPU (-icount's round
 * robin) QEMU 10 passes a callback the index of the vCPU that translated
 * the block (a constant in code all vCPUs share), not of the one running
 * it: on 2 CPUs CPU 1's broadcast NMIs ran on into CPU 0's segments
 * (947 instructions where each was ~520). So the first instruction of
 * each block (the round robin switches between blocks, PLUGIN_ON_BLOCK)
 * reads the kernel's per-CPU pointer: GS base in the kernel,
 * KERNEL_GS_BASE in user mode (before swapgs). plugin_cpu0 (the plugin's
 * cpu0= argument, bsp_cpu) is CPU 0; the others are numbered as they
 * first run kernel code, 1 upwards. Until GS is set up: QEMU's index.
 * plugin_vcpu_setup registers the register look-up.
 */
static uint64_t plugin_cpu0;                     /* cpu0=, 0: not given */
static struct qemu_plugin_register *plugin_reg_gs, *plugin_reg_kgs;
static uint64_t plugin_vcpu_key[PLUGIN_MAX_VCPUS];      /* per-CPU pointer of each number */
static unsigned plugin_nvcpu_keys;
static __thread int plugin_running = -1;         /* the vCPU this host thread runs, -1: QEMU's */

static void plugin_on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id, (void)vcpu;
	if (!plugin_reg_gs)
		plugin_reg_gs = plugin_reg("gs_base");
	if (!plugin_reg_kgs)
		plugin_reg_kgs = plugin_reg("k_gs_base");
}

/* The number of the CPU whose per-CPU pointer is key (a new one: the next), -1 if none is left. */
static int plugin_vcpu_of_key(uint64_t key)
{
	if (plugin_cpu0 && key == plugin_cpu0)
		return 0;
	if (plugin_cpu0 && !plugin_nvcpu_keys)
		plugin_nvcpu_keys = 1;                 /* number 0 is cpu0's */
	for (unsigned i = 0; i < plugin_nvcpu_keys; i++)
		if (plugin_vcpu_key[i] == key)
			return (int)i;
	if (plugin_nvcpu_keys == PLUGIN_MAX_VCPUS)
		return -1;
	plugin_vcpu_key[plugin_nvcpu_keys] = key;
	return (int)plugin_nvcpu_keys++;
}

/* A block's first instruction: which CPU runs it (registers readable). */
static void plugin_on_block(unsigned int cpu, void *ud)
{
	uint64_t gs = 0, kgs = 0;

	(void)cpu, (void)ud;
	(void)plugin_reg_u64(plugin_reg_gs, &gs);
	(void)plugin_reg_u64(plugin_reg_kgs, &kgs);
	uint64_t key = gs >> 63 ? gs : kgs >> 63 ? kgs : 0;
	plugin_running = key ? plugin_vcpu_of_key(key) : -1;
}

/* The vCPU that runs, from QEMU's index cpu (a callback's argument). */
static unsigned plugin_running_vcpu(unsigned int cpu)
{
	return plugin_running >= 0 ? (unsigned)plugin_running : cpu;
}
#define PLUGIN_ON_BLOCK plugin_on_block

/* At install: the register handles come with each vCPU's set-up. */
static void plugin_vcpu_setup(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_init_cb(id, plugin_on_vcpu_init);
}
#else
static uint64_t plugin_cpu0;

static void plugin_vcpu_setup(qemu_plugin_id_t id)
{
	(void)id;
}

static unsigned plugin_running_vcpu(unsigned int cpu)
{
	return cpu;
}
#define PLUGIN_ON_BLOCK NULL
#endif

/* An argument "KEY=HEX": true and its value in *v, or false if it is not key's. */
static bool arg(const char *a, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	if (strncmp(a, key, n) || a[n] != '=')
		return false;
	*v = strtoull(a + n + 1, NULL, 16);
	return true;
}

#endif

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

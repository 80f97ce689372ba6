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

#ifndef QEMU_PLUGIN_API
#define QEMU_PLUGIN_API 1
#endif
__attribute__((visibility("default"))) int qemu_plugin_version = QEMU_PLUGIN_API;

/* Have cb(vcpu, address) called for each instruction of tb in [lo, hi) it runs. */
static void plugin_tb_insns(struct qemu_plugin_tb *tb, uint64_t lo, uint64_t hi, udata_cb_t cb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t a = qemu_plugin_insn_vaddr(insn);
		if (a >= lo && a < hi)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, cb, 0, (void *)(uintptr_t)a);
	}
}

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

/*
 * tools/pccount.c - a QEMU TCG plugin that counts every guest instruction
 * (user and kernel, all vCPUs) by address inside a window, for a per-
 * function breakdown of a benchmark loop (tools/ipccost.sh uses it).
 *
 * Arguments (-plugin pccount.so,ARG=VALUE,...; addresses in hex):
 *   on=     counting starts when any vCPU executes this address
 *   off=    ... and stops for good when one executes this one
 *   mark=   the executions of this address are counted too (the loop's
 *           iterations: the caller divides by them)
 *   restart=1  each later execution of on= starts the window again (all
 *           counts dropped): a user address is other programs' too, and
 *           one that ran it first (init, before the benchmark started)
 *           opened the window early, spawns and all
 *   out=    the output file
 *   cpu0=   the boot CPU's cpu_t (bsp_cpu): the vCPUs are told apart by the
 *           kernel's per-CPU pointer, this one CPU 0 (qemuplugin.h)
 * Output: "mark N", then "insn VCPU ADDR COUNT" for every address run in
 * the window.
 *
 * The plugin API it uses is declared in tools/qemuplugin.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemuplugin.h"

#define MAX_VCPUS PLUGIN_MAX_VCPUS
#define SLOTS (1u << 20)                 /* open addressing, power of two */

typedef struct slot {
	uint64_t addr;                   /* 0: free (address 0 never runs) */
	uint64_t n[MAX_VCPUS];
} slot_t;

static uint64_t on, off, mark, marks, restart;
static int state;                        /* 0 before on, 1 counting, 2 done */
static char out[512] = "pccount.out";
static slot_t *slots;

static slot_t *slot_of(uint64_t a)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) >> 44;

	for (uint32_t i = 0; i < SLOTS; i++) {
		slot_t *s = &slots[(h + i) & (SLOTS - 1)];
		if (s->addr == a)
			return s;
		if (!s->addr) {
			s->addr = a;
			return s;
		}
	}
	return NULL;
}

static void on_insn(unsigned int cpu, void *ud)
{
	uint64_t a = (uint64_t)(uintptr_t)ud;

	cpu = plugin_running_vcpu(cpu);
	if (state == 1 && a == on && restart) {
		memset(slots, 0, (size_t)SLOTS * sizeof(*slots));
		marks = 0;
	}
	if (state == 0 && a == on)
		state = 1;
	if (state != 1 || cpu >= MAX_VCPUS)
		return;
	if (a == off) {
		state = 2;
		return;
	}
	marks += a == mark;
	slot_t *s = slot_of(a);
	if (s)
		s->n[cpu]++;
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	plugin_tb_insns(tb, 0, UINT64_MAX, on_insn, PLUGIN_ON_BLOCK);
}

static void on_exit_cb(qemu_plugin_id_t id, void *ud)
{
	FILE *f = fopen(out, "w");

	(void)id, (void)ud;
	if (!f)
		return;
	fprintf(f, "mark %" PRIu64 "\n", marks);
	for (uint32_t i = 0; i < SLOTS; i++)
		for (unsigned c = 0; c < MAX_VCPUS && slots[i].addr; c++)
			if (slots[i].n[c])
				fprintf(f, "insn %u %" PRIx64 " %" PRIu64 "\n", c, slots[i].addr,
					slots[i].n[c]);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (arg(argv[i], "on", &on) || arg(argv[i], "off", &off) ||
		    arg(argv[i], "restart", &restart) ||
		    arg(argv[i], "mark", &mark) || arg(argv[i], "cpu0", &plugin_cpu0))
			continue;
		if (!strncmp(argv[i], "out=", 4)) {
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
			continue;
		}
		fprintf(stderr, "pccount: bad argument '%s'\n", argv[i]);
		return -1;
	}
	if (!on || !off) {
		fprintf(stderr, "pccount: needs on= and off=\n");
		return -1;
	}
	slots = calloc(SLOTS, sizeof(*slots));
	if (!slots)
		return -1;
	plugin_vcpu_setup(id);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}

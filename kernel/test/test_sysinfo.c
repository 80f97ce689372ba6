/*
 * ktest: the sysinfo registry (kernel/sysinfo.h). Every subsystem's nodes
 * are in the sealed tree, in the order user space has always seen them;
 * a registry refuses a taken path, a bad path, an incomplete node, a
 * node past its capacity, and anything once sealed.
 */
#include <kernel/ktest.h>
#include <kernel/sysinfo.h>
#include <kernel/vm.h>
#include <lib/string.h>

/* The tree's nodes, in rank order, with their types. */
static const struct {
	const char *path;
	unsigned type;
} kt_si_expected[] = {
	{ "kernel.version", SYSINFO_DATA }, { "kernel.build", SYSINFO_DATA },
	{ "boot.cmdline", SYSINFO_DATA }, { "system.tsc_hz", SYSINFO_INT },
	{ "system.uptime", SYSINFO_INT }, { "system.cycles", SYSINFO_INT },
	{ "system.acct_entry_cycles", SYSINFO_INT }, { "system.platform", SYSINFO_INT },
	{ "system.hardening", SYSINFO_INT }, { "system.cpus", SYSINFO_DATA },
	{ "system.physmem", SYSINFO_DATA }, { "system.load", SYSINFO_DATA },
	{ "system.tasks", SYSINFO_DATA }, { "system.threads", SYSINFO_DATA },
	{ "system.exceptions", SYSINFO_DATA }, { "system.syscalls", SYSINFO_DATA },
	{ "system.ipc.pairs", SYSINFO_DATA }, { "system.profiler", SYSINFO_DATA },
	{ "system.profiler.sources", SYSINFO_DATA }, { "system.limits", SYSINFO_DATA },
	{ "system.memory", SYSINFO_DATA }, { "system.bincache.entries", SYSINFO_INT },
	{ "system.bincache.bytes", SYSINFO_INT }, { "system.bincache.limit", SYSINFO_INT },
	{ "failinj.injected", SYSINFO_INT }, { "failinj.reached", SYSINFO_INT },
	{ "failinj.absorbed", SYSINFO_INT }, { "failinj.other", SYSINFO_INT },
};

KTEST(sysinfo_nodes, "sysinfo: every subsystem's node is registered, in order")
{
	size_t n = ARRAY_SIZE(kt_si_expected), count = 0;
	si_buf_t b = { 0 };

	while (sysinfo_node_at(count))
		count++;
	KT_CHECK(count == n, "%zu nodes registered, %zu expected", count, n);
	for (size_t i = 0; i < n; i++) {
		const si_node_t *node = sysinfo_node_at(i);
		KT_CHECK(!strcmp(node->path, kt_si_expected[i].path), "node %zu is %s, not %s",
			 i, node->path, kt_si_expected[i].path);
		KT_CHECK(node->type == kt_si_expected[i].type, "%s has type %u", node->path,
			 node->type);
	}
	errno_t rc = sysinfo_read("system.memory", &b);
	size_t len = b.len;
	kfree(b.data);
	KT_CHECK(rc == EOK && len == sizeof(sysinfo_memory_t), "system.memory: rc %d, %zu bytes",
		 rc, len);
	KT_CHECK(sysinfo_register(sysinfo_node_at(0)) == EPERM, "the sealed tree took a node");
	return true;
}

static uint64_t kt_si_zero(void)
{
	return 0;
}

static errno_t kt_si_nothing(si_buf_t *b, uint64_t arg)
{
	return EOK;
}

static errno_t kt_si_ids(si_buf_t *b)
{
	return EOK;
}

/* A path of SYSINFO_PATH_MAX - 1 bytes: the longest there can be. */
#define KT_SI_LONG "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd"

/* A registry refuses bad paths: rc for an integer node at path. */
static errno_t kt_si_try(si_registry_t *r, const char *path)
{
	static si_node_t nodes[32];             /* more than the tries: none reused */
	static unsigned next;
	si_node_t *n = &nodes[next++ % ARRAY_SIZE(nodes)];

	*n = (si_node_t){ path, 1, SYSINFO_INT, kt_si_zero, NULL, NULL, NULL };
	return si_registry_add(r, n);
}

KTEST(sysinfo_refuse, "sysinfo: taken, bad and late nodes are refused")
{
	static si_registry_t r;
	/* The last is SYSINFO_PATH_MAX bytes long, its NUL aside: one too many. */
	static const char *bad[] = { "", ".a", "a.", "a..b", "A.b", "a b", "a-b",
		KT_SI_LONG "e" };
	static const si_node_t no_reader = { "x.none", 1, SYSINFO_INT, NULL, NULL, NULL, NULL };
	static const si_node_t half_table = { "x.half", 1, SYSINFO_DATA, NULL, kt_si_nothing,
					      kt_si_ids, NULL };
	static const si_node_t data = { "x.data", 0, SYSINFO_DATA, NULL, kt_si_nothing,
					NULL, NULL };

	memset(&r, 0, sizeof(r));
	KT_CHECK(kt_si_try(&r, "x.first") == EOK, "a good node was refused");
	KT_CHECK(kt_si_try(&r, "x.first") == EEXIST, "a second x.first was taken");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		KT_CHECK(kt_si_try(&r, bad[i]) == EINVAL, "bad path \"%s\" was taken", bad[i]);
	KT_CHECK(sizeof(KT_SI_LONG) == SYSINFO_PATH_MAX, "KT_SI_LONG is %zu bytes", sizeof(KT_SI_LONG));
	KT_CHECK(kt_si_try(&r, KT_SI_LONG) == EOK, "the longest path was refused");
	KT_CHECK(si_registry_add(&r, &no_reader) == EINVAL, "an int node with no reader was taken");
	KT_CHECK(si_registry_add(&r, &half_table) == EINVAL, "a table without child_data was taken");
	KT_CHECK(si_registry_add(&r, &data) == EOK, "a data node was refused");
	KT_CHECK(r.count == 3 && !strcmp(r.nodes[0]->path, "x.data") &&
		 !strcmp(r.nodes[1]->path, "x.first"), "%zu nodes, rank 0 not first", r.count);
	r.count = SYSINFO_NODES_MAX;                /* as if full (checked first) */
	KT_CHECK(kt_si_try(&r, "x.more") == ENOSPC, "a full registry took a node");
	r.count = 3;
	r.sealed = true;
	KT_CHECK(kt_si_try(&r, "x.late") == EPERM, "a sealed registry took a node");
	return true;
}

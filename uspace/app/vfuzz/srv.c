/*
 * vfuzz -S: the server fuzzer. Typed requests to the file service, the
 * console and the naming service, as an unprivileged client would send
 * them: random methods and arguments, paths staged with DATA_WRITE
 * (sane ones under /tmp, the initrd, pipes, /dev, and random bytes),
 * handles and pipe ids fed back from the answers, data transfers of
 * random lengths (0, boundary sizes, up to 64 KiB) at random offsets
 * (the tmpfs limit and past it included) from and to good and bad
 * buffers. Each call is asynchronous and waited for at most SF_WAIT_NS:
 * a call the server keeps (a console read with no input, a pipe read)
 * stays outstanding, bounded by the phone's limit, until the worker
 * hangs up at its end. The worker removes what it made under /tmp before
 * it exits, so that the leak check (main.c) sees the servers' memory as
 * it was; main.c also checks that no server died (same task ids).
 */
#include <console.h>
#include <dirent.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <ipc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include "vfuzz.h"

#define SF_WAIT_NS (5 * 1000000ull)
#define SF_IDS 16                    /* remembered handles and pipe ids */
#define SF_DATA (64 * 1024 + 4096)   /* the data buffer (FZ_POOL_RW is 64 KiB) */
#define SF_TMPFS_MAX (8ull << 20)    /* fs's default tmpfs limit */
#define SF_TOP_MAX 64                /* /tmp entries that were there before */
#define SF_PROGRESS 20000           /* calls between progress lines */
#define SF_LATE_MAX 48               /* late connects remembered */
#define SF_KEPT_MAX 48               /* kept calls before a new connection */

typedef struct sf {
	fz_t fz;                     /* the generator's state */
	int phone[SF_SERVERS];
	uint64_t handles[SF_IDS], pipes[SF_IDS];
	unsigned nhandles, npipes;
	uint64_t calls, answered, kept, refused, reconnects, connect_failed;
	errno_t connect_rc;              /* the last failed connect's error */
	ipc_callid_t last_id;            /* sf_call's last call */
	ipc_callid_t late[SF_LATE_MAX];  /* CONNECT_ME_TOs whose answer is late */
	unsigned nlate;
	uint64_t by_server[SF_SERVERS];
	unsigned kept_on[SF_SERVERS];    /* since its phone was connected */
} sf_t;

typedef void (*sf_req_t)(sf_t *s);

typedef struct sf_tpl {
	const char *name;
	unsigned server;
	unsigned weight;
	sf_req_t req;
} sf_tpl_t;

static const char *const sf_names[SF_SERVERS] = { "fs", "console", "ns" };
static uint8_t sf_data[SF_DATA];

/* ------------------------------------------------------------ calls */

/*
 * One call to server srv, waited for at most SF_WAIT_NS: the answer's
 * value (EOK or an error) with its args to *ans, ETIMEOUT if the server
 * keeps it, or the error of the send (ELIMIT: too many outstanding).
 */
static errno_t sf_call(sf_t *s, unsigned srv, uint64_t m, uint64_t a0, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, ipc_msg_t *ans)
{
	ipc_callid_t id;
	ipc_event_t ev;

	s->calls++;
	s->by_server[srv]++;
	errno_t rc = ipc_call_async(s->phone[srv], m, a0, a1, a2, a3, a4, &id);
	s->last_id = rc == EOK ? id : 0;
	if (rc != EOK) {
		s->refused++;
		return rc;
	}
	rc = sys_ipc_wait(&ev, SF_WAIT_NS, IPC_WAIT_ANSWER, id);
	if (rc != EOK) {
		s->kept++;
		s->kept_on[srv]++;
		return rc;
	}
	s->answered++;
	if (ans)
		*ans = ev.msg;
	return (errno_t)ev.msg.method;
}

/* Was id a late connect of ours? It is forgotten. */
static bool sf_late_connect(sf_t *s, ipc_callid_t id)
{
	for (unsigned i = 0; i < s->nlate; i++)
		if (s->late[i] == id) {
			s->late[i] = s->late[--s->nlate];
			return true;
		}
	return false;
}

/*
 * Take the answers that came after their wait (a late connect's phone is
 * hung up: phones are bounded, and it is ours though we did not wait),
 * and answer the calls made to us (ns's watch on a name we registered,
 * connects to it) ENOTSUP, so that no caller, ns included, is kept
 * waiting.
 */
static void sf_drain(sf_t *s)
{
	ipc_event_t ev;

	while (sys_ipc_wait(&ev, 0, IPC_WAIT_ALL | IPC_WAIT_NONBLOCK, 0) == EOK) {
		if (ev.type == IPC_EV_CALL)
			ipc_answer_0(ev.callid, ENOTSUP);
		else if (sf_late_connect(s, ev.callid) && ev.msg.method == EOK)
			sys_ipc_hangup((int)ev.msg.args[4]);
	}
}

/* ------------------------------------------------------------ values */

static uint64_t sf_pick(sf_t *s, const uint64_t *ids, unsigned n)
{
	unsigned k = n < SF_IDS ? n : SF_IDS;

	if (k && fz_chance(&s->fz, 80))
		return ids[fz_below(&s->fz, k)];
	return fz_chance(&s->fz, 50) ? fz_below(&s->fz, 1100) : fz_arg(&s->fz);
}

static void sf_keep(uint64_t *ids, unsigned *n, uint64_t v)
{
	ids[(*n)++ % SF_IDS] = v;
}

/* A data length: 0, small, page-ish, the limit and past it, or anything. */
static uint64_t sf_len(sf_t *s)
{
	switch (fz_below(&s->fz, 6)) {
	case 0: return 0;
	case 1: return fz_below(&s->fz, 64);
	case 2: return fz_below(&s->fz, 0x3000);
	case 3: return IPC_DATA_MAX - 1 + fz_below(&s->fz, 3);
	case 4: return fz_below(&s->fz, IPC_DATA_MAX);
	default: return fz_size(&s->fz);
	}
}

/* A buffer for len bytes: ours (filled), the pool's, or a bad pointer. */
static uint64_t sf_buf(sf_t *s, uint64_t len)
{
	uint64_t p = fz_below(&s->fz, 10);

	if (p < 7 && len <= SF_DATA)
		return (uint64_t)sf_data + fz_below(&s->fz, SF_DATA - len + 1);
	return p < 9 ? fz_pool_ptr(&s->fz) : fz_bad_ptr(&s->fz);
}

/* A file offset: 0, small, around the tmpfs limit, append, or anything. */
static uint64_t sf_off(sf_t *s)
{
	switch (fz_below(&s->fz, 6)) {
	case 0: return 0;
	case 1: return fz_below(&s->fz, 0x5000);
	case 2: return SF_TMPFS_MAX - 2 + fz_below(&s->fz, 4);
	case 3: return FS_OFF_APPEND;
	case 4: return fz_boundary(&s->fz);
	default: return fz_rand(&s->fz) >> fz_below(&s->fz, 64);
	}
}

/* A path into buf: mostly sane ones, sometimes random bytes; its length. */
static size_t sf_path(sf_t *s, char *buf, size_t size)
{
	static const char *const fixed[] = {
		"/tmp", "/tmp/a", "/tmp/b", "/tmp/a/b", "/tmp/d/e/f", "/bin/sh",
		"/bin", "/", "/dev/kpctl", "/dev/kpdata", "/pipe", "/tmp/..",
		"/tmp/./a", "//tmp//a", "/etc/motd", "",
	};
	uint64_t p = fz_below(&s->fz, 10);

	if (p < 6)
		return (size_t)snprintf(buf, size, "%s",
					fixed[fz_below(&s->fz, sizeof(fixed) / sizeof(fixed[0]))]);
	if (p < 8)
		return (size_t)snprintf(buf, size, "/pipe/%llu",
					(unsigned long long)sf_pick(s, s->pipes, s->npipes));
	size_t n = (size_t)fz_below(&s->fz, size);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(fz_chance(&s->fz, 70) ? 'a' + fz_below(&s->fz, 3)
				: fz_chance(&s->fz, 50) ? '/' : fz_rand(&s->fz));
	return n;
}

/* ------------------------------------------------------------ fs */

/* Stage a path (second: rename's target) with fs. */
static void sf_stage(sf_t *s, bool second)
{
	char path[FS_PATH_MAX + 16];
	size_t n = sf_path(s, path, sizeof(path));
	uint64_t len = fz_chance(&s->fz, 90) ? n : sf_len(s);

	sf_call(s, SF_FS, IPC_M_DATA_WRITE, fz_chance(&s->fz, 95) ? (uint64_t)path
		: fz_bad_ptr(&s->fz), len, second ? FS_DW_PATH2 : FS_DW_PATH, 0, 0, NULL);
}

static void sf_fs_open(sf_t *s)
{
	static const uint32_t flags[] = {
		O_RDONLY, O_WRONLY, O_RDWR, O_WRONLY | O_CREAT, O_RDWR | O_CREAT | O_TRUNC,
		O_WRONLY | O_CREAT | O_EXCL, O_RDONLY | O_DIRECTORY, O_WRONLY | O_APPEND,
	};
	ipc_msg_t ans;

	if (fz_chance(&s->fz, 90))
		sf_stage(s, false);
	uint64_t fl = fz_chance(&s->fz, 85) ? flags[fz_below(&s->fz, 8)] : fz_rand(&s->fz);
	if (sf_call(s, SF_FS, FS_M_OPEN, fl, 0, 0, 0, 0, &ans) == EOK)
		sf_keep(s->handles, &s->nhandles, ans.args[0]);
}

static void sf_fs_close(sf_t *s)
{
	sf_call(s, SF_FS, FS_M_CLOSE, sf_pick(s, s->handles, s->nhandles), 0, 0, 0, 0, NULL);
}

/* DATA_READ of a file, a stat or a directory entry through a handle. */
static void sf_fs_read(sf_t *s)
{
	static const uint64_t subs[] = { FS_DR_FILE, FS_DR_STAT, FS_DR_READDIR };
	uint64_t len = sf_len(s);
	uint64_t sub = fz_chance(&s->fz, 95) ? subs[fz_below(&s->fz, 3)] : fz_rand(&s->fz);
	uint64_t h = fz_chance(&s->fz, 10) ? FS_STAGED : sf_pick(s, s->handles, s->nhandles);

	if (h == FS_STAGED)
		sf_stage(s, false);
	sf_call(s, SF_FS, IPC_M_DATA_READ, sf_buf(s, len), len, sub, h,
		sub == FS_DR_READDIR ? fz_below(&s->fz, 40) : sf_off(s), NULL);
}

static void sf_fs_write(sf_t *s)
{
	uint64_t len = sf_len(s);
	uint64_t sub = fz_chance(&s->fz, 95) ? FS_DW_FILE : fz_rand(&s->fz);

	sf_call(s, SF_FS, IPC_M_DATA_WRITE, sf_buf(s, len), len, sub,
		sf_pick(s, s->handles, s->nhandles), sf_off(s), NULL);
}

static void sf_fs_truncate(sf_t *s)
{
	sf_call(s, SF_FS, FS_M_TRUNCATE, sf_pick(s, s->handles, s->nhandles), sf_off(s),
		0, 0, 0, NULL);
}

/* mkdir, unlink, rmdir, rename or info on a staged path. */
static void sf_fs_path(sf_t *s)
{
	static const uint64_t ms[] = { FS_M_MKDIR, FS_M_UNLINK, FS_M_RMDIR, FS_M_RENAME, FS_M_INFO };
	uint64_t m = ms[fz_below(&s->fz, 5)];

	if (m == FS_M_RENAME && fz_chance(&s->fz, 90))
		sf_stage(s, true);
	if (fz_chance(&s->fz, 90))
		sf_stage(s, false);
	sf_call(s, SF_FS, m, fz_chance(&s->fz, 80) ? 0 : fz_arg(&s->fz), 0, 0, 0, 0, NULL);
}

static void sf_fs_mkpipe(sf_t *s)
{
	ipc_msg_t ans;

	if (sf_call(s, SF_FS, FS_M_MKPIPE, 0, 0, 0, 0, 0, &ans) == EOK)
		sf_keep(s->pipes, &s->npipes, ans.args[0]);
}

/* Any method near fs's, or anything, with generic arguments. */
static void sf_any(sf_t *s, unsigned srv, uint64_t base)
{
	fz_t *f = &s->fz;
	uint64_t m = fz_chance(f, 60) ? base + fz_below(f, 24) : fz_chance(f, 50)
		? fz_below(f, IPC_M_USER + 64) : fz_rand(f);

	sf_call(s, srv, m, fz_arg(f), fz_arg(f), fz_arg(f), fz_arg(f), fz_arg(f), NULL);
}

static void sf_fs_any(sf_t *s)
{
	sf_any(s, SF_FS, FS_M_BASE);
}

/* ------------------------------------------------------------ console */

/* A write: mostly printable bytes (the log stays readable), then WRITE. */
static void sf_con_write(sf_t *s)
{
	uint64_t len = fz_below(&s->fz, 10) < 8 ? fz_below(&s->fz, 80) : sf_len(s);
	uint64_t src = sf_buf(s, len);
	ipc_msg_t ans;

	if (src >= (uint64_t)sf_data && src < (uint64_t)sf_data + SF_DATA && len)
		for (uint64_t i = 0; i < len && i < 80; i++)
			((uint8_t *)src)[i] = (uint8_t)(fz_chance(&s->fz, 97)
				? ' ' + fz_below(&s->fz, 95) : fz_rand(&s->fz));
	errno_t rc = sf_call(s, SF_CON, IPC_M_DATA_WRITE, src, len, 0, 0, 0, &ans);
	uint64_t n = rc == EOK && fz_chance(&s->fz, 90) ? ans.args[1] : fz_arg(&s->fz);
	sf_call(s, SF_CON, CONSOLE_M_WRITE, n, 0, 0, 0, 0, NULL);
}

/* A read: waits for typed input, so it is mostly kept. */
static void sf_con_read(sf_t *s)
{
	uint64_t len = sf_len(s);

	sf_call(s, SF_CON, IPC_M_DATA_READ, sf_buf(s, len), len, 0, 0, 0, NULL);
}

/* SET_MODE, SET_FG (self, 0, a server, anything), GET_SIZE. */
static void sf_con_ctl(sf_t *s)
{
	fz_t *f = &s->fz;
	uint64_t task = fz_chance(f, 30) ? fz_self_task : fz_chance(f, 30) ? 0
		: fz_below(f, 40);

	switch (fz_below(f, 3)) {
	case 0:
		sf_call(s, SF_CON, CONSOLE_M_SET_MODE, fz_chance(f, 80) ? fz_below(f, 3)
			: fz_arg(f), 0, 0, 0, 0, NULL);
		break;
	case 1:
		sf_call(s, SF_CON, CONSOLE_M_SET_FG, task, 0, 0, 0, 0, NULL);
		break;
	default:
		sf_call(s, SF_CON, CONSOLE_M_GET_SIZE, 0, 0, 0, 0, 0, NULL);
		break;
	}
}

static void sf_con_any(sf_t *s)
{
	sf_any(s, SF_CON, IPC_M_USER);
}

/* ------------------------------------------------------------ ns */

/* A name: a real service, a short one of ours, or random words. */
static void sf_name(sf_t *s, uint64_t args[IPC_ARGS])
{
	static const char *const names[] = { "fs", "console", "ns", "vfz-a", "vfz-b", "" };
	char name[48];
	fz_t *f = &s->fz;

	if (fz_chance(f, 80)) {
		snprintf(name, sizeof(name), "%s", names[fz_below(f, 6)]);
		if (fz_chance(f, 30))
			snprintf(name, sizeof(name), "vfz-%llu", (unsigned long long)fz_below(f, 100));
		if (ipc_name_pack(name, args) == EOK)
			return;
	}
	for (unsigned i = 0; i < IPC_ARGS; i++)
		args[i] = fz_chance(f, 50) ? fz_rand(f) : 0x6161616161616161ull;
}

/* CONNECT_ME_TO (the phone hung up at once), CONNECT_TO_ME or RELEASE. */
static void sf_ns(sf_t *s)
{
	static const uint64_t ms[] = { IPC_M_CONNECT_ME_TO, IPC_M_CONNECT_TO_ME, NS_M_RELEASE };
	uint64_t a[IPC_ARGS];
	ipc_msg_t ans;
	uint64_t m = ms[fz_below(&s->fz, 3)];

	sf_name(s, a);
	errno_t rc = sf_call(s, SF_NS, m, a[0], a[1], a[2], a[3], a[4], &ans);
	if (m != IPC_M_CONNECT_ME_TO)
		return;
	if (rc == EOK)
		sys_ipc_hangup((int)ans.args[4]);
	else if (rc == ETIMEOUT && s->nlate < SF_LATE_MAX)
		s->late[s->nlate++] = s->last_id;
}

static void sf_ns_any(sf_t *s)
{
	sf_any(s, SF_NS, IPC_M_LIBC);
}

/* ------------------------------------------------------------ the table */

static const sf_tpl_t sf_tpls[] = {
	{ "fs.open", SF_FS, 12, sf_fs_open },
	{ "fs.close", SF_FS, 5, sf_fs_close },
	{ "fs.read", SF_FS, 10, sf_fs_read },
	{ "fs.write", SF_FS, 12, sf_fs_write },
	{ "fs.truncate", SF_FS, 4, sf_fs_truncate },
	{ "fs.path", SF_FS, 8, sf_fs_path },
	{ "fs.mkpipe", SF_FS, 3, sf_fs_mkpipe },
	{ "fs.any", SF_FS, 4, sf_fs_any },
	{ "console.write", SF_CON, 6, sf_con_write },
	{ "console.read", SF_CON, 1, sf_con_read },
	{ "console.ctl", SF_CON, 4, sf_con_ctl },
	{ "console.any", SF_CON, 3, sf_con_any },
	{ "ns.name", SF_NS, 5, sf_ns },
	{ "ns.any", SF_NS, 2, sf_ns_any },
};
#define SF_NTPLS (sizeof(sf_tpls) / sizeof(sf_tpls[0]))

static unsigned sf_weight_total(unsigned mask)
{
	unsigned w = 0;

	for (unsigned i = 0; i < SF_NTPLS; i++)
		if (mask & (1u << sf_tpls[i].server))
			w += sf_tpls[i].weight;
	return w;
}

/* A template of the servers in mask, by weight. */
static const sf_tpl_t *sf_choose(sf_t *s, unsigned mask, unsigned total)
{
	unsigned r = (unsigned)fz_below(&s->fz, total);

	for (unsigned i = 0; i < SF_NTPLS; i++) {
		if (!(mask & (1u << sf_tpls[i].server)))
			continue;
		if (r < sf_tpls[i].weight)
			return &sf_tpls[i];
		r -= sf_tpls[i].weight;
	}
	return &sf_tpls[0];
}

/* ------------------------------------------------------------ the run */

/* Connect to the servers in mask (ns is phone 0); false if one is missing. */
static bool sf_connect(sf_t *s, unsigned mask)
{
	for (unsigned i = 0; i < SF_SERVERS; i++) {
		s->phone[i] = i == SF_NS ? IPC_NS_PHONE : -1;
		if (i != SF_NS && (mask & (1u << i)) &&
		    service_connect(sf_names[i], &s->phone[i]) != EOK) {
			printf("vfuzz: cannot connect to %s\n", sf_names[i]);
			return false;
		}
	}
	return true;
}

/*
 * A server that keeps many of our calls (console reads with no input,
 * pipe reads) would fill the phone's limit: hang up (it answers them
 * EHANGUP and closes our handles there) and connect again.
 */
static void sf_refresh(sf_t *s, unsigned mask)
{
	for (unsigned i = 0; i < SF_SERVERS; i++) {
		if (i == SF_NS || !(mask & (1u << i)))
			continue;
		if (s->phone[i] >= 0 && s->kept_on[i] < SF_KEPT_MAX)
			continue;
		if (s->phone[i] >= 0)
			sys_ipc_hangup(s->phone[i]);
		s->kept_on[i] = 0;
		s->reconnects++;
		if (i == SF_FS)
			s->nhandles = 0;      /* the old handles are gone */
		errno_t rc = service_connect(sf_names[i], &s->phone[i]);
		if (rc != EOK) {
			s->phone[i] = -1;     /* tried again after the next call */
			s->connect_failed++;
			s->connect_rc = rc;
		}
	}
}

/* Hang up: the servers answer what they kept and close our handles. */
static void sf_hangup(sf_t *s)
{
	for (unsigned i = 0; i < SF_SERVERS; i++)
		if (i != SF_NS && s->phone[i] >= 0)
			sys_ipc_hangup(s->phone[i]);
}

/* Remove path and, if it is a directory, what is in it. */
static void sf_remove(const char *path, unsigned depth)
{
	char sub[FS_PATH_MAX];
	DIR *d = depth < 16 ? opendir(path) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < (int)sizeof(sub))
			sf_remove(sub, depth + 1);
	}
	if (d) {
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The names in /tmp into top (at most SF_TOP_MAX); how many. */
static unsigned sf_tmp_names(char top[][FS_NAME_MAX + 1])
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)) && n < SF_TOP_MAX)
		snprintf(top[n++], FS_NAME_MAX + 1, "%s", e->d_name);
	if (d)
		closedir(d);
	return n;
}

/* Remove what is in /tmp now and was not in before[0..n). */
static void sf_tmp_clean(char before[][FS_NAME_MAX + 1], unsigned n)
{
	static char now[SF_TOP_MAX][FS_NAME_MAX + 1];
	char path[FS_PATH_MAX];
	unsigned m = sf_tmp_names(now);

	for (unsigned i = 0; i < m; i++) {
		bool old = !strcmp(now[i], ".") || !strcmp(now[i], "..");
		for (unsigned j = 0; j < n && !old; j++)
			old = !strcmp(now[i], before[j]);
		snprintf(path, sizeof(path), "/tmp/%s", now[i]);
		if (!old)
			sf_remove(path, 0);
	}
}

static void sf_report(const sf_t *s)
{
	printf("vfuzz: servers: %llu calls (fs %llu, console %llu, ns %llu): "
	       "%llu answered, %llu kept, %llu refused, %llu new connections\n",
	       (unsigned long long)s->calls, (unsigned long long)s->by_server[SF_FS],
	       (unsigned long long)s->by_server[SF_CON], (unsigned long long)s->by_server[SF_NS],
	       (unsigned long long)s->answered, (unsigned long long)s->kept,
	       (unsigned long long)s->refused, (unsigned long long)s->reconnects);
}

/* A progress line: calls so far, in how long, at what rate lately. */
static void sf_progress(const sf_t *s, uint64_t t0)
{
	static uint64_t last_ns, last_calls;
	uint64_t now = sys_clock_ns(CLOCK_MONOTONIC);
	uint64_t dt = now - (last_ns ? last_ns : t0) + 1;

	printf("\nvfuzz: worker %llu: %llu calls in %llu ms, %llu calls/s lately, %llu kept, "
	       "%llu refused, %llu failed connects (%d)\n",
	       (unsigned long long)fz_self_task, (unsigned long long)s->calls,
	       (unsigned long long)((now - t0) / 1000000),
	       (unsigned long long)((s->calls - last_calls) * 1000000000ull / dt),
	       (unsigned long long)s->kept, (unsigned long long)s->refused,
	       (unsigned long long)s->connect_failed, s->connect_rc);
	last_ns = now;
	last_calls = s->calls;
}

int sf_worker(uint64_t seed, uint64_t calls, unsigned mask)
{
	static sf_t s;
	static char before[SF_TOP_MAX][FS_NAME_MAX + 1];
	unsigned total = sf_weight_total(mask), n = sf_tmp_names(before);

	s.fz.rng = seed * 0x9e3779b97f4a7c15ull + 1;
	fz_self_task = sys_task_id();
	if (!total || fz_pool_init() != EOK || !sf_connect(&s, mask))
		return 1;
	uint64_t t0 = sys_clock_ns(CLOCK_MONOTONIC), next = SF_PROGRESS;
	while (s.calls < calls) {
		sf_choose(&s, mask, total)->req(&s);
		sf_drain(&s);
		sf_refresh(&s, mask);
		if (s.calls >= next) {
			next += SF_PROGRESS;
			sf_progress(&s, t0);
		}
	}
	sf_hangup(&s);
	sf_drain(&s);
	sf_tmp_clean(before, n);
	printf("\n");                  /* after a console write's partial line */
	sf_report(&s);
	return 0;
}

errno_t sf_parse_servers(const char *list, unsigned *mask)
{
	char word[16];
	const char *p = list;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(word))
			return EINVAL;
		memcpy(word, p, n);
		word[n] = 0;
		unsigned i = 0;
		while (i < SF_SERVERS && strcmp(word, sf_names[i]))
			i++;
		if (i == SF_SERVERS)
			return EINVAL;
		*mask |= 1u << i;
		p += n + (p[n] == ',');
	}
	return *mask ? EOK : EINVAL;
}

const char *sf_server_name(unsigned i)
{
	return i < SF_SERVERS ? sf_names[i] : "?";
}

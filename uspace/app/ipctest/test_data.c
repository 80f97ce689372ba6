/*
 * ipctest data: IPC_M_DATA_WRITE and IPC_M_DATA_READ of 64 KiB and of
 * odd sizes, with the content checked both ways.
 * ipctest badbuf: a bad client buffer fails the client's call with EFAULT
 * (the server's answer gets EIO) and the server lives on; a bad server
 * buffer makes the server's answer fail with EFAULT while the client,
 * answered again with a good buffer, gets its data.
 */
#include <string.h>

#include "ipctest.h"

static uint8_t wbuf[IPC_DATA_MAX], rbuf[IPC_DATA_MAX];
static const uint8_t read_only[4096] = { 1, 2, 3 };

typedef struct echo_stats {
	uint64_t seq_calls, len, sum;
	errno_t bad_rc, data_rc;
} echo_stats_t;

static errno_t get_stats(echo_stats_t *st)
{
	ipc_msg_t a;
	errno_t rc = call(echo_phone(), ECHO_STATS, 0, 0, 0, &a);

	st->seq_calls = a.args[0];
	st->len = a.args[1];
	st->sum = a.args[2];
	st->bad_rc = (errno_t)a.args[3];
	st->data_rc = (errno_t)a.args[4];
	return rc;
}

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 8) * 7 + seed);
}

/* A raw data call with args[2] = flags, waited for; the size moved to *moved. */
static errno_t data_call(uint64_t method, void *buf, size_t len, uint64_t flags,
			 size_t *moved)
{
	ipc_msg_t m = { .method = method,
			.args = { (uint64_t)(uintptr_t)buf, len, flags } };
	ipc_callid_t id;
	errno_t rc = sys_ipc_call(echo_phone(), &m, &id);

	if (rc == EOK)
		rc = ipc_wait_answer(id, ANSWER_TIMEOUT_NS, &m);
	*moved = rc == EOK ? (size_t)m.args[1] : 0;
	return rc;
}

static void data_full(void)
{
	echo_stats_t st;
	size_t got = 0;

	fill(wbuf, sizeof(wbuf), 1);
	uint64_t t0 = now_ns();
	errno_t rc = ipc_data_write(echo_phone(), wbuf, sizeof(wbuf));
	uint64_t dt = now_ns() - t0;
	errno_t rc2 = get_stats(&st);
	tap_ok(rc == EOK && rc2 == EOK && st.len == sizeof(wbuf) &&
	       st.sum == checksum(wbuf, sizeof(wbuf)),
	       "data: 64 KiB DATA_WRITE arrives intact (%s; server has %llu bytes, "
	       "checksum %s; %llu us)", err_str(rc), (unsigned long long)st.len,
	       st.sum == checksum(wbuf, sizeof(wbuf)) ? "matches" : "differs",
	       (unsigned long long)(dt / 1000));
	memset(rbuf, 0xee, sizeof(rbuf));
	rc = ipc_data_read(echo_phone(), rbuf, sizeof(rbuf), &got);
	tap_ok(rc == EOK && got == sizeof(rbuf) && !memcmp(rbuf, wbuf, sizeof(rbuf)),
	       "data: 64 KiB DATA_READ brings the same bytes back (%s, %zu bytes, %s)",
	       err_str(rc), got, memcmp(rbuf, wbuf, sizeof(rbuf)) ? "differ" : "equal");
}

static void data_sizes(void)
{
	echo_stats_t st;
	size_t done = 0, got = 0;

	fill(wbuf, 100, 2);
	errno_t rc = ipc_data_write_n(echo_phone(), wbuf, 100, &done);
	memset(rbuf, 0, sizeof(rbuf));
	errno_t rc2 = ipc_data_read(echo_phone(), rbuf, sizeof(rbuf), &got);
	tap_ok(rc == EOK && done == 100 && rc2 == EOK && got == 100 &&
	       !memcmp(rbuf, wbuf, 100) && rbuf[100] == 0,
	       "data: 100-byte write; a 64 KiB read gets those 100 bytes only "
	       "(%s %zu, %s %zu)", err_str(rc), done, err_str(rc2), got);
	fill(wbuf, sizeof(wbuf), 3);
	rc = ipc_data_write(echo_phone(), wbuf, sizeof(wbuf));
	memset(rbuf, 0, sizeof(rbuf));
	rc2 = ipc_data_read(echo_phone(), rbuf, 1000, &got);
	tap_ok(rc == EOK && rc2 == EOK && got == 1000 && !memcmp(rbuf, wbuf, 1000) &&
	       rbuf[1000] == 0, "data: a 1000-byte read of 64 KiB stored gets "
	       "exactly the first 1000 (%s, %zu)", err_str(rc2), got);
	rc = ipc_data_write_n(echo_phone(), wbuf, 0, &done);
	rc2 = get_stats(&st);
	tap_ok(rc == EOK && done == 0 && rc2 == EOK && st.len == 0,
	       "data: an empty write (%s, %zu, server has %llu)", err_str(rc), done,
	       (unsigned long long)st.len);
	ipc_msg_t m = { .method = IPC_M_DATA_WRITE,
			.args = { (uint64_t)(uintptr_t)wbuf, IPC_DATA_MAX + 1 } };
	rc = sys_ipc_call(echo_phone(), &m, NULL);
	rc2 = ipc_data_write(echo_phone(), wbuf, IPC_DATA_MAX + 1);
	tap_ok(rc == EINVAL && rc2 == E2BIG, "data: more than 64 KiB is refused "
	       "(kernel %s, libc %s)", err_str(rc), err_str(rc2));
}

void test_data(void)
{
	if (!tap_ok(echo_phone() >= 0, "data: echo server running"))
		return;
	data_full();
	data_sizes();
}

/* ------------------------------------------------------------ badbuf */

static bool echo_alive(void)
{
	ipc_msg_t a;

	return call(echo_phone(), ECHO_PING, 41, 0, 0, &a) == EOK && a.args[0] == 42;
}

static void bad_client(void)
{
	echo_stats_t st;
	size_t got = 0;

	errno_t rc = ipc_data_write(echo_phone(), BAD_ADDR, 4096);
	errno_t rc2 = get_stats(&st);
	tap_ok(rc == EFAULT && rc2 == EOK && st.data_rc == EIO && echo_alive(),
	       "badbuf: DATA_WRITE from an unmapped client buffer: client EFAULT "
	       "(%s), server's answer EIO (%s), server alive", err_str(rc),
	       err_str(st.data_rc));
	rc = ipc_data_write(echo_phone(), (void *)0xffffffff80000000ul, 64);
	rc2 = get_stats(&st);
	tap_ok(rc == EFAULT && st.data_rc == EIO && echo_alive(),
	       "badbuf: DATA_WRITE from a kernel address: client EFAULT (%s), "
	       "server EIO (%s), server alive", err_str(rc), err_str(st.data_rc));
	fill(wbuf, 4096, 4);
	ipc_data_write(echo_phone(), wbuf, 4096);
	rc = ipc_data_read(echo_phone(), (void *)read_only, sizeof(read_only), &got);
	rc2 = get_stats(&st);
	const volatile uint8_t *ro = read_only;
	tap_ok(rc == EFAULT && st.data_rc == EIO && ro[0] == 1 && ro[4] == 0 &&
	       echo_alive(),
	       "badbuf: DATA_READ into read-only client memory: client EFAULT (%s), "
	       "server EIO (%s), memory untouched, server alive", err_str(rc),
	       err_str(st.data_rc));
}

static void bad_server(void)
{
	echo_stats_t st;
	size_t moved = 0;

	fill(wbuf, sizeof(wbuf), 5);
	errno_t rc = data_call(IPC_M_DATA_WRITE, wbuf, sizeof(wbuf), DATA_BAD_SERVER,
			       &moved);
	errno_t rc2 = get_stats(&st);
	tap_ok(rc == EOK && moved == sizeof(wbuf) && rc2 == EOK &&
	       st.bad_rc == EFAULT && st.data_rc == EOK &&
	       st.sum == checksum(wbuf, sizeof(wbuf)),
	       "badbuf: DATA_WRITE answered with a bad server buffer: server gets "
	       "EFAULT (%s) and answers again; client gets all its data there (%s, %zu)",
	       err_str(st.bad_rc), err_str(rc), moved);
	memset(rbuf, 0, sizeof(rbuf));
	rc = data_call(IPC_M_DATA_READ, rbuf, sizeof(rbuf), DATA_BAD_SERVER, &moved);
	rc2 = get_stats(&st);
	tap_ok(rc == EOK && moved == sizeof(rbuf) && rc2 == EOK &&
	       st.bad_rc == EFAULT && !memcmp(rbuf, wbuf, sizeof(rbuf)),
	       "badbuf: DATA_READ answered from a bad server buffer: server gets "
	       "EFAULT (%s); client then reads the right bytes (%s, %zu, %s)",
	       err_str(st.bad_rc), err_str(rc), moved,
	       memcmp(rbuf, wbuf, sizeof(rbuf)) ? "differ" : "equal");
}

void test_badbuf(void)
{
	if (!tap_ok(echo_phone() >= 0, "badbuf: echo server running"))
		return;
	bad_client();
	bad_server();
}

/*
 * fstest: the file service protocol spoken on a phone of one's own, as a
 * careless or hostile client would (no libc file calls in between).
 */
#include "fstest.h"

int raw_connect(void)
{
	int phone;

	return service_connect(FS_SERVICE, &phone) == EOK ? phone : -1;
}

errno_t raw_stage(int phone, const char *path)
{
	return ipc_call_sync(phone, IPC_M_DATA_WRITE, (uintptr_t)path,
			     strlen(path), FS_DW_PATH, 0, 0, NULL);
}

errno_t raw_open(int phone, const char *path, uint32_t flags, uint64_t *h)
{
	ipc_msg_t ans = { 0 };
	errno_t rc = raw_stage(phone, path);

	if (rc == EOK)
		rc = ipc_call_sync(phone, FS_M_OPEN, flags, 0, 0, 0, 0, &ans);
	*h = ans.args[0];
	return rc;
}

errno_t raw_close(int phone, uint64_t h)
{
	return ipc_call_sync(phone, FS_M_CLOSE, h, 0, 0, 0, 0, NULL);
}

/* FS_M_MKPIPE; the new pipe's name goes to path (32 bytes). */
errno_t raw_mkpipe(int phone, char *path)
{
	ipc_msg_t ans;
	errno_t rc = ipc_call_sync(phone, FS_M_MKPIPE, 0, 0, 0, 0, 0, &ans);

	if (rc == EOK)
		snprintf(path, 32, "/pipe/%lu", (unsigned long)ans.args[0]);
	return rc;
}

/* One DATA_READ / DATA_WRITE of up to n bytes; the count goes to *moved. */
errno_t raw_io(int phone, bool write, uint64_t h, void *buf, size_t n,
	       size_t *moved)
{
	ipc_msg_t ans;
	errno_t rc = ipc_call_sync(phone, write ? IPC_M_DATA_WRITE
					       : IPC_M_DATA_READ,
				   (uintptr_t)buf, n, write ? FS_DW_FILE : FS_DR_FILE,
				   h, 0, &ans);

	*moved = rc == EOK ? (size_t)ans.args[1] : 0;
	return rc;
}

errno_t raw_stat(int phone, const char *path, fs_stat_t *st)
{
	errno_t rc = raw_stage(phone, path);

	if (rc == EOK)
		rc = ipc_call_sync(phone, IPC_M_DATA_READ, (uintptr_t)st,
				   sizeof(*st), FS_DR_STAT, FS_STAGED, 0, NULL);
	return rc;
}


errno_t raw_write_at(int phone, uint64_t h, const void *buf, size_t n,
		     uint64_t off, size_t *moved)
{
	ipc_msg_t ans;
	errno_t rc = ipc_call_sync(phone, IPC_M_DATA_WRITE, (uintptr_t)buf, n,
				   FS_DW_FILE, h, off, &ans);

	*moved = rc == EOK ? (size_t)ans.args[1] : 0;
	return rc;
}

errno_t raw_usage(fs_usage_t *u)
{
	int phone = raw_connect();

	if (phone < 0)
		return ENOENT;
	memset(u, 0, sizeof(*u));
	errno_t rc = ipc_call_sync(phone, IPC_M_DATA_READ, (uintptr_t)u,
				   sizeof(*u), FS_DR_USAGE, 0, 0, NULL);
	sys_ipc_hangup(phone);
	return rc;
}

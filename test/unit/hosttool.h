/*
 * Helpers for unit tests that run a host tool (build/host/vprof,
 * build/host/cprofalyze) on files in a scratch directory laid out like
 * the initrd: DIR/bin/app.nm and DIR/boot/kernel.nm.
 */
#ifndef TEST_HOSTTOOL_H
#define TEST_HOSTTOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>   /* mkdir; stdlib.h has WIFEXITED (glibc) */

#include "tap.h"

/* Run cmd through the shell; its stdout (NUL-terminated) in buf; its exit status. */
static inline int tool_run(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(buf, 1, size - 1, p) : 0;

	buf[n] = '\0';
	int st = p ? pclose(p) : -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Write len bytes of data to path (abort on failure). */
static inline void tool_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

/*
 * Make the scratch directory dir (a mkdtemp template, changed in place)
 * with bin/app.nm and boot/kernel.nm holding the given nm texts.
 */
static inline void tool_root(char *dir, const char *app_nm, const char *kernel_nm)
{
	char path[600];

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/bin", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/boot", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bin/app.nm", dir);
	tool_write(path, app_nm, strlen(app_nm));
	snprintf(path, sizeof(path), "%s/boot/kernel.nm", dir);
	tool_write(path, kernel_nm, strlen(kernel_nm));
}

/*
 * A copy of BUILD/host/TOOL in a fresh build-like directory b (a mkdtemp
 * template, changed in place) whose initrd-root links to dir, so the copy
 * finds dir as its default root (uspace/lib/prof/include/hostroot.h). Aborts on failure.
 */
static inline void tool_stage(char *b, const char *tool, const char *build, const char *dir)
{
	char cmd[1400];

	if (!mkdtemp(b))
		abort();
	snprintf(cmd, sizeof(cmd), "mkdir %s/host && cp %s/host/%s %s/host/ && ln -s %s "
		 "%s/initrd-root", b, build, tool, b, dir, b);
	if (system(cmd) != 0)
		abort();
}

/*
 * The usage contract of BUILD/host/TOOL, as five test points: -h prints
 * the usage (text starting with usage) to stdout and exits 0; no
 * arguments print it to stderr and exit 2; -x ARG (an unknown option)
 * exits 2. text (size bytes) is scratch space.
 */
static inline void tool_usage_checks(const char *build, const char *tool, const char *usage,
				     const char *arg, char *text, size_t size)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "%s/host/%s -h 2>/dev/null", build, tool);
	is_int(tool_run(cmd, text, size), 0, "%s -h exits 0", tool);
	ok(strncmp(text, usage, strlen(usage)) == 0, "-h prints the usage to stdout");
	snprintf(cmd, sizeof(cmd), "%s/host/%s 2>&1 >/dev/null", build, tool);
	is_int(tool_run(cmd, text, size), 2, "%s without arguments exits 2", tool);
	ok(strstr(text, usage) != NULL, "usage on stderr");
	snprintf(cmd, sizeof(cmd), "%s/host/%s -x %s 2>/dev/null", build, tool, arg);
	is_int(tool_run(cmd, text, size), 2, "unknown option exits 2");
}

#endif

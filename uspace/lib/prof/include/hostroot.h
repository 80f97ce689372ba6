/*
 * hostroot.h - where the host tools (vprof, kprof, cprofalyze) find
 * the staged guest root when no root is given: next to their own binary,
 * BUILD/host/TOOL -> BUILD/initrd-root (tools/mkinitrd.sh stages it), found
 * through /proc/self/exe, so they work from any directory. Host only;
 * header-only because each tool is one source file.
 */
#ifndef PROF_HOSTROOT_H
#define PROF_HOSTROOT_H

#include <string.h>
#include <unistd.h>

#define HOSTROOT_FALLBACK "build/initrd-root"   /* no /proc: relative, as before */
#define HOSTROOT_DIR "/initrd-root"

/*
 * The staged root of the build the running tool belongs to, in buf
 * (size bytes): the tool's directory's parent + HOSTROOT_DIR. Returns buf,
 * or HOSTROOT_FALLBACK when /proc/self/exe cannot be read or is too long.
 */
static inline const char *hostroot_default(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		return HOSTROOT_FALLBACK;
	buf[n] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(buf, '/');
		if (!slash)
			return HOSTROOT_FALLBACK;
		*slash = '\0';
	}
	if (strlen(buf) + sizeof(HOSTROOT_DIR) > size)
		return HOSTROOT_FALLBACK;
	strcat(buf, HOSTROOT_DIR);
	return buf;
}

#endif

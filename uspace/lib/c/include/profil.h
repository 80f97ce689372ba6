/*
 * The classic profiler (MINIX's profile/getprofile; see README "profil"
 * and <abi/profil.h> for struct profil_data).
 *
 * profile(pid, startaddr, endaddr, interval) starts counting task pid's
 * user PCs in [startaddr, endaddr) of its text segment (absolute
 * addresses; startaddr 0: the text start; endaddr 0: the text end) in
 * bins of the smallest size that covers the range with PROFIL_MAX_BINS
 * bins, or interval if larger (interval 0: the smallest). pid 0 stops the
 * profile and never fails. The kernel stops by itself when the task exits
 * or a bin would overflow.
 *
 * getprofile(p) copies the current profile (while one runs) or the last
 * one into *p.
 *
 * Both return 0, or -1 with errno set: ESRCH (no such task), EFAULT
 * (startaddr > endaddr, an interval too small for PROFIL_MAX_BINS bins,
 * a range outside the text segment, a bad p), EBUSY (a profile of some
 * task is running) or EGENERIC (anything else, e.g. not allowed: only the
 * task itself, its parent or a PERM_PROFILE task may profile it).
 */
#ifndef _PROFILE_H
#define _PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <abi/profil.h>
#include <abi/task.h>

int profile(task_id_t pid, uintptr_t startaddr, uintptr_t endaddr, size_t interval);
int getprofile(struct profil_data *p);

#endif

/* signal and raise: see <signal.h> for what a signal is on Vernier. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "libc.h"

static sighandler_t handlers[NSIG];

static bool valid(int sig)
{
	return sig > 0 && sig < NSIG;
}

static bool ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
		sig == SIGCONT;
}

/* Swap in handler for sig; the old one, or SIG_ERR (EINVAL). */
sighandler_t signal(int sig, sighandler_t handler)
{
	if (!valid(sig) || sig == SIGKILL || sig == SIGSTOP) {
		errno = EINVAL;
		return SIG_ERR;
	}
	return __atomic_exchange_n(&handlers[sig], handler, __ATOMIC_ACQ_REL);
}

/* Run sig's handler, ignore it, or exit 128 + sig; -1 (EINVAL) if bad. */
int raise(int sig)
{
	if (!valid(sig)) {
		errno = EINVAL;
		return -1;
	}
	sighandler_t h = __atomic_load_n(&handlers[sig], __ATOMIC_ACQUIRE);
	if (h == SIG_IGN || (h == SIG_DFL && ignored_by_default(sig)))
		return 0;
	if (h == SIG_DFL)
		_Exit(128 + sig);
	h(sig);
	return 0;
}

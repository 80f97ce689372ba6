/*
 * console: the console server. Registers as "console", takes the kernel's
 * consoles over (SYS_CONSOLE_CLAIM) and from then on owns COM1 (interrupt
 * driven both ways), the PS/2 keyboard and the screen (VGA text or the
 * framebuffer). Clients speak the terminal protocol of <console.h>; the
 * kernel log is copied to the serial line and the screen by a thread.
 * init starts it with PERM_IO | PERM_IRQ | PERM_KILL.
 */
#include <console.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "console.h"

#define NEEDED_PERMS (PERM_IO | PERM_IRQ)
#define IDLE_POLL_NS (50 * 1000000ull)   /* catches a lost edge interrupt */
#define BUSY_POLL_NS (2 * 1000000ull)

static void usage(FILE *out)
{
	fprintf(out, "usage: console [-h]\n"
		"  the console server (started by init with PERM_IO|PERM_IRQ|PERM_KILL)\n");
}

/* Our own stdout/stderr: straight into the output path. */
static ssize_t self_write(void *cookie, const char *buf, size_t n)
{
	pthread_mutex_lock(&out_lock);
	size_t done = out_write(buf, n);
	pthread_mutex_unlock(&out_lock);
	return done > 0 ? (ssize_t)done : -1;
}

static void self_stdio(void)
{
	static const cookie_io_functions_t io = { .write = self_write };

	console_stdio_detach();
	fsetcookie(stdout, NULL, io);
	fsetcookie(stderr, NULL, io);
}

static bool have_perms(void)
{
	task_info_t info;

	return sys_task_info(sys_task_id(), &info) == EOK &&
		(info.perms & NEEDED_PERMS) == NEEDED_PERMS;
}

/* Set the devices up and take the consoles over; false on failure. */
static bool console_setup(char *screen, size_t size)
{
	if (!screen_init(screen, size))
		snprintf(screen, size, "no screen");
	if (!uart_init())
		fprintf(stderr, "console: no COM1\n");
	if (!kbd_init())
		fprintf(stderr, "console: no keyboard IRQ\n");
	klog_mark();
	long rc = __vernier_syscall(SYS_CONSOLE_CLAIM, 1, 0, 0, 0, 0, 0);
	if (rc < 0) {
		fprintf(stderr, "console: cannot claim the consoles (error %ld)\n", -rc);
		return false;
	}
	self_stdio();
	return true;
}

static void dispatch(const ipc_event_t *ev)
{
	if (ev->type == IPC_EV_NOTIFY && ev->msg.method == CON_M_IRQ_UART)
		uart_irq();
	else if (ev->type == IPC_EV_NOTIFY && ev->msg.method == CON_M_IRQ_KBD)
		kbd_irq();
	else
		tty_event(ev);
}

static int serve(void)
{
	ipc_event_t ev;

	for (;;) {
		uint64_t t = tty_busy() ? BUSY_POLL_NS : IDLE_POLL_NS;
		errno_t rc = sys_ipc_wait(&ev, t, IPC_WAIT_CALLS, 0);
		if (rc == EOK)
			dispatch(&ev);
		else if (rc == ETIMEOUT)
			uart_poll();
		else if (rc == EINTR)
			return 1;
		tty_progress();
	}
}

int main(int argc, char **argv)
{
	char screen[64];

	if (argc > 1) {
		usage(strcmp(argv[1], "-h") ? stderr : stdout);
		return 2;
	}
	if (!have_perms()) {
		fprintf(stderr, "console: needs PERM_IO and PERM_IRQ\n");
		return 1;
	}
	if (!console_setup(screen, sizeof(screen)))
		return 1;
	fg_init();
	if (!klog_start())
		printf("console: no klog thread; kernel messages are not shown\n");
	errno_t rc = service_register(CONSOLE_SERVICE);
	if (rc != EOK) {
		printf("console: cannot register (error %d)\n", rc);
		__vernier_syscall(SYS_CONSOLE_CLAIM, 0, 0, 0, 0, 0, 0);
		return 1;
	}
	printf("console: serving COM1 and %s\n", screen);
	return serve();
}

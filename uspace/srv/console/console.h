/*
 * The console server's modules (private header). Threads: the main thread
 * runs the IPC loop (clients, IRQ notifications); the klog thread copies
 * the kernel log. Output from both goes through out_write() under the
 * output lock.
 */
#ifndef CONSOLE_SRV_H
#define CONSOLE_SRV_H

#include <ipc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/io.h>

/* IRQ notification methods. */
#define CON_M_IRQ_UART (IPC_M_USER + 100)
#define CON_M_IRQ_KBD (IPC_M_USER + 101)
#define IRQ_UART 4
#define IRQ_KBD 1

/* ---- uart.c: COM1, interrupt driven */
/* Set up COM1 (FIFO, RX and TX interrupts) and subscribe to IRQ 4. */
bool uart_init(void);
/* Queue bytes ('\n' becomes CRLF); returns how many were taken. Locked. */
size_t uart_queue(const char *s, size_t n);
/* Free room in the TX ring, in input bytes (worst case). Locked. */
size_t uart_room(void);
/* Serve an IRQ 4 notification (RX into the input path, TX ring). */
void uart_irq(void);
/* Bytes queued since start / bytes handed to the UART since start. */
uint64_t uart_queued(void);
uint64_t uart_sent(void);
/* Serve the UART by polling (a lost interrupt). IPC thread only. */
void uart_poll(void);
/* Move TX bytes into the UART if it can take them (any thread). */
void uart_kick(void);

/* ---- kbd.c: PS/2 keyboard */
/* Subscribe to IRQ 1 and drain the controller. */
bool kbd_init(void);
/* Serve an IRQ 1 notification. */
void kbd_irq(void);

/* ---- screen.c: VGA text or framebuffer */
/* Find and map the screen; describes it into desc (NULL: none). */
bool screen_init(char *desc, size_t size);
/* Draw bytes (with a small ANSI subset). */
void screen_write(const char *s, size_t n);
/* Rows and columns of the screen (25x80 without one). */
void screen_size(unsigned *rows, unsigned *cols);

/* ---- output.c */
/* The output lock: held around every out_write sequence. */
extern pthread_mutex_t out_lock;
/* Write to screen and serial; returns bytes taken by the serial ring. */
size_t out_write(const char *s, size_t n);
/* Whether the last byte written ended a line. */
bool out_at_line_start(void);
/* Lock, write a whole string, unlock (messages, echo). */
void out_puts(const char *s);

/* ---- tty.c: the line discipline and the input queue */
/* One input byte from the serial line or the keyboard. */
void tty_input(unsigned char c);
/* Set the mode; return the old one. */
unsigned tty_set_mode(unsigned mode);
/* Whether a read could be answered now. */
bool tty_readable(void);
/*
 * Copy what one read gets (up to len bytes; one line in cooked mode) to
 * buf without taking it; *eof: an end of file comes first (0 bytes).
 */
size_t tty_peek(char *buf, size_t len, bool *eof);
/* Take what tty_peek gave (n bytes, or the end of file). */
void tty_consume(size_t n, bool eof);

/* ---- fg.c: the foreground (who is served, who may set it) */
/* At start: the console's parent (init) and its tree hold the terminal. */
void fg_init(void);
/* May caller change the foreground or the mode (it is in the foreground)? */
bool fg_controls(task_id_t caller);
/* Is input served to reader (the foreground's tree)? */
bool fg_serves(task_id_t reader);
/*
 * CONSOLE_M_SET_FG(target, how) from caller with perms: EOK, EPERM,
 * EINVAL, ESRCH (target not running) or ELIMIT (group full); *old: the
 * first group member before.
 */
errno_t fg_set(task_id_t caller, uint32_t perms, task_id_t target,
	       unsigned how, task_id_t *old);
/* Ctrl-C: kill the foreground group. */
void fg_interrupt(void);
/* The holder (0: none alive); *member: the first group member or 0. */
task_id_t fg_status(task_id_t *member);

/* ---- readq.c: queued reads, served to the foreground only */
/* Queue a DATA_READ: EOK, or ELIMIT past the task, tree or total bound. */
errno_t readq_push(const ipc_event_t *ev);
/* Answer the foreground's reads while there is input. */
void readq_serve(void);
/* Answer EHANGUP to the reads of connection conn and drop them. */
void readq_drop_conn(uint64_t conn);
/* Reads queued in all, by task, by its tree (whose root goes to *root). */
void readq_usage(task_id_t task, unsigned *all, unsigned *mine, unsigned *tree,
		 task_id_t *root);

/* ---- client.c: the terminal protocol */
/* Handle a client call or notification; false if not ours. */
void tty_event(const ipc_event_t *ev);
/* Answer what became possible (after IRQs / input / drained output). */
void tty_progress(void);
/* Whether output is waiting to be sent (the loop then polls). */
bool tty_busy(void);

/* ---- klog.c */
/* Note the kernel log position now (before the claim). */
void klog_mark(void);
/* Start the thread copying the kernel log from the mark. */
bool klog_start(void);
/*
 * Copy the complete kernel log lines logged so far (the IPC thread calls
 * it before user output, so kernel lines keep their place).
 */
void klog_sync(void);

#endif

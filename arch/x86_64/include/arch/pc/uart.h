/* COM1 serial console. */
#ifndef ARCH_PC_UART_H
#define ARCH_PC_UART_H

/* Program COM1 for 115200 8N1 and register it as a console if present. */
void uart_init(void);

#endif

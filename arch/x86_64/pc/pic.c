/* The legacy 8259 PICs: remapped out of the exception range, then masked. */
#include <arch/io.h>
#include <arch/pc/pc.h>

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1

void pic_disable(void)
{
	outb(PIC1_CMD, 0x11);       /* ICW1: init, ICW4 follows */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, 0x20);      /* ICW2: vectors 0x20-0x27 */
	outb(PIC2_DATA, 0x28);      /*       and 0x28-0x2f */
	outb(PIC1_DATA, 0x04);      /* ICW3: slave on IRQ2 */
	outb(PIC2_DATA, 0x02);
	outb(PIC1_DATA, 0x01);      /* ICW4: 8086 mode */
	outb(PIC2_DATA, 0x01);
	outb(PIC1_DATA, 0xff);      /* mask everything */
	outb(PIC2_DATA, 0xff);
}

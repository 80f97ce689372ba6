/*
 * Leaf callers (lib/profleaf.h): the function's first bytes and the
 * PC's place in them say where its return address is; the bytes before
 * that word say whether it is one.
 */
#include <lib/elf.h>
#include <lib/profleaf.h>
#include <lib/string.h>

#define LEAF_PUSH_RBP 0x55
#define LEAF_RET 0xc3
#define LEAF_CALL_REL 0xe8
#define LEAF_GROUP5 0xff           /* ff /2: call indirect */

#define LEAF_SCAN 24               /* bytes searched for the mov of the prologue */

static const unsigned char leaf_mov_rbp[] = { 0x48, 0x89, 0xe5 };   /* mov %rsp,%rbp */

size_t profleaf_read(const void *elf, size_t size, uint64_t va, void *buf, size_t want)
{
	const unsigned char *img = elf;
	elf64_ehdr_t eh;

	if (!elf || size < sizeof(eh))
		return 0;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, "\177ELF", 4) || eh.e_phentsize < sizeof(elf64_phdr_t))
		return 0;
	for (uint32_t i = 0; i < eh.e_phnum; i++) {
		elf64_phdr_t ph;
		uint64_t at = eh.e_phoff + (uint64_t)i * eh.e_phentsize;
		if (at > size || size - at < sizeof(ph))
			return 0;
		memcpy(&ph, img + at, sizeof(ph));
		if (ph.p_type != PT_LOAD || va < ph.p_vaddr || va - ph.p_vaddr >= ph.p_filesz ||
		    ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		uint64_t off = va - ph.p_vaddr, n = ph.p_filesz - off;
		n = n < want ? n : want;
		memcpy(buf, img + ph.p_offset + off, n);
		return n;
	}
	return 0;
}

/* Is ret a return address after a call to fstart (or an indirect call)? */
static int leaf_after_call(const void *elf, size_t size, uint64_t ret, uint64_t fstart)
{
	unsigned char b[7];
	int32_t rel;

	if (ret < sizeof(b) || profleaf_read(elf, size, ret - sizeof(b), b, sizeof(b)) != sizeof(b))
		return 0;
	memcpy(&rel, &b[3], 4);
	if (b[2] == LEAF_CALL_REL && ret + (uint64_t)(int64_t)rel == fstart)
		return 1;
	if (b[5] == LEAF_GROUP5 && ((b[6] & 0xf8) == 0xd0 ||    /* call *%reg */
				    ((b[6] & 0xf8) == 0x10 && (b[6] & 6) != 4)))  /* call *(%reg) */
		return 1;
	if (b[1] == LEAF_GROUP5 && b[2] == 0x15)                /* call *disp32(%rip) */
		return 1;
	return b[4] == LEAF_GROUP5 && (b[5] & 0x38) == 0x10 &&  /* call *disp8(%reg) */
	       (b[5] & 0xc0) == 0x40 && (b[5] & 7) != 4;
}

/* Offset of the prologue's mov %rsp,%rbp in head (n bytes); 0 if none. */
static size_t leaf_find_mov(const unsigned char *head, size_t n)
{
	for (size_t i = 1; i + sizeof(leaf_mov_rbp) <= n; i++) {
		if (!memcmp(head + i, leaf_mov_rbp, sizeof(leaf_mov_rbp)))
			return i;
	}
	return 0;
}

/* Is the instruction at pc the mov %rsp,%rbp (rbp just pushed)? */
static int leaf_at_mov(const void *elf, size_t size, uint64_t pc)
{
	unsigned char b[sizeof(leaf_mov_rbp)];

	return profleaf_read(elf, size, pc, b, sizeof(b)) == sizeof(b) &&
	       !memcmp(b, leaf_mov_rbp, sizeof(b));
}

/*
 * Which top word holds the return address (-1: the frame is set up, or
 * unknown). GCC may schedule other instructions between the push and the
 * mov: until the mov has run, rbp is the caller's and the return address
 * is above the pushed rbp. GCC also shrink-wraps: a function that calls
 * only on some paths sets up its frame just around the call, so the rest
 * of it runs with no frame (the return address at [rsp]).
 */
static int leaf_slot(const void *elf, size_t size, uint64_t fstart, uint64_t pc)
{
	unsigned char head[LEAF_SCAN], at;
	size_t n = profleaf_read(elf, size, fstart, head, sizeof(head));

	if (n == 0 || profleaf_read(elf, size, pc, &at, 1) != 1)
		return -1;
	if (head[0] != LEAF_PUSH_RBP)                   /* no frame, or a shrink-wrapped one */
		return leaf_at_mov(elf, size, pc) ? 1 : 0;
	size_t mov = leaf_find_mov(head, n);
	if (pc == fstart)
		return 0;                               /* at the push */
	if (mov && pc <= fstart + mov)
		return 1;                               /* rbp pushed, not yet moved */
	return at == LEAF_RET ? 0 : -1;                 /* after pop/leave, or set up */
}

uint64_t profleaf_caller(const void *elf, size_t size, uint64_t fstart, uint64_t pc,
			 const uint64_t *top, size_t ntop)
{
	int slot = pc >= fstart ? leaf_slot(elf, size, fstart, pc) : -1;

	if (slot < 0 || (size_t)slot >= ntop || !top[slot])
		return 0;
	return leaf_after_call(elf, size, top[slot], fstart) ? top[slot] : 0;
}

/*
 * The perf export: a perf.data file in Linux perf's own format
 * (tools/perf/Documentation/perf.data-file-format.txt, the records of
 * include/uapi/linux/perf_event.h) that perf report, perf script and
 * perf annotate read. One SAMPLE per sample of the stream (the records
 * the report kept, prof_report_records: perf.data holds single samples
 * with their times, which the model's stacks do not), event "cpu-clock"
 * (PERF_TYPE_SOFTWARE, time-weighted: the period is the sample's weight
 * in ns); with the wall clock (opts.wall) each off-CPU record is a
 * sample of a second event "offcpu-time", its period the ns off the
 * CPU, as perf record --off-cpu writes them. Before the samples: a COMM
 * per thread, an MMAP2 of the kernel ("[kernel.kallsyms]__text_start") and of
 * every program a sampled task ran (its text, the file offset of it,
 * the stream's path: perf finds it under --symfs ROOT), the build-id
 * variant where the ELF has a GNU build-id note. Features: build-ids,
 * OS release, version, arch, CPUs, command line, event names, sample
 * times. Times are ns since the stream's header.
 */
#include "px.h"
#include <abi/profile.h>
#include <lib/elf.h>
#include <lib/string.h>

/* ---------------------------------------------------------------- perf's numbers */

#define PF_HEADER_SIZE 104              /* struct perf_file_header */
#define PF_ATTR_SIZE 128                /* PERF_ATTR_SIZE_VER7 */
#define PF_SECTION 16                   /* struct perf_file_section */
#define PF_NAME_ALIGN 64                /* feature strings and build-id names */

#define PF_TYPE_SOFTWARE 1
#define PF_SW_CPU_CLOCK 0
#define PF_SW_BPF_OUTPUT 10             /* perf record --off-cpu's event */

#define PF_S_IP (1u << 0)
#define PF_S_TID (1u << 1)
#define PF_S_TIME (1u << 2)
#define PF_S_CALLCHAIN (1u << 5)
#define PF_S_CPU (1u << 7)
#define PF_S_PERIOD (1u << 8)
#define PF_S_IDENTIFIER (1u << 16)
#define PF_SAMPLE_TYPE (PF_S_IDENTIFIER | PF_S_IP | PF_S_TID | PF_S_TIME | PF_S_CPU | \
			PF_S_PERIOD | PF_S_CALLCHAIN)

/* attr flag bits: mmap, comm, sample_id_all, exclude_guest, mmap2, comm_exec */
#define PF_ATTR_FLAGS ((1ull << 8) | (1ull << 9) | (1ull << 18) | (1ull << 20) | \
		       (1ull << 23) | (1ull << 24))

#define PF_REC_MMAP2 10
#define PF_REC_COMM 3
#define PF_REC_SAMPLE 9
#define PF_MISC_KERNEL 1
#define PF_MISC_USER 2
#define PF_MISC_MMAP_BUILD_ID (1u << 14)
#define PF_MISC_BUILD_ID_SIZE (1u << 15)
#define PF_CTX_KERNEL ((uint64_t)-128)
#define PF_CTX_USER ((uint64_t)-512)
#define PF_BUILD_ID 20

/* Feature bits (tools/perf/util/header.h), the ones written, in order. */
enum {
	PF_F_BUILD_ID = 2, PF_F_OSRELEASE = 4, PF_F_VERSION = 5, PF_F_ARCH = 6,
	PF_F_NRCPUS = 7, PF_F_CMDLINE = 11, PF_F_EVENT_DESC = 12, PF_F_SAMPLE_TIME = 21,
};
static const unsigned pf_feat_list[] = {
	PF_F_BUILD_ID, PF_F_OSRELEASE, PF_F_VERSION, PF_F_ARCH, PF_F_NRCPUS, PF_F_CMDLINE,
	PF_F_EVENT_DESC, PF_F_SAMPLE_TIME,
};
#define PF_NFEAT (sizeof(pf_feat_list) / sizeof(pf_feat_list[0]))

#define PF_ID_CPU 1                     /* the events' sample ids */
#define PF_ID_OFF 2
#define PF_SEGS 8                       /* PT_LOAD segments kept per file */
#define PF_PATH 256

/* ---------------------------------------------------------------- state */

/* A binary's file: where its segments lie (for MMAP2's pgoff), its build-id. */
typedef struct pf_file {
	uint64_t vaddr[PF_SEGS], off[PF_SEGS], size[PF_SEGS];
	unsigned nseg;
	uint8_t bid[PF_BUILD_ID];
	uint8_t bidlen;
} pf_file_t;

typedef struct pf {
	px_t *x;
	prof_rec_header_t h;
	bool have_h, offcpu;
	px_buf_t data, feat, bids, chain;
	px_map_t threads;               /* (task, thread) -> 1, or 2 when its first sample was idle */
	px_map_t files;                 /* path -> pf_file_t * */
	px_names_t names;               /* tasks' TASK and last LOAD records */
	px_map_t sampled;               /* task id -> 1: it has samples */
	uint64_t first, last;           /* sample times, ns */
	const char *kernel;
} pf_t;

/* ---------------------------------------------------------------- bytes */

static void pf_le(pf_t *p, px_buf_t *b, uint64_t v, unsigned n)
{
	unsigned char t[8];

	for (unsigned i = 0; i < n; i++)
		t[i] = (unsigned char)(v >> (8 * i));
	px_buf_put(p->x, b, t, n);
}

static void pf_u64(pf_t *p, px_buf_t *b, uint64_t v)
{
	pf_le(p, b, v, 8);
}

static void pf_u32(pf_t *p, px_buf_t *b, uint32_t v)
{
	pf_le(p, b, v, 4);
}

/* A record header: type, misc, size. */
static void pf_rec(pf_t *p, px_buf_t *b, uint32_t type, uint16_t misc, size_t size)
{
	pf_u32(p, b, type);
	pf_le(p, b, misc, 2);
	pf_le(p, b, size, 2);
}

/* s NUL-terminated, zero-padded to a multiple of align. */
static void pf_padded(pf_t *p, px_buf_t *b, const char *s, size_t len, size_t align)
{
	static const char zero[PF_NAME_ALIGN];
	size_t n = (len + 1 + align - 1) / align * align;

	px_buf_put(p->x, b, s, len);
	px_buf_put(p->x, b, zero, n - len);
}

static size_t pf_pad_len(size_t len, size_t align)
{
	return (len + 1 + align - 1) / align * align;
}

/* TSC cycles as ns at the stream's rate. */
static uint64_t pf_ns(const pf_t *p, uint64_t cycles)
{
	uint64_t hz = p->h.tsc_hz ? p->h.tsc_hz : 1;

	return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

/* A stream time as ns since the header. */
static uint64_t pf_time(const pf_t *p, uint64_t tsc)
{
	return tsc > p->h.h.tsc ? pf_ns(p, tsc - p->h.h.tsc) : 0;
}

/* sample_id_all's trailer of a side-band record: pid, tid, time, cpu, id. */
static void pf_trailer(pf_t *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	pf_u32(p, &p->data, pid);
	pf_u32(p, &p->data, tid);
	pf_u64(p, &p->data, time);
	pf_u64(p, &p->data, 0);
	pf_u64(p, &p->data, PF_ID_CPU);
}
#define PF_TRAILER 32

/* ---------------------------------------------------------------- ELF files */

/* The PT_LOAD segments and the GNU build-id note of the ELF in data. */
static void pf_elf_parse(pf_file_t *f, const unsigned char *d, size_t size)
{
	elf64_ehdr_t eh;

	if (size < sizeof(eh))
		return;
	memcpy(&eh, d, sizeof(eh));
	if (eh.e_ident[0] != ELF_MAG0 || eh.e_ident[4] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(elf64_phdr_t) ||
	    eh.e_phoff > size || (size - eh.e_phoff) / sizeof(elf64_phdr_t) < eh.e_phnum)
		return;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		elf64_phdr_t ph;
		memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && f->nseg < PF_SEGS) {
			f->vaddr[f->nseg] = ph.p_vaddr;
			f->off[f->nseg] = ph.p_offset;
			f->size[f->nseg++] = ph.p_memsz;
		}
	}
}

/* The build-id of a note area (PT_NOTE / SHT_NOTE), if it holds one. */
static void pf_notes(pf_file_t *f, const unsigned char *d, size_t len)
{
	uint32_t w[3];

	for (size_t at = 0; at + 12 <= len && !f->bidlen;) {
		memcpy(w, d + at, 12);
		size_t name = (w[0] + 3u) & ~3u, desc = (w[1] + 3u) & ~3u;
		if (name > len - at - 12 || desc > len - at - 12 - name)
			return;
		if (w[2] == 3 && w[0] == 4 && memcmp(d + at + 12, "GNU", 4) == 0 && w[1] > 0) {
			f->bidlen = (uint8_t)(w[1] < PF_BUILD_ID ? w[1] : PF_BUILD_ID);
			memcpy(f->bid, d + at + 12 + name, f->bidlen);
		}
		at += 12 + name + desc;
	}
}

/* The build-id from the ELF's note sections. */
static void pf_elf_bid(pf_file_t *f, const unsigned char *d, size_t size)
{
	elf64_ehdr_t eh;

	memcpy(&eh, d, sizeof(eh));
	if (eh.e_shentsize != sizeof(elf64_shdr_t) || eh.e_shoff > size ||
	    (size - eh.e_shoff) / sizeof(elf64_shdr_t) < eh.e_shnum)
		return;
	for (unsigned i = 0; i < eh.e_shnum && !f->bidlen; i++) {
		elf64_shdr_t sh;
		memcpy(&sh, d + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == 7 && sh.sh_offset <= size && sh.sh_size <= size - sh.sh_offset)
			pf_notes(f, d + sh.sh_offset, (size_t)sh.sh_size);
	}
}

/* The file of a binary path (loaded once through env.load); NULL: ENOMEM. */
static pf_file_t *pf_file(pf_t *p, const char *path)
{
	bool added;
	px_entry_t *e = px_map_get(p->x, &p->files, path, strlen(path), &added);
	void *data;
	size_t size;

	if (!e)
		return NULL;
	if (!added)
		return (pf_file_t *)(uintptr_t)e->val;
	pf_file_t *f = px_alloc(p->x, sizeof(*f));
	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	e->val = (uint64_t)(uintptr_t)f;
	if (p->x->env->load(p->x->env->ctx, path, &data, &size) != EOK)
		return f;
	pf_elf_parse(f, data, size);
	if (f->nseg)
		pf_elf_bid(f, data, size);
	p->x->env->release(p->x->env->ctx, data);
	return f;
}

/* The file offset of address a in f (a itself when no segment holds it). */
static uint64_t pf_pgoff(const pf_file_t *f, uint64_t a)
{
	for (unsigned i = 0; i < f->nseg; i++)
		if (a >= f->vaddr[i] && a - f->vaddr[i] < f->size[i])
			return a - f->vaddr[i] + f->off[i];
	return 0;
}

/* ---------------------------------------------------------------- side band */

/* A build-id entry of the BUILD_ID feature for path (the kernel's: cpumode kernel). */
static void pf_bid_entry(pf_t *p, const pf_file_t *f, const char *name, uint16_t cpumode)
{
	static const uint8_t zero[24];
	size_t len = strlen(name);

	if (!f->bidlen)
		return;
	pf_rec(p, &p->bids, 0, (uint16_t)(cpumode | PF_MISC_BUILD_ID_SIZE),
	       36 + pf_pad_len(len, PF_NAME_ALIGN));
	pf_u32(p, &p->bids, (uint32_t)-1);              /* the host machine */
	px_buf_put(p->x, &p->bids, f->bid, f->bidlen);
	px_buf_put(p->x, &p->bids, zero, PF_BUILD_ID - f->bidlen);
	pf_le(p, &p->bids, f->bidlen, 4);                /* size, reserved */
	pf_padded(p, &p->bids, name, len, PF_NAME_ALIGN);
}

/* An MMAP2 record of [start, end) of f at pgoff, named name. */
static void pf_mmap2(pf_t *p, uint32_t pid, uint16_t cpumode, uint64_t start, uint64_t end,
		     uint64_t pgoff, const pf_file_t *f, const char *name, uint64_t time)
{
	static const uint8_t zero[24];
	size_t len = strlen(name);
	uint16_t misc = (uint16_t)(cpumode | (f->bidlen ? PF_MISC_MMAP_BUILD_ID : 0));

	pf_rec(p, &p->data, PF_REC_MMAP2, misc, 8 + 8 + 24 + 24 + 8 + pf_pad_len(len, 8) +
	       PF_TRAILER);
	pf_u32(p, &p->data, pid);
	pf_u32(p, &p->data, pid);
	pf_u64(p, &p->data, start);
	pf_u64(p, &p->data, end - start);
	pf_u64(p, &p->data, pgoff);
	if (f->bidlen) {
		pf_le(p, &p->data, f->bidlen, 4);           /* build_id_size, reserved */
		px_buf_put(p->x, &p->data, f->bid, f->bidlen);
		px_buf_put(p->x, &p->data, zero, PF_BUILD_ID - f->bidlen);
	} else {
		px_buf_put(p->x, &p->data, zero, 24);       /* maj, min, ino, ino_generation */
	}
	pf_u32(p, &p->data, 5);                         /* PROT_READ | PROT_EXEC */
	pf_u32(p, &p->data, 2);                         /* MAP_PRIVATE */
	pf_padded(p, &p->data, name, len, 8);
	pf_trailer(p, pid, pid, time);
}

/*
 * The kernel's text as "[kernel.kallsyms]__text_start" (none for a
 * redacted stream): perf's kernel map names its reference symbol after
 * the prefix, and pgoff is its address (the header's ktext_start is
 * Vernier's __text_start: no relocation; a kernel ELF without the
 * symbol is not relocated either).
 */
static void pf_kernel_map(pf_t *p)
{
	if (p->h.ktext_end <= p->h.ktext_start)
		return;
	pf_file_t *f = pf_file(p, p->kernel);
	if (!f)
		return;
	pf_mmap2(p, (uint32_t)-1, PF_MISC_KERNEL, p->h.ktext_start, p->h.ktext_end,
		 p->h.ktext_start, f, "[kernel.kallsyms]__text_start", 0);
	pf_bid_entry(p, f, "[kernel.kallsyms]", PF_MISC_KERNEL);
}

/* The MMAP2 of a sampled task's program (its last LOAD record). */
static void pf_prog_map(pf_t *p, const prof_rec_load_t *l, size_t len)
{
	char path[PF_PATH];
	size_t n = strnlen(l->path, len - sizeof(*l));

	if (n == 0 || n >= sizeof(path) || l->text_end <= l->text_start)
		return;
	memcpy(path, l->path, n);
	path[n] = '\0';
	pf_file_t *f = pf_file(p, path);
	if (!f)
		return;
	pf_mmap2(p, (uint32_t)l->task, PF_MISC_USER, l->text_start, l->text_end,
		 pf_pgoff(f, l->text_start), f, path, 0);
	pf_bid_entry(p, f, path, PF_MISC_USER);
}

/* The 8-byte value of key k in m (0 when absent: then added with 0). */
static uint64_t pf_get(pf_t *p, px_map_t *m, uint64_t k)
{
	bool added;
	px_entry_t *e = px_map_get(p->x, m, &k, sizeof(k), &added);

	return e ? e->val : 0;
}

/* A COMM record of thread (task, thread) named name. */
static void pf_comm(pf_t *p, uint64_t task, uint64_t thread, const char *name)
{
	size_t len = strlen(name);

	pf_rec(p, &p->data, PF_REC_COMM, 0, 8 + 8 + pf_pad_len(len, 8) + PF_TRAILER);
	pf_u32(p, &p->data, (uint32_t)task);
	pf_u32(p, &p->data, (uint32_t)thread);
	pf_padded(p, &p->data, name, len, 8);
	pf_trailer(p, (uint32_t)task, (uint32_t)thread, 0);
}

/* The COMMs of the threads seen and the maps of their tasks' programs. */
static void pf_side_band(pf_t *p)
{
	char buf[PX_NAME_MAX];

	pf_kernel_map(p);
	for (size_t i = 0; i < p->threads.cap && !p->x->err; i++) {
		const px_entry_t *e = px_map_at(&p->threads, i);
		if (!e)
			continue;
		uint64_t k[2];
		memcpy(k, e->key, sizeof(k));
		const char *name = e->val == 2 ? "[idle]" : px_names_get(p->x, &p->names, k[0], buf,
									   sizeof(buf));
		pf_comm(p, k[0], k[1], name);
	}
	for (size_t i = 0; i < p->names.progs.cap && !p->x->err; i++) {
		const px_entry_t *e = px_map_at(&p->names.progs, i);
		uint64_t task;
		if (!e)
			continue;
		memcpy(&task, e->key, sizeof(task));
		const prof_rec_load_t *l = (const prof_rec_load_t *)(uintptr_t)e->val;
		if (l && pf_get(p, &p->sampled, task))
			pf_prog_map(p, l, l->h.size);
	}
}

/* ---------------------------------------------------------------- samples */

/* v little-endian at d (8 bytes). */
static void pf_put64(unsigned char *d, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		d[i] = (unsigned char)(v >> (8 * i));
}

/* A SAMPLE record: id, ip, pid/tid, time, cpu, period, the callchain in p->chain. */
static void pf_sample_head(pf_t *p, uint64_t id, uint16_t misc, uint64_t ip, uint64_t task,
			   uint64_t thread, uint64_t time, uint32_t cpu, uint64_t period)
{
	uint64_t nr = p->chain.len / 8;
	unsigned char h[64];

	pf_put64(h, PF_REC_SAMPLE | (uint64_t)misc << 32 | (uint64_t)(64 + 8 * nr) << 48);
	pf_put64(h + 8, id);
	pf_put64(h + 16, ip);
	pf_put64(h + 24, (task & 0xffffffffu) | thread << 32);
	pf_put64(h + 32, time);
	pf_put64(h + 40, cpu);                          /* cpu, reserved */
	pf_put64(h + 48, period);
	pf_put64(h + 56, nr);
	px_buf_put(p->x, &p->data, h, sizeof(h));
	px_buf_put(p->x, &p->data, p->chain.p, p->chain.len);
	if (p->first > time)
		p->first = time;
	if (p->last < time)
		p->last = time;
}

/*
 * The callchain into p->chain: the leaf ip (kernel when kip) and n
 * return addresses (the first nk of them kernel ones), each part after
 * its context marker, as perf writes them. A user leaf keeps only the
 * user frames.
 */
static void pf_chain(pf_t *p, bool kip, uint64_t ip, const unsigned char *chain, size_t n,
		     size_t nk)
{
	px_buf_t *c = &p->chain;
	unsigned char w[16];

	c->len = 0;
	pf_put64(w, kip ? PF_CTX_KERNEL : PF_CTX_USER);
	pf_put64(w + 8, ip);
	px_buf_put(p->x, c, w, 16);
	if (kip)
		px_buf_put(p->x, c, chain, 8 * nk);     /* the stream's words: little-endian */
	if (kip && n > nk) {
		pf_put64(w, PF_CTX_USER);
		px_buf_put(p->x, c, w, 8);
	}
	px_buf_put(p->x, c, chain + 8 * nk, 8 * (n - nk));
}

/* A stream sample as a cpu-clock SAMPLE. */
static void pf_sample(pf_t *p, const unsigned char *rec)
{
	prof_rec_sample_t s;

	memcpy(&s, rec, sizeof(s));
	bool kip = s.mode != PROF_MODE_USER;
	pf_chain(p, kip, s.pc, rec + sizeof(s), s.nchain, s.nkernel);
	pf_sample_head(p, PF_ID_CPU, kip ? PF_MISC_KERNEL : PF_MISC_USER, s.pc, s.task, s.thread,
		       pf_time(p, s.h.tsc), s.h.cpu, pf_ns(p, s.weight));
}

/* An off-CPU record as an offcpu-time SAMPLE at the time it left, of its ns off. */
static void pf_offcpu(pf_t *p, const unsigned char *rec)
{
	prof_rec_offcpu_t o;
	uint64_t ip = 0;

	memcpy(&o, rec, sizeof(o));
	if (o.nchain)
		memcpy(&ip, rec + sizeof(o), 8);
	bool kip = o.nkernel > 0;
	size_t n = o.nchain ? o.nchain - 1u : 0, nk = kip ? o.nkernel - 1u : 0;
	pf_chain(p, kip, ip, rec + sizeof(o) + (o.nchain ? 8 : 0), n, nk);
	pf_sample_head(p, PF_ID_OFF, kip ? PF_MISC_KERNEL : PF_MISC_USER, ip, o.task, o.thread,
		       pf_time(p, o.start), o.h.cpu, pf_ns(p, o.cycles));
}

/* ---------------------------------------------------------------- passes */

/* Key k of m gets value v (when the entry is new, or always). */
static void pf_set(pf_t *p, px_map_t *m, const void *k, size_t len, uint64_t v, bool always)
{
	bool added;
	px_entry_t *e = px_map_get(p->x, m, k, len, &added);

	if (e && (added || always))
		e->val = v;
}

/* A thread with samples (its first one idle: val 2). */
static void pf_thread(pf_t *p, uint64_t task, uint64_t thread, bool idle)
{
	uint64_t k[2] = { task, thread };

	pf_set(p, &p->threads, k, sizeof(k), idle ? 2 : 1, false);
	pf_set(p, &p->sampled, &task, sizeof(task), 1, false);
}

/* prof_record_fn_t, pass 1: the header, the tasks' names and programs, the threads. */
static errno_t pf_scan(void *ctx, const void *rec, size_t len)
{
	pf_t *p = ctx;
	const prof_rec_t *h = rec;
	const prof_rec_sample_t *s = rec;
	const prof_rec_offcpu_t *o = rec;

	px_names_note(p->x, &p->names, rec, len);
	if (h->type == PROF_REC_HEADER && !p->have_h) {
		memcpy(&p->h, rec, sizeof(p->h));
		p->have_h = true;
	} else if (h->type == PROF_REC_SAMPLE) {
		pf_thread(p, s->task, s->thread, s->mode == PROF_MODE_IDLE);
	} else if (h->type == PROF_REC_OFFCPU && p->x->o->wall && o->cycles) {
		pf_thread(p, o->task, o->thread, false);
		p->offcpu = true;
	}
	return p->x->err;
}

/* prof_record_fn_t, pass 2: the samples. */
static errno_t pf_emit(void *ctx, const void *rec, size_t len)
{
	pf_t *p = ctx;
	const prof_rec_t *h = rec;

	(void)len;
	if (h->type == PROF_REC_SAMPLE)
		pf_sample(p, rec);
	else if (h->type == PROF_REC_OFFCPU && p->x->o->wall &&
		 ((const prof_rec_offcpu_t *)rec)->cycles)
		pf_offcpu(p, rec);
	return p->x->err;
}

/* ---------------------------------------------------------------- header, features */

/* A perf_event_attr (PERF_ATTR_SIZE_VER7) of a software event. */
static void pf_attr(pf_t *p, px_buf_t *b, uint64_t config, uint64_t period)
{
	static const uint8_t zero[48];

	pf_u32(p, b, PF_TYPE_SOFTWARE);
	pf_u32(p, b, PF_ATTR_SIZE);
	pf_u64(p, b, config);
	pf_u64(p, b, period);
	pf_u64(p, b, PF_SAMPLE_TYPE);
	pf_u64(p, b, 0);                                /* read_format */
	pf_u64(p, b, PF_ATTR_FLAGS);
	px_buf_put(p->x, b, zero, 48);                  /* wakeup_events .. clockid */
	pf_u64(p, b, 0);                                /* sample_regs_intr */
	pf_u32(p, b, 0);                                /* aux_watermark */
	pf_le(p, b, p->h.depth + 1 > 0xffff ? 0xffff : p->h.depth + 1, 2); /* sample_max_stack */
	px_buf_put(p->x, b, zero, 2 + 4 + 4 + 8);       /* .. sig_data */
}

/* The nominal period of a sample, ns. */
static uint64_t pf_period(const pf_t *p)
{
	return p->h.hz ? 1000000000ull / p->h.hz : 1;
}

/* A feature string: its padded length, then the NUL-padded bytes. */
static void pf_string(pf_t *p, px_buf_t *b, const char *s, size_t len)
{
	pf_u32(p, b, (uint32_t)pf_pad_len(len, PF_NAME_ALIGN));
	pf_padded(p, b, s, len, PF_NAME_ALIGN);
}

static void pf_str(pf_t *p, px_buf_t *b, const char *s)
{
	pf_string(p, b, s, strlen(s));
}

/* HEADER_EVENT_DESC: each event's attr, id and name. */
static void pf_event_desc(pf_t *p, px_buf_t *b)
{
	pf_u32(p, b, p->offcpu ? 2 : 1);
	pf_u32(p, b, PF_ATTR_SIZE);
	pf_attr(p, b, PF_SW_CPU_CLOCK, pf_period(p));
	pf_u32(p, b, 1);
	pf_str(p, b, "cpu-clock");
	pf_u64(p, b, PF_ID_CPU);
	if (!p->offcpu)
		return;
	pf_attr(p, b, PF_SW_BPF_OUTPUT, 1);
	pf_u32(p, b, 1);
	pf_str(p, b, "offcpu-time");
	pf_u64(p, b, PF_ID_OFF);
}

/* The body of feature f into b. */
static void pf_feature(pf_t *p, px_buf_t *b, unsigned f)
{
	const char *title = p->x->o->title ? p->x->o->title : "stream";
	size_t klen = strnlen(p->h.kernel, sizeof(p->h.kernel));

	switch (f) {
	case PF_F_BUILD_ID: px_buf_put(p->x, b, p->bids.p, p->bids.len); break;
	case PF_F_OSRELEASE: pf_string(p, b, klen ? p->h.kernel : "vernier", klen ? klen : 7); break;
	case PF_F_VERSION: pf_str(p, b, "vprof (Vernier)"); break;
	case PF_F_ARCH: pf_str(p, b, "x86_64"); break;
	case PF_F_NRCPUS: pf_u32(p, b, p->h.ncpus); pf_u32(p, b, p->h.ncpus); break;
	case PF_F_CMDLINE:
		pf_u32(p, b, 4);
		pf_str(p, b, "vprof");
		pf_str(p, b, "-F");
		pf_str(p, b, "perf");
		pf_str(p, b, title);
		break;
	case PF_F_EVENT_DESC: pf_event_desc(p, b); break;
	case PF_F_SAMPLE_TIME: pf_u64(p, b, p->first); pf_u64(p, b, p->last); break;
	}
}

/* The features after the data at offset at: their sections, then their bodies. */
static void pf_features(pf_t *p, uint64_t at, uint64_t bits[4])
{
	px_buf_t body = { 0 };
	unsigned n = 0;

	for (unsigned i = 0; i < PF_NFEAT; i++)
		n += pf_feat_list[i] != PF_F_BUILD_ID || p->bids.len > 0;
	uint64_t off = at + (uint64_t)n * PF_SECTION;
	for (unsigned i = 0; i < PF_NFEAT; i++) {
		unsigned f = pf_feat_list[i];
		if (f == PF_F_BUILD_ID && p->bids.len == 0)
			continue;
		size_t before = body.len;
		pf_feature(p, &body, f);
		pf_u64(p, &p->feat, off + before);
		pf_u64(p, &p->feat, body.len - before);
		bits[f / 64] |= 1ull << (f % 64);
	}
	px_buf_put(p->x, &p->feat, body.p, body.len);
	px_buf_free(p->x, &body);
}

/* The file: header, attrs and their ids, data, features. */
static void pf_file_out(pf_t *p)
{
	px_buf_t head = { 0 };
	uint64_t bits[4] = { 0 }, nattr = p->offcpu ? 2 : 1;
	uint64_t entry = PF_ATTR_SIZE + PF_SECTION, ids = PF_HEADER_SIZE + nattr * entry;
	uint64_t data = ids + 8 * nattr;

	pf_features(p, data + p->data.len, bits);
	px_buf_put(p->x, &head, "PERFILE2", 8);
	pf_u64(p, &head, PF_HEADER_SIZE);
	pf_u64(p, &head, entry);
	pf_u64(p, &head, PF_HEADER_SIZE);
	pf_u64(p, &head, nattr * entry);
	pf_u64(p, &head, data);
	pf_u64(p, &head, p->data.len);
	pf_u64(p, &head, 0);                            /* event_types: unused */
	pf_u64(p, &head, 0);
	for (unsigned i = 0; i < 4; i++)
		pf_u64(p, &head, bits[i]);
	for (uint64_t i = 0; i < nattr; i++) {
		pf_attr(p, &head, i ? PF_SW_BPF_OUTPUT : PF_SW_CPU_CLOCK, i ? 1 : pf_period(p));
		pf_u64(p, &head, ids + 8 * i);
		pf_u64(p, &head, 8);
	}
	pf_u64(p, &head, PF_ID_CPU);
	if (p->offcpu)
		pf_u64(p, &head, PF_ID_OFF);
	px_buf_flush(p->x, &head);
	px_buf_flush(p->x, &p->data);
	px_buf_flush(p->x, &p->feat);
	px_buf_free(p->x, &head);
}

/* Release the files' records and every buffer and map. */
static void pf_free(pf_t *p)
{
	for (size_t i = 0; i < p->files.cap; i++) {
		const px_entry_t *e = px_map_at(&p->files, i);
		if (e)
			px_release(p->x, (void *)(uintptr_t)e->val);
	}
	px_map_free(p->x, &p->files);
	px_map_free(p->x, &p->threads);
	px_names_free(p->x, &p->names);
	px_map_free(p->x, &p->sampled);
	px_buf_free(p->x, &p->data);
	px_buf_free(p->x, &p->feat);
	px_buf_free(p->x, &p->bids);
	px_buf_free(p->x, &p->chain);
}

/* Write the perf.data file of the report's kept records to x->out. */
void px_perf(px_t *x)
{
	pf_t p;

	memset(&p, 0, sizeof(p));
	p.x = x;
	p.first = UINT64_MAX;
	p.kernel = x->o->kernel_path ? x->o->kernel_path : "/boot/kernel";
	errno_t err = prof_report_records(x->r, pf_scan, &p);
	if (err == EOK && p.have_h) {
		pf_side_band(&p);
		err = prof_report_records(x->r, pf_emit, &p);
	}
	if (err == EOK && !x->err)
		pf_file_out(&p);
	if (err != EOK && !x->err)
		x->err = err;
	pf_free(&p);
}

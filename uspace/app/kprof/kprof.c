/*
 * kprof - format a kernel PC histogram (/dev/kpdata, Inferno's kprof
 * device; layout in lib/include/lib/kprof.h) per kernel function.
 * One source for both sides: built for the guest as /bin/kprof and for
 * the host as build/host/kprof (-DKPROF_HOST: other default paths).
 *
 * Usage: kprof [-h] [-F report|gmon] [-o FILE] [KERNEL [KPDATA]]
 *
 *   -F gmon  write gprof's gmon.out instead of the report (lib/kprof.h:
 *            the buckets as its histogram, at the tick rate); read it with
 *            `gprof -b -p KERNEL gmon.out`
 *   -o FILE  write to FILE (default: the report to standard output, the
 *            gmon.out to ./gmon.out)
 *   KERNEL  the kernel's ELF, for its symbols and __text_start (default
 *           /boot/kernel; on the host the one staged in the build this kprof
 *           belongs to, BUILD/host/kprof -> BUILD/initrd-root/boot/kernel)
 *   KPDATA  the histogram (default /dev/kpdata; on the host ./kpdata)
 *
 * Output (lib/prof/kprof.c, rows by ticks, most first; % of all ticks):
 *   total: 2000	in kernel text: 1930	outside kernel text: 70
 *   KTZERO ffffffff80209000	1000 us per tick, 14759 buckets of 8 bytes
 *      ticks       %      ms  function
 *       1650  82.50%  1650.0  cpu_idle
 * Exit status: 0, 1 for an unreadable or malformed file (-F gmon: also for a
 * profile with no tick in the kernel text), 2 for bad usage.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lib/kprof.h>
#include <lib/profformat.h>
#include <lib/profsym.h>
#include <profenv.h>


#ifdef KPROF_HOST
#include <hostroot.h>
#define KPROF_ROOT(buf, size) hostroot_default(buf, size)
#define KPROF_KERNEL "BUILD/initrd-root/boot/kernel"
#define KPROF_DATA "kpdata"
#else
#define KPROF_ROOT(buf, size) ((void)(buf), (void)(size), "")
#define KPROF_KERNEL "/boot/kernel"
#define KPROF_DATA "/dev/kpdata"
#endif
#define KPROF_BOOT_KERNEL "/boot/kernel"

/* The default kernel: /boot/kernel under the staged root on the host. */
static const char *kprof_default_kernel(void)
{
	static char path[4096];
	const char *root = KPROF_ROOT(path, sizeof(path) - sizeof(KPROF_BOOT_KERNEL));

	if (root != path)
		snprintf(path, sizeof(path), "%s", root);
	strcat(path, KPROF_BOOT_KERNEL);
	return path;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: kprof [-h] [-F report|gmon] [-o FILE] [KERNEL [KPDATA]]\n"
		"  print the kernel PC histogram KPDATA per function of KERNEL\n"
		"  -F gmon  write it as gprof's gmon.out (gprof -b -p KERNEL gmon.out)\n"
		"  -o FILE  output file (default: stdout; gmon.out for -F gmon)\n"
		"  KERNEL  the kernel ELF (default %s)\n"
		"  KPDATA  the histogram (default %s)\n", KPROF_KERNEL, KPROF_DATA);
}

/* kprof_gmon to the file out; 0 (with a message) if it cannot be written. */
static int write_gmon(const kprof_data_t *d, uint64_t start, const char *out)
{
	FILE *f = fopen(out, "wb");

	if (f) {
		kprof_gmon(d, start, prof_env_fwrite, f);
		if (fclose(f) == 0)
			return 1;
	}
	fprintf(stderr, "kprof: cannot write %s\n", out);
	return 0;
}

/* The report (or with gmon, the gmon.out) of d; the exit status. */
static int emit(const kprof_data_t *d, uint64_t start, const profsym_t *ps, bool gmon,
		const char *out)
{
	profsym_mem_t mem = { NULL, prof_env_malloc, prof_env_free };
	FILE *f = stdout;

	if (gmon && d->total <= d->outside) {
		fprintf(stderr, "kprof: no ticks in the kernel's text (an empty profile): no "
			"gmon.out written\n");
		return 1;
	}
	if (gmon)
		return write_gmon(d, start, out ? out : "gmon.out") ? 0 : 1;
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "kprof: cannot write %s\n", out);
		return 1;
	}
	errno_t err = kprof_report(d, start, &ps->table, &mem, prof_env_fwrite, f);
	if (err != EOK)
		fprintf(stderr, "kprof: out of memory\n");
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "kprof: cannot write %s\n", out);
		return 1;
	}
	return err == EOK ? 0 : 1;
}

/* Report kpdata against the kernel image; the exit status. */
static int run(const char *kernel, const char *kpdata, bool gmon, const char *out)
{
	uint8_t *image = NULL, *raw = NULL;
	size_t isize, rsize;
	kprof_data_t d;
	profsym_t ps;
	int status = 1;

	if (prof_env_read_file(kernel, (void **)&image, &isize) != EOK)
		fprintf(stderr, "kprof: cannot read %s\n", kernel);
	else if (prof_env_read_file(kpdata, (void **)&raw, &rsize) != EOK)
		fprintf(stderr, "kprof: cannot read %s\n", kpdata);
	else if (kprof_parse(raw, rsize, &d) != EOK)
		fprintf(stderr, "kprof: %s: not a kprof histogram (%zu bytes)\n",
			kpdata, rsize);
	else {
		uint64_t start = kprof_text_start(image, isize);
		if (start == 0 || profsym_from_elf(&ps, image, isize) != EOK)
			fprintf(stderr, "kprof: %s: no __text_start or symbols\n", kernel);
		else
			status = emit(&d, start, &ps, gmon, out);
	}
	free(image);
	free(raw);
	return status;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	bool gmon = false;
	int c, f;

	while ((c = getopt(argc, argv, "hF:o:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'F' && ((f = prof_format_parse(optarg)) == PROF_FMT_GMON ||
					f == PROF_FMT_REPORT)) {
			gmon = f == PROF_FMT_GMON;
		} else if (c == 'o') {
			out = optarg;
		} else {
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 2) {
		usage(stderr);
		return 2;
	}
	return run(argc > 0 ? argv[0] : kprof_default_kernel(), argc > 1 ? argv[1] : KPROF_DATA,
		   gmon, out);
}

/*
 * Profiles leave the machine: the stacks of a profiler report
 * (prof_report_walk, lib/profreport.h) written in the file formats of
 * other tools. Freestanding: memory comes from a prof_env_t, bytes go to
 * a writer callback.
 *
 * Formats (PROF_FMT_*, lib/profformat.h; REPORT is not prof_export's):
 *   folded     Brendan Gregg's collapsed stacks: "task;root;...;leaf N",
 *              sorted, one line per distinct stack (flamegraph.pl,
 *              speedscope's importer); N in samples, or the nanoseconds
 *              their weights stand for (opts.ns, `-u ns`); "[ipc ...]" and
 *              "[off-cpu: ...]" frames keep
 *              their spaces
 *   pprof      a gzipped profile.proto (google/pprof), go tool pprof:
 *              values samples/count and cpu/nanoseconds (the weights);
 *              samples of a thread serving a call carry the numeric
 *              labels origin and server (task ids)
 *   callgrind  the callgrind format with inclusive costs from the call
 *              chains (callgrind_annotate, KCachegrind)
 *   speedscope speedscope's JSON file format, one sampled profile per task
 *              (or per thread), weights in nanoseconds
 *   svg        a self-contained interactive flame graph (no external
 *              script, font or URL): hover, click to zoom, search
 *   gmon       gprof's gmon.out, one per binary sampled (out.open names
 *              each): the PC histogram at the profile's rate, call arcs
 *   perf       a perf.data file (perf report, perf script, perf annotate):
 *              one cpu-clock SAMPLE per sample, its weight in ns the period,
 *              COMM and MMAP2 records (the kernel as [kernel.kallsyms], each
 *              program by the stream's path, build-ids from the ELF notes);
 *              opts.wall: off-CPU records as samples of "offcpu-time". It
 *              needs the report's records: prof_report_keep_records before
 *              feeding (else EINVAL); no [ipc] frames (vprof refuses -C)
 *   trace      a timeline in Chrome's trace-event JSON (Perfetto UI,
 *              chrome://tracing, speedscope): per CPU the threads it ran,
 *              per thread its states (running, runnable, waiting: WHY),
 *              IRQ and system call slices and samples (their stacks), IPC
 *              calls as flows from CALL to ANSWERED (lib/prof/export/
 *              trace.c); from the kept records, as perf (ENOENT only with
 *              neither a sample nor a trace event)
 *
 * Use: prof_report_new, prof_report_setup(r, filter, true) (for perf and trace also
 * prof_report_keep_records(r, true)), feed the stream, then prof_export
 * (as often as wanted), then prof_report_free.
 */
#ifndef LIB_PROFEXPORT_H
#define LIB_PROFEXPORT_H

#include <abi/errno.h>
#include <lib/profcore.h>
#include <lib/profformat.h>
#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct prof_export_opts {
	unsigned format;                /* PROF_FMT_* (not REPORT) */
	const char *kernel_path;        /* NULL: "/boot/kernel" */
	const char *title;              /* names the stream (the file it came from) */
	bool threads;                   /* speedscope: one profile per thread */
	const char *root;               /* pprof: the host directory the stream's
					   absolute paths are under (mapping and
					   function file names), NULL: as recorded */
	bool wall;                      /* a wall-clock report (prof_report_set_wall):
					   pprof's second value is wall/nanoseconds
					   (not cpu) */
	bool ns;                        /* folded: nanoseconds (the samples' weights), not counts */
} prof_export_opts_t;

/*
 * Where the bytes go: write(ctx, data, len). Formats of several files
 * (gmon) call open(ctx, binary path) before each (NULL: EINVAL for them);
 * an error from it stops the export and is returned.
 */
typedef struct prof_export_out {
	void *ctx;
	void (*write)(void *ctx, const void *data, size_t len);
	errno_t (*open)(void *ctx, const char *path);
} prof_export_out_t;

/*
 * Write the stacks of r (kept by prof_report_setup) in o->format to out,
 * memory from env. EOK; ENOENT when there is no sample to write; EINVAL
 * for a bad format or a report that kept no stacks; ENOMEM.
 */
errno_t prof_export(prof_report_t *r, const prof_env_t *env, const prof_export_opts_t *o,
		    const prof_export_out_t *out);

/*
 * For other pprof writers (cprofalyze): a growable protocol buffer whose
 * memory comes from env; err is sticky (ENOMEM), the bytes are in p[0 ..
 * len).
 */
typedef prof_buf_t prof_pb_t;

/* Append raw bytes; a varint; a field's key and varint value; a length-delimited field. */
void prof_pb_raw(prof_pb_t *b, const void *data, size_t len);
void prof_pb_varint(prof_pb_t *b, uint64_t v);
void prof_pb_uint(prof_pb_t *b, unsigned field, uint64_t v);
void prof_pb_bytes(prof_pb_t *b, unsigned field, const void *data, size_t len);

/* Release b's memory (it can be used again, empty). */
void prof_pb_free(prof_pb_t *b);

/* Write len bytes of data to out as a gzip member of stored deflate blocks. */
void prof_gzip(const prof_export_out_t *out, const void *data, size_t len);

/*
 * profile.proto's messages (google/pprof), the one encoding of them both
 * pprof writers use (the sample profile's export, cprofreport_pprof).
 * Each writes one message into pb through the scratch buffers msg and sub
 * (emptied first; all three with their env set); strings are indices into
 * the string table the caller writes (PROF_PB_STRING).
 */
enum {
	PROF_PB_SAMPLE_TYPE = 1, PROF_PB_SAMPLE = 2, PROF_PB_MAPPING = 3, PROF_PB_LOCATION = 4,
	PROF_PB_FUNCTION = 5, PROF_PB_STRING = 6, PROF_PB_TIME = 9, PROF_PB_DURATION = 10,
	PROF_PB_PERIOD_TYPE = 11, PROF_PB_PERIOD = 12, PROF_PB_COMMENT = 13,
};

/* A ValueType (type and unit strings) as field (SAMPLE_TYPE or PERIOD_TYPE). */
void prof_pprof_value_type(prof_pb_t *pb, prof_pb_t *sub, unsigned field, uint64_t type,
			   uint64_t unit);

/* A Mapping id over [lo, hi) of the file named by string file, with functions. */
void prof_pprof_mapping(prof_pb_t *pb, prof_pb_t *msg, uint64_t id, uint64_t lo, uint64_t hi,
			uint64_t file);

/* A Function id named name (also its system name), in file (0: none). */
void prof_pprof_function(prof_pb_t *pb, prof_pb_t *msg, uint64_t id, uint64_t name,
			 uint64_t file);

/* A Location id at addr in mapping (0: none), one line: function func. */
void prof_pprof_location(prof_pb_t *pb, prof_pb_t *msg, prof_pb_t *sub, uint64_t id,
			 uint64_t mapping, uint64_t addr, uint64_t func);

/* A Label key of a Sample being built in msg: the string str, or with num the number v. */
void prof_pprof_label(prof_pb_t *msg, prof_pb_t *sub, uint64_t key, uint64_t str, bool num,
		      uint64_t v);

/*
 * The interactive flame graph writer behind PROF_FMT_SVG, also used by
 * vprof diff -F svg (lib/profdiff.h): build a tree of frames, count
 * samples at leaves, write one self-contained SVG (hover, click to zoom,
 * search; no external script, font or URL). Memory from env; an
 * allocation failure is sticky (prof_flame_write returns ENOMEM).
 *
 * A differential graph (opts.diff) also carries each frame's count in
 * profile A (count_a; count is B's and sets the width) and a heat the
 * caller sets: red where the share grew, blue where it shrank, the
 * deeper the larger |heat| (1..1000), light grey for 0 (no significant
 * change); hover shows both counts, both shares and the change in points.
 */
#define PROF_FLAME_ROOT 0               /* the root node ("all") */
#define PROF_FLAME_NONE UINT32_MAX      /* no node (out of memory) */

/* Node kinds: colour families of a profile's graph. */
#define PROF_FLAME_K_ROOT 0
#define PROF_FLAME_K_TASK 1
#define PROF_FLAME_K_USER 2
#define PROF_FLAME_K_KERNEL 3
#define PROF_FLAME_K_UNKNOWN 4          /* an address without a symbol */

typedef struct prof_flame prof_flame_t;

typedef struct prof_flame_opts {
	const char *title;              /* names the graph (NULL: "vprof") */
	const char *heading;            /* after "TITLE: " in the heading, or NULL */
	bool diff;                      /* a differential graph (heats, count_a) */
} prof_flame_opts_t;

/* A new graph holding only its root (env must outlive it). EOK or ENOMEM. */
errno_t prof_flame_new(const prof_env_t *env, prof_flame_t **out);

/*
 * The child of node parent named name (len bytes) of kind
 * PROF_FLAME_K_*, added when new; PROF_FLAME_NONE on ENOMEM (sticky) or a
 * bad parent.
 */
uint32_t prof_flame_child(prof_flame_t *f, uint32_t parent, const char *name, size_t len,
			  unsigned kind);

/* Add count samples (and count_a of profile A) to node and its ancestors. */
void prof_flame_count(prof_flame_t *f, uint32_t node, uint64_t count, uint64_t count_a);

/* The number of nodes (ids 0 .. n-1, parents before children). */
size_t prof_flame_size(const prof_flame_t *f);

/* A node's counts (0 for a bad node). */
void prof_flame_counts(const prof_flame_t *f, uint32_t node, uint64_t *count,
		       uint64_t *count_a);

/* A differential graph's colour of node: heat -1000 .. 1000 (clamped). */
void prof_flame_heat(prof_flame_t *f, uint32_t node, int heat);

/*
 * Write the graph to out (out->write only). EOK; ENOENT when the root
 * has no sample; ENOMEM (also for an earlier failure).
 */
errno_t prof_flame_write(prof_flame_t *f, const prof_flame_opts_t *o,
			 const prof_export_out_t *out);

void prof_flame_free(prof_flame_t *f);

#endif

/*
 * Records described once: an X-macro table of rows yields both the struct
 * (RECORD_STRUCT) and a field table a reader prints from (RECORD_FIELDS:
 * name, offset, size, kind), so a record's layout and its fields' names
 * are never written twice. The sysinfo records (abi/sysinfo.h,
 * abi/limits.h, abi/profile.h) are such tables:
 *
 *   #define SYSINFO_PHYSMEM_ROWS(X, T) \
 *           X(T, FIELD, uint64_t, total, U64) \
 *           X(T, FIELD, uint64_t, free, U64)
 *   RECORD_STRUCT(sysinfo_physmem, SYSINFO_PHYSMEM_ROWS);  // sysinfo_physmem_t
 *
 *   static const record_field_t physmem_fields[] =
 *           RECORD_FIELDS(SYSINFO_PHYSMEM_ROWS, sysinfo_physmem_t);
 *
 * A row is X(T, SHAPE, ...), T the record's type, SHAPE one of:
 *   FIELD, ctype, name, kind    member `ctype name;`, listed as name
 *   TEXT, name, len             member `char name[len];`, listed (kind TEXT)
 *   NEST, tag, name             member `tag##_t name;`, its own rows listed
 *                               in its place (tag##_fields: the reader's
 *                               table of that record)
 *   MEMBER, ctype, name, dims   member `ctype name dims;` (dims: "[3]" or
 *                               empty), not listed itself: reserved words,
 *                               or an array whose parts SHOW rows list
 *   SHOW, label, part, kind     no member: part (of a MEMBER, e.g. avg[0])
 *                               listed as label, here in the list's order
 * Rows give the members in layout order and the listed fields in the
 * order a reader prints them. kind is a RECORD_* below, without RECORD_.
 */
#ifndef ABI_RECORD_H
#define ABI_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* How a listed field reads (record_field_t.kind). */
#define RECORD_U32 1                /* uint32_t */
#define RECORD_U64 2                /* uint64_t */
#define RECORD_HEX32 3              /* uint32_t flags or a mask */
#define RECORD_TEXT 4               /* char[size], NUL-padded */
#define RECORD_LOAD 5               /* uint64_t load average (SYSINFO_LOAD_ONE = 1.0) */
#define RECORD_STATE 6              /* uint32_t SYSINFO_THREAD_* */
#define RECORD_NEST 7               /* a record: fields (offsets within it) */

/* One listed field; a table ends with a NULL name. */
typedef struct record_field {
	const char *name;
	uint32_t offset;                /* bytes from the record's start */
	uint32_t size;                  /* bytes */
	uint32_t kind;                  /* RECORD_* */
	const struct record_field *fields;  /* RECORD_NEST: the nested record's */
} record_field_t;

/* The struct of a row table: typedef struct tag { ... } tag##_t. */
#define RECORD_STRUCT(tag, ROWS)                                                \
	typedef struct tag {                                                    \
		ROWS(RECORD_MEMBER_, tag##_t)                                   \
	} tag##_t

/* The field table of a row table (an initialiser), for record type T. */
#define RECORD_FIELDS(ROWS, T) { ROWS(RECORD_ENTRY_, T) { NULL, 0, 0, 0, NULL } }

/* The row shapes, as members ... */
#define RECORD_MEMBER_(T, shape, ...) RECORD_MEMBER_##shape(__VA_ARGS__)
#define RECORD_MEMBER_FIELD(ctype, name, kind) ctype name;
#define RECORD_MEMBER_TEXT(name, len) char name[len];
#define RECORD_MEMBER_NEST(tag, name) tag##_t name;
#define RECORD_MEMBER_MEMBER(ctype, name, dims) ctype name dims;
#define RECORD_MEMBER_SHOW(label, part, kind)

/* ... and as field table entries. */
#define RECORD_ENTRY_(T, shape, ...) RECORD_ENTRY_##shape(T, __VA_ARGS__)
#define RECORD_PART_(T, label, part, kind, sub)                                 \
	{ #label, offsetof(T, part), sizeof(((T *)0)->part), RECORD_##kind, sub },
#define RECORD_ENTRY_FIELD(T, ctype, name, kind) RECORD_PART_(T, name, name, kind, NULL)
#define RECORD_ENTRY_TEXT(T, name, len) RECORD_PART_(T, name, name, TEXT, NULL)
#define RECORD_ENTRY_NEST(T, tag, name) RECORD_PART_(T, name, name, NEST, tag##_fields)
#define RECORD_ENTRY_MEMBER(T, ctype, name, dims)
#define RECORD_ENTRY_SHOW(T, label, part, kind) RECORD_PART_(T, label, part, kind, NULL)

#endif

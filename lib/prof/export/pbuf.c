/*
 * The encodings pprof files need (lib/profexport.h): protocol buffer
 * varints and fields (prof_pb_*, the export's px wrappers of them) and a
 * gzip member of stored deflate blocks (prof_gzip). The sample and the
 * call profile's pprof writers both use them.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- protobuf */

/* Protocol buffers: varints, keys, length-delimited fields. */
/* v as a protobuf varint into tmp (10 bytes hold any); its length. */
static size_t pb_varint_encode(unsigned char tmp[10], uint64_t v)
{
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* A bare varint into b (x->err on ENOMEM). */
void px_pb_varint(px_t *x, px_buf_t *b, uint64_t v)
{
	b->env = x->env;
	prof_pb_varint(b, v);
	px_buf_err(x, b);
}

/* A varint field into b (x->err on ENOMEM). */
void px_pb_uint(px_t *x, px_buf_t *b, unsigned field, uint64_t v)
{
	b->env = x->env;
	prof_pb_uint(b, field, v);
	px_buf_err(x, b);
}

/* A length-delimited field of len bytes of data into b (x->err on ENOMEM). */
void px_pb_bytes(px_t *x, px_buf_t *b, unsigned field, const void *data, size_t len)
{
	b->env = x->env;
	prof_pb_bytes(b, field, data, len);
	px_buf_err(x, b);
}

/* ---------------------------------------------------------------- gzip */

/* CRC-32 (IEEE, reflected) of len bytes, continuing crc. */
static uint32_t gz_crc(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void gz_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void prof_gzip(const prof_export_out_t *out, const void *data_, size_t len)
{
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };
	const unsigned char *data = data_;
	unsigned char blk[5], tail[8];
	size_t off = 0;

	out->write(out->ctx, head, sizeof(head));
	do {
		size_t n = len - off < PX_GZ_BLOCK ? len - off : PX_GZ_BLOCK;
		blk[0] = off + n == len;                /* BFINAL, BTYPE 00 */
		blk[1] = (unsigned char)n;
		blk[2] = (unsigned char)(n >> 8);
		blk[3] = (unsigned char)~n;
		blk[4] = (unsigned char)(~n >> 8);
		out->write(out->ctx, blk, sizeof(blk));
		out->write(out->ctx, data + off, n);
		off += n;
	} while (off < len);
	gz_le32(tail, gz_crc(0, data, len));
	gz_le32(tail + 4, (uint32_t)len);
	out->write(out->ctx, tail, sizeof(tail));
}

/* ---------------------------------------------------------------- public pb */

void prof_pb_raw(prof_pb_t *b, const void *data, size_t len)
{
	prof_buf_put(b, data, len);
}

void prof_pb_varint(prof_pb_t *b, uint64_t v)
{
	unsigned char tmp[10];

	prof_pb_raw(b, tmp, pb_varint_encode(tmp, v));
}

void prof_pb_uint(prof_pb_t *b, unsigned field, uint64_t v)
{
	prof_pb_varint(b, (uint64_t)field << 3);
	prof_pb_varint(b, v);
}

void prof_pb_bytes(prof_pb_t *b, unsigned field, const void *data, size_t len)
{
	prof_pb_varint(b, (uint64_t)field << 3 | 2);
	prof_pb_varint(b, len);
	prof_pb_raw(b, data, len);
}

void prof_pb_free(prof_pb_t *b)
{
	prof_buf_free(b);
}

/* ---------------------------------------------------------------- profile.proto */

/* A ValueType message as field of pb. */
void prof_pprof_value_type(prof_pb_t *pb, prof_pb_t *sub, unsigned field, uint64_t type,
			   uint64_t unit)
{
	sub->len = 0;
	prof_pb_uint(sub, 1, type);
	prof_pb_uint(sub, 2, unit);
	prof_pb_bytes(pb, field, sub->p, sub->len);
}

/* A Mapping message. */
void prof_pprof_mapping(prof_pb_t *pb, prof_pb_t *msg, uint64_t id, uint64_t lo, uint64_t hi,
			uint64_t file)
{
	msg->len = 0;
	prof_pb_uint(msg, 1, id);
	prof_pb_uint(msg, 2, lo);
	prof_pb_uint(msg, 3, hi);
	prof_pb_uint(msg, 5, file);
	prof_pb_uint(msg, 7, 1);        /* has_functions */
	prof_pb_bytes(pb, PROF_PB_MAPPING, msg->p, msg->len);
}

/* A Function message. */
void prof_pprof_function(prof_pb_t *pb, prof_pb_t *msg, uint64_t id, uint64_t name,
			 uint64_t file)
{
	msg->len = 0;
	prof_pb_uint(msg, 1, id);
	prof_pb_uint(msg, 2, name);
	prof_pb_uint(msg, 3, name);
	if (file)
		prof_pb_uint(msg, 4, file);
	prof_pb_bytes(pb, PROF_PB_FUNCTION, msg->p, msg->len);
}

/* A Location message with one Line. */
void prof_pprof_location(prof_pb_t *pb, prof_pb_t *msg, prof_pb_t *sub, uint64_t id,
			 uint64_t mapping, uint64_t addr, uint64_t func)
{
	msg->len = sub->len = 0;
	prof_pb_uint(msg, 1, id);
	if (mapping)
		prof_pb_uint(msg, 2, mapping);
	prof_pb_uint(msg, 3, addr);
	prof_pb_uint(sub, 1, func);
	prof_pb_bytes(msg, 4, sub->p, sub->len);
	prof_pb_bytes(pb, PROF_PB_LOCATION, msg->p, msg->len);
}

/* A Label into the Sample in msg. */
void prof_pprof_label(prof_pb_t *msg, prof_pb_t *sub, uint64_t key, uint64_t str, bool num,
		      uint64_t v)
{
	sub->len = 0;
	prof_pb_uint(sub, 1, key);
	if (num)
		prof_pb_uint(sub, 3, v);
	else
		prof_pb_uint(sub, 2, str);
	prof_pb_bytes(msg, 3, sub->p, sub->len);
}

/*
 * bytes.h - loads and stores of little- and big-endian integers at any
 * address.  Assembled byte by byte from memcpy'd bytes: no alignment or
 * aliasing assumption, and compilers turn each into one load or store
 * (plus a byte swap where the host's order differs).
 */
#ifndef TK_BYTES_H
#define TK_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* the host's own order: one load, whatever the compiler's pattern matching */
static inline uint16_t tk_load_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t tk_load_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t tk_load_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}
#else
static inline uint16_t tk_load_le16(const void *p)
{
	uint8_t b[2];

	memcpy(b, p, 2);
	return (uint16_t)(b[0] | (unsigned)b[1] << 8);
}

static inline uint32_t tk_load_le32(const void *p)
{
	uint8_t b[4];

	memcpy(b, p, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t tk_load_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)tk_load_le32(b) | (uint64_t)tk_load_le32(b + 4) << 32;
}
#endif

static inline uint16_t tk_load_be16(const void *p)
{
	uint8_t b[2];

	memcpy(b, p, 2);
	return (uint16_t)((unsigned)b[0] << 8 | b[1]);
}

static inline uint32_t tk_load_be32(const void *p)
{
	uint8_t b[4];

	memcpy(b, p, 4);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static inline uint64_t tk_load_be64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)tk_load_be32(b) << 32 | (uint64_t)tk_load_be32(b + 4);
}

static inline void tk_store_le16(void *p, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	memcpy(p, b, 2);
}

static inline void tk_store_le32(void *p, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 24) };

	memcpy(p, b, 4);
}

static inline void tk_store_le64(void *p, uint64_t v)
{
	uint8_t *b = p;

	tk_store_le32(b, (uint32_t)v);
	tk_store_le32(b + 4, (uint32_t)(v >> 32));
}

static inline void tk_store_be16(void *p, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	memcpy(p, b, 2);
}

static inline void tk_store_be32(void *p, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };

	memcpy(p, b, 4);
}

static inline void tk_store_be64(void *p, uint64_t v)
{
	uint8_t *b = p;

	tk_store_be32(b, (uint32_t)(v >> 32));
	tk_store_be32(b + 4, (uint32_t)v);
}

#endif

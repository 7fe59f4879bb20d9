/*
 * sha256.c - SHA-256 (FIPS 180-4) of a file's bytes, as they are stored:
 * the content hash of a dataset's inputs (tk_sha256_file, internal.h).
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* one round on the working variables as named (the caller renames them
 * from round to round instead of moving them) */
#define ROUND(a, b, c, d, e, f, g, hh, i)                                    \
	do {                                                                 \
		uint32_t t1_ = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +  \
			       (g ^ (e & (f ^ g))) + K[i] + w[i];            \
		uint32_t t2_ = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +       \
			       ((a & b) | (c & (a | b)));                    \
		d += t1_;                                                    \
		hh = t1_ + t2_;                                              \
	} while (0)

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	/* eight rounds a step, each with the variables of FIPS 180-4's
	 * t = hh, g = f, ... shifted by one place */
	for (i = 0; i < 64; i += 8) {
		ROUND(a, b, c, d, e, f, g, hh, i);
		ROUND(hh, a, b, c, d, e, f, g, i + 1);
		ROUND(g, hh, a, b, c, d, e, f, i + 2);
		ROUND(f, g, hh, a, b, c, d, e, i + 3);
		ROUND(e, f, g, hh, a, b, c, d, i + 4);
		ROUND(d, e, f, g, hh, a, b, c, i + 5);
		ROUND(c, d, e, f, g, hh, a, b, i + 6);
		ROUND(b, c, d, e, f, g, hh, a, i + 7);
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

#undef ROUND

int tk_sha256_file(const char *path, char hex[65], tk_error *err)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char buf[65536], tail[128];
	uint64_t total = 0;
	size_t n, i, at = 0, tn;
	FILE *fp = fopen(path, "rb");
	int rc = TK_OK;

	if (!fp)
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	while ((n = fread(buf + at, 1, sizeof(buf) - at, fp)) > 0) {
		n += at;
		total += n - at;
		for (i = 0; i + 64 <= n; i += 64)
			block(h, buf + i);
		at = n - i;
		memmove(buf, buf + i, at);
	}
	if (ferror(fp))
		rc = tk_err_set(err, TK_E_IO, path, 0, 0, "cannot read: %s",
				strerror(errno));
	fclose(fp);
	if (rc < 0)
		return rc;
	/* the last bytes, 0x80, zeros, the length in bits (big-endian) */
	memset(tail, 0, sizeof(tail));
	memcpy(tail, buf, at);
	tail[at] = 0x80;
	tn = at + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[tn - 1 - i] = (unsigned char)((total * 8) >> (8 * i));
	for (i = 0; i < tn; i += 64)
		block(h, tail + i);
	for (i = 0; i < 32; i++) {
		unsigned v = (unsigned)(h[i / 4] >> (24 - 8 * (i % 4))) & 0xff;
		hex[2 * i] = digits[v >> 4];
		hex[2 * i + 1] = digits[v & 15];
	}
	hex[64] = 0;
	return TK_OK;
}

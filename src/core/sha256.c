/*
 * sha256.c - SHA-256 of a file's bytes, as they are stored: the content
 * hash of a dataset's inputs (tk_sha256_file, internal.h), by Nettle's
 * sha256 (which takes the CPU's SHA instructions where there are some).
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nettle/sha2.h>

int tk_sha256_file(const char *path, char hex[65], tk_error *err)
{
	static const char digits[] = "0123456789abcdef";
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	unsigned char buf[65536];
	size_t n, i;
	FILE *fp = fopen(path, "rb");
	int rc = TK_OK;

	if (!fp)
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	sha256_init(&ctx);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sha256_update(&ctx, n, buf);
	if (ferror(fp))
		rc = tk_err_set(err, TK_E_IO, path, 0, 0, "cannot read: %s",
				strerror(errno));
	fclose(fp);
	if (rc < 0)
		return rc;
	sha256_digest(&ctx, sizeof(digest), digest);
	for (i = 0; i < sizeof(digest); i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[64] = 0;
	return TK_OK;
}

/*
 * hash.c -- the only place that talks to OpenSSL's libcrypto: SHA-256 for
 * machine fingerprints and outbox target identities, HMAC-SHA256 for
 * webhook signatures; and the one source of random identifiers (runs,
 * alerts), the kernel's generator.
 */
#include <errno.h>
#include <sys/random.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "internal.h"

static void hash__hex(const unsigned char *md, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * n] = '\0';
}

int bg_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return BG_ERROR;
	hash__hex(md, mdlen, out);
	return 0;
}

int bg_hmac_sha256_hex(const void *key, size_t keylen, const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (keylen > 0x7fffffff)
		return BG_EINPUT;
	/* HMAC() wants a non-NULL key even when it is empty. */
	if (!HMAC(EVP_sha256(), keylen ? key : "", (int)keylen, data, len, md, &mdlen) ||
	    mdlen != 32)
		return BG_ERROR;
	hash__hex(md, mdlen, out);
	return 0;
}

/*
 * 128 random bits in lowercase hex.  getrandom(), not OpenSSL's generator:
 * OpenSSL seeds from the same kernel source, and setting up its generator
 * costs more than the 16 bytes.  It blocks only until the kernel's pool is
 * first ready, at boot.  BG_ERROR with errno on failure.
 */
int bg_random_hex(char out[33])
{
	unsigned char b[16];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(b)) {
		n = getrandom(b + got, sizeof(b) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return BG_ERROR;
		got += (size_t)n;
	}
	hash__hex(b, sizeof(b), out);
	return 0;
}

/*
 * hash.c -- the only place that talks to OpenSSL's libcrypto: SHA-256 for
 * machine fingerprints (and, with the alerts issue, HMAC for webhooks).
 */
#include <openssl/evp.h>

#include "internal.h"

int bg_sha256_hex(const void *data, size_t len, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return BG_ERROR;
	for (i = 0; i < mdlen; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

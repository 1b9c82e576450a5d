/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Print an AUX buffer of CoreSight trace on the console for the host to
 * decode (ci/check-trace.py): a "CSTRACE-BEGIN key=value..." line, which
 * the caller starts and cs_trace_print_config() ends with the trace unit
 * configuration the decoder needs, the buffer as hex, and "CSTRACE-END".
 * Used by tools/trace/cs-trace-record.c and tools/etr-share/etr-share.c.
 *
 * AUX samples are printed in base64 instead, with a CRC, by
 * cs_trace_print_base64() and cs_trace_crc32() (tools/tests/aux-sample-*.c,
 * decoded by ci/check-aux-samples.py).
 */
#ifndef CS_TRACE_DUMP_H
#define CS_TRACE_DUMP_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CS_DEVICES	"/sys/bus/coresight/devices"

/* The first line of a sysfs file, without its newline; 0 or -1 */
static inline int cs_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* " idr0=... configr=... devarch=..." of trace unit @source (etm0, ete1) */
static inline void cs_trace_print_config(const char *source)
{
	static const char *const regs[][2] = {
		{ "idr0", "trcidr/trcidr0" }, { "idr1", "trcidr/trcidr1" },
		{ "idr2", "trcidr/trcidr2" }, { "idr8", "trcidr/trcidr8" },
		{ "configr", "mgmt/trcconfig" }, { "devarch", "mgmt/trcdevarch" },
	};
	char path[160], buf[64];

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		snprintf(path, sizeof(path), CS_DEVICES "/%s/%s", source,
			 regs[i][1]);
		if (cs_read_line(path, buf, sizeof(buf)) == 0)
			printf(" %s=%s", regs[i][0], buf);
	}
}

/* The rest of the CSTRACE-BEGIN line, then @size bytes of trace as hex */
static inline void cs_trace_print_data(const unsigned char *aux, uint64_t size)
{
	printf("\n");
	for (uint64_t i = 0; i < size; i++) {
		printf("%02x", aux[i]);
		if ((i & 31) == 31 || i + 1 == size)
			putchar('\n');
	}
	printf("CSTRACE-END\n");
	fflush(stdout);
}

/* zlib's CRC-32 of @n bytes at @p */
static inline uint32_t cs_trace_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0U;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

#define CS_TRACE_B64_LINE	96	/* base64 characters per line */

/* @len bytes at @p in base64, on lines "@prefix @n data BASE64" */
static inline void cs_trace_print_base64(const char *prefix, unsigned int n,
					 const uint8_t *p, size_t len)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char line[CS_TRACE_B64_LINE + 1];
	size_t i, o = 0;

	for (i = 0; i < len; i += 3) {
		uint32_t v = p[i] << 16;

		v |= i + 1 < len ? p[i + 1] << 8 : 0;
		v |= i + 2 < len ? p[i + 2] : 0;
		line[o++] = b64[v >> 18];
		line[o++] = b64[(v >> 12) & 63];
		line[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		line[o++] = i + 2 < len ? b64[v & 63] : '=';
		if (o == CS_TRACE_B64_LINE || i + 3 >= len) {
			line[o] = 0;
			printf("%s %u data %s\n", prefix, n, line);
			o = 0;
		}
	}
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Print an AUX buffer of CoreSight trace on the console for the host to
 * decode (ci/check-trace.py): a "CSTRACE-BEGIN key=value..." line, which
 * the caller starts and cs_trace_print_config() ends with the trace unit
 * configuration the decoder needs, the buffer as hex, and "CSTRACE-END".
 * Used by tools/trace/cs-trace-record.c and tools/etr-share/etr-share.c.
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

#endif

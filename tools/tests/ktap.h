/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for the boot tests, see
 * Documentation/dev-tools/ktap.rst in the kernel tree.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_nr;

static inline void ktap_plan(const char *suite, int nr_tests)
{
	printf("KTAP version 1\n# %s\n1..%d\n", suite, nr_tests);
	fflush(stdout);
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Report one test; returns @ok so that callers can count failures */
static inline int ktap_result(int ok, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++ktap_nr, name);
	fflush(stdout);
	return ok;
}

static inline void ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++ktap_nr, name, why);
	fflush(stdout);
}

#endif

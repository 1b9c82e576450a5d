// SPDX-License-Identifier: GPL-2.0
/*
 * Feed the records of a file, one a line, to kmsg_splats() of the
 * CoreSight kselftests (cs_etm_util.h) as /dev/kmsg would, one record a
 * read(), and print how many splats it counts.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "cs_etm_util.h"

int main(int argc, char **argv)
{
	static struct __test_metadata metadata = { .name = "kmsg_splats" };
	struct __test_metadata *_metadata = &metadata;
	char line[1024];
	int sv[2];
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r")) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return 2;
	/* A datagram each: one read() returns one record */
	while (fgets(line, sizeof(line), f))
		if (write(sv[1], line, strlen(line)) < 0)
			return 2;
	close(sv[1]);
	printf("%d splats\n", kmsg_splats(_metadata, sv[0]));
	return 0;
}

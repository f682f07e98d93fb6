// SPDX-License-Identifier: GPL-2.0-or-later
/* The dm-verity roots' init= (tests/boot/scenarios_verity.py): reads
 * /verity-probe whole through the verity mapping and says what the
 * read gave (a corrupted block: EIO), then execs the root's own init,
 * testinit, as PID 1 still, which prints the marker. testinit itself
 * is not changed: every cached test disk carries it and hashes it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	static char buf[65536];
	char *const argv[] = { "/sbin/init", NULL };
	int fd = open("/verity-probe", O_RDONLY | O_CLOEXEC);
	long total = 0;
	ssize_t n = -1;
	FILE *out = fopen("/dev/console", "we");

	if (!out)
		out = stdout;
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		if (n < 0)
			fprintf(out, "VERITY-PROBE: read /verity-probe: %s after %ld bytes\n",
				strerror(errno), total);
		else
			fprintf(out, "VERITY-PROBE: read /verity-probe: %ld bytes\n", total);
		close(fd);
	} else {
		fprintf(out, "VERITY-PROBE: open /verity-probe: %s\n", strerror(errno));
	}
	fflush(out);
	execv(argv[0], argv);
	fprintf(out, "VERITY-PROBE: exec /sbin/init: %s\n", strerror(errno));
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * tbio: one write(2) or read(2) on a file, reporting the exact errno, which
 * the shell's own redirections and utilities hide or paraphrase.
 *
 *	tbio write FILE DATA	write DATA (no newline added) in one call
 *	tbio read FILE		read up to 4 KiB in one call
 *
 * Prints OK or the errno's name (EINVAL, ...) and exits 0 either way;
 * exits 2 when the file cannot even be opened or the usage is wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t ret;
	int fd;

	if (argc == 4 && !strcmp(argv[1], "write"))
		fd = open(argv[2], O_WRONLY);
	else if (argc == 3 && !strcmp(argv[1], "read"))
		fd = open(argv[2], O_RDONLY);
	else
		fd = -2;
	if (fd == -2) {
		fprintf(stderr, "usage: tbio write FILE DATA | tbio read FILE\n");
		return 2;
	}
	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return 2;
	}
	if (argv[1][0] == 'w')
		ret = write(fd, argv[3], strlen(argv[3]));
	else
		ret = read(fd, buf, sizeof(buf));
	puts(ret < 0 ? strerrorname_np(errno) : "OK");
	close(fd);
	return 0;
}

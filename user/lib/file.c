/* user/lib/file.c: whole-file reads for the tests. */
#include "file.h"

#include <fcntl.h>
#include <unistd.h>

long slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long len = 0, n = 0;

	if (fd < 0)
		return -1;
	while (len < (long)size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

/* user/lib/file.c: whole-file reads and writes for the tests. */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
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

long write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -1;
	long n = write(fd, text, strlen(text));
	int err = errno;
	close(fd);
	errno = err;
	return n;
}

/* user/tests/outfiles.c: writes files under /out, which pmuos sends to the host at halt (the
 * suite's hostout run checks they arrive byte for byte): a line of text and a pattern of the
 * size given as the argument (default 1 MiB). */
#include "ktap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Byte i of the pattern: the host side (tests/qemu/suite.py) computes the same. */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 12));
}

TEST(write_text_file)
{
	static const char text[] = "hello from pmuos\n";
	int fd = open("/out/hello.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	EXPECT_EQ(close(fd), 0);
}

TEST(write_pattern_file)
{
	size_t size = ktap_argc > 1 ? strtoul(ktap_argv[1], NULL, 0) : 1 << 20;
	static unsigned char buf[65536];
	int fd;

	ASSERT_TRUE(mkdir("/out/sub", 0755) == 0 || errno == EEXIST);
	fd = open("/out/sub/pattern.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(done + i);
		ASSERT_EQ(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	EXPECT_EQ(close(fd), 0);
}

/* user/lib/pmuos.c: reading pmuos's own /sys files (persistent events, accounting, the kernel lock). */
#include "pmuos.h"
#include "cpu.h"

#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PERSISTENT "/sys/bus/event_source/devices/persistent"

static long read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static char *next_line(char *line)
{
	char *nl = strchr(line, '\n');

	return nl ? nl + 1 : NULL;
}

int pmuos_persistent_type(void)
{
	char buf[32];

	return read_text(PERSISTENT "/type", buf, sizeof(buf)) < 0 ? -1 : atoi(buf);
}

uint64_t pmuos_persistent_first_id(void)
{
	DIR *d = opendir(PERSISTENT "/events");
	struct dirent *de;
	char path[sizeof(PERSISTENT "/events/") + 256], buf[64];
	uint64_t id = 0;

	if (!d)
		return 0;
	while (!id && (de = readdir(d))) {
		if (de->d_name[0] != 'p')
			continue;
		snprintf(path, sizeof(path), PERSISTENT "/events/%s", de->d_name);
		if (read_text(path, buf, sizeof(buf)) > 0 && !strncmp(buf, "config=", 7))
			id = strtoull(buf + 7, NULL, 10);
	}
	closedir(d);
	return id;
}

long pmuos_accounting(const char *name)
{
	char buf[1024];
	size_t len = strlen(name);

	if (read_text("/sys/kernel/pmuos/accounting", buf, sizeof(buf)) < 0)
		return -1;
	for (char *line = buf; line && *line; line = next_line(line))
		if (!strncmp(line, name, len) && line[len] == ' ')
			return atol(line + len + 1);
	return -1;
}

long pmuos_kernel_lock_taken(int cpu)
{
	char buf[4096];
	int c;
	long taken;

	if (read_text("/sys/kernel/pmuos/kernel_lock", buf, sizeof(buf)) < 0)
		return -1;
	for (char *line = buf; line && *line; line = next_line(line))
		if (sscanf(line, "cpu%d taken %ld", &c, &taken) == 2 && c == cpu)
			return taken;
	return -1;
}

const char *pmuos_kernel_lock_uncounted(void)
{
	if (pmuos_kernel_lock_taken(0) < 0)
		return "no /sys/kernel/pmuos/kernel_lock (pmuos's; Linux has no kernel lock to count)";
	if (online_cpus() < 2)
		return "one CPU: pmuos's kernel lock is off";
	return NULL;
}

static pthread_t sharer;
static int sharer_pipe[2];

static void *sharer_main(void *arg)
{
	char c;

	(void)arg;
	return (void *)read(sharer_pipe[0], &c, 1);
}

void pmuos_sharer_start(void)
{
	if (pipe(sharer_pipe) == 0)
		pthread_create(&sharer, NULL, sharer_main, NULL);
}

void pmuos_sharer_stop(void)
{
	if (write(sharer_pipe[1], "x", 1) == 1)
		pthread_join(sharer, NULL);
	close(sharer_pipe[0]);
	close(sharer_pipe[1]);
}

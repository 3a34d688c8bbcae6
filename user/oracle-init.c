/* user/oracle-init.c: /init of the Linux oracle; runs each line of /tests.list as a child and reports its exit status. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4 /* QEMU's isa-debug-exit: exits with (value << 1) | 1 */
#define MAX_ARGS 32

/* write(2) straight to the console so lines interleave correctly with the children's. */
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		write(1, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Linux opens /dev/console as fds 0-2 for init only when the node exists in the initramfs. */
static void open_console(void)
{
	if (fcntl(1, F_GETFD) >= 0)
		return;
	int fd = open("/dev/console", O_RDWR);
	for (int i = 0; fd >= 0 && i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

static void mount_fs(const char *type, const char *dir)
{
	if (mount(type, dir, type, 0, NULL) != 0)
		say("# mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* Runs one "PATH args..." line; returns the status as a shell reports it. */
static int run(char *line)
{
	char *argv[MAX_ARGS + 1], echo[256], *save;
	char *path = strtok_r(line, " \t", &save);
	char *args = strtok_r(NULL, "", &save);
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *const envp[] = { NULL };
	int argc = 0, status;

	snprintf(echo, sizeof(echo), "%s", args ? args + strspn(args, " \t") : "");
	say("== run %s%s%s\n", name, *echo ? " " : "", echo);
	argv[argc++] = (char *)name;
	for (char *a = args ? strtok_r(args, " \t", &save) : NULL; a && argc < MAX_ARGS;
	     a = strtok_r(NULL, " \t", &save))
		argv[argc++] = a;
	argv[argc] = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		execve(path, argv, envp);
		say("# exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		say("# fork/wait %s: %s\n", path, strerror(errno));
		status = 127 << 8;
	}
	status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	say("== exit %s status=%d\n", name, status);
	return status;
}

int main(void)
{
	static char list[16384];
	int status = 0, fd;
	ssize_t len = 0, n;

	open_console();
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	fd = open("/tests.list", O_RDONLY);
	while (fd >= 0 && (n = read(fd, list + len, sizeof(list) - 1 - (size_t)len)) > 0)
		len += n;
	if (fd < 0) {
		say("# /tests.list: %s\n", strerror(errno));
		status = 1;
	} else {
		close(fd);
	}
	list[len] = '\0';
	for (char *save, *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (l[strspn(l, " \t")] != '\0')
			run(l);

	say("== halt status=%d\n", status);
	tcdrain(1); /* the UART sends from a buffer: let it empty before QEMU quits */
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0)
		outl((unsigned)status, DEBUG_EXIT_PORT);
	reboot(RB_POWER_OFF); /* without isa-debug-exit: -no-reboot makes QEMU quit */
	for (;;)
		pause();
}

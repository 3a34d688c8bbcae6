/* user/init.c: /init on both kernels (pmuos's and the Linux oracle's): runs each record of
 * /etc/runlist (see tests/qemu/initramfs.py) as a child, reports its exit status, ends what it
 * left behind, and powers off with the status of the run. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4 /* QEMU's isa-debug-exit: exits with (value << 1) | 1 */

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

/* pmuos mounts /proc and /sys itself; Linux's init does it. */
static void mount_fs(const char *type, const char *dir)
{
	char probe[64];

	snprintf(probe, sizeof(probe), "%s/%s", dir, !strcmp(type, "proc") ? "self" : "kernel");
	if (access(probe, F_OK) == 0)
		return;
	if (mount(type, dir, type, 0, NULL) != 0)
		say("# mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* Runs one program; returns the status as a shell reports it. */
static int run(const char *path, char **argv, char **envp)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int status;

	say("== run %s", name);
	for (int i = 1; argv[i]; i++)
		say(" %s", argv[i]);
	say("\n");
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
	/* What it left running goes (kill(-1) spares init), and init reaps the
	 * orphans it inherits, as a test runner must for the next program. */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	return status;
}

/* The next NUL-terminated field of [*p, end), or NULL. */
static char *field(char **p, char *end)
{
	char *s = *p, *nul = memchr(s, '\0', end - s);

	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

/* Fill v[0..n) with the next n fields and NULL-terminate it. */
static char **fields(char **p, char *end, long n)
{
	char **v = n >= 0 && n < 1 << 20 ? calloc(n + 1, sizeof(*v)) : NULL;

	for (long i = 0; v && i < n; i++)
		if (!(v[i] = field(p, end)))
			return NULL;
	return v;
}

static int run_list(char *p, char *end)
{
	int status = 0;

	while (p < end) {
		char *path = field(&p, end), *n = path ? field(&p, end) : NULL;
		char **argv = n ? fields(&p, end, atol(n)) : NULL;
		char *m = argv ? field(&p, end) : NULL;
		char **envp = m ? fields(&p, end, atol(m)) : NULL;
		if (!envp) {
			say("# /etc/runlist: a damaged record\n");
			return 1;
		}
		run(path, argv, envp);
		free(argv);
		free(envp);
	}
	return status;
}

int main(void)
{
	static char list[1 << 20];
	int status = 0, fd;
	ssize_t len = 0, n;

	open_console();
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	fd = open("/etc/runlist", O_RDONLY);
	while (fd >= 0 && (n = read(fd, list + len, sizeof(list) - (size_t)len)) > 0)
		len += n;
	if (fd < 0) {
		say("# /etc/runlist: %s\n", strerror(errno));
		status = 1;
	} else {
		close(fd);
		status = run_list(list, list + len);
	}

	struct utsname u;
	if (uname(&u) == 0 && strstr(u.release, "pmuos"))
		return status;	/* pmuos halts with its init's status, and says so */
	say("== halt status=%d\n", status);
	tcdrain(1); /* the UART sends from a buffer: let it empty before QEMU quits */
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0)
		outl((unsigned)status, DEBUG_EXIT_PORT);
	reboot(RB_POWER_OFF); /* without isa-debug-exit: -no-reboot makes QEMU quit */
	for (;;)
		pause();
}

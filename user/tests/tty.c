/* user/tests/tty.c: the console as a Linux serial tty: termios defaults and changes, the
 * line discipline (editing, EOF, raw mode, signals) on bytes pushed with TIOCSTI, and, when
 * the harness types it, stdin read to its end. Every test puts the termios back: on Linux
 * the console and its settings outlive the program. */
#include "ktap.h"

#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The harness's side of the stdin test (tests/qemu/suite.py): it types STDIN_LINE and
 * Ctrl-D once this program prints "# " STDIN_PROMPT, and passes --stdin to ask for it. */
#define STDIN_PROMPT "tty: waiting for stdin"
#define STDIN_LINE "pmuos-tty-input\n"

static struct termios saved;

static void save(void)
{
	ASSERT_EQ(ioctl(0, TCGETS, &saved), 0);
}

static void restore(void)
{
	ASSERT_EQ(ioctl(0, TCSETSF, &saved), 0);
}

/* Settings for pushing bytes: no echo (the log stays clean), the rest as they were. */
static void set_lflag(tcflag_t clear, tcflag_t set)
{
	struct termios t = saved;

	t.c_lflag = (t.c_lflag & ~clear) | set;
	ASSERT_EQ(ioctl(0, TCSETS, &t), 0);
}

static void push(const char *s)
{
	for (; *s; s++)
		ASSERT_EQ(ioctl(0, TIOCSTI, s), 0);
}

static int inq(void)
{
	int n = -1;

	ASSERT_EQ(ioctl(0, FIONREAD, &n), 0);
	return n;
}

/* read() into a string */
static long get(char *buf, size_t n)
{
	long r = read(0, buf, n - 1);

	buf[r > 0 ? r : 0] = '\0';
	return r;
}

/* tty_std_termios with ttyS0's 9600 baud, as Linux 6.1 gives console=ttyS0. */
TEST(termios_defaults)
{
	struct termios2 t;
	static const cc_t cc[NCCS] = {
		[VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4,
		[VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032, [VREPRINT] = 022,
		[VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026,
	};

	ASSERT_EQ(ioctl(0, TCGETS2, &t), 0);
	EXPECT_EQ(t.c_iflag, ICRNL | IXON);
	EXPECT_EQ(t.c_oflag, OPOST | ONLCR);
	EXPECT_EQ(t.c_cflag, B9600 | CS8 | CREAD | HUPCL | CLOCAL);
	EXPECT_EQ(t.c_lflag, ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN);
	EXPECT_EQ(t.c_line, 0);
	for (int i = 0; i < NCCS; i++)
		EXPECT_EQ(t.c_cc[i], cc[i]);
	EXPECT_EQ(t.c_ispeed, 9600);
	EXPECT_EQ(t.c_ospeed, 9600);
}

TEST(tcsets_round_trip)
{
	struct termios t, back;
	struct termios2 t2;

	save();
	t = saved;
	t.c_lflag &= ~(ECHO | ICANON);
	t.c_iflag |= IUTF8;
	t.c_cc[VMIN] = 5;
	t.c_cc[VTIME] = 7;
	t.c_cflag = (t.c_cflag & ~CBAUD) | B38400;
	for (unsigned long cmd = TCSETS; cmd <= TCSETSF; cmd++) {
		ASSERT_EQ(ioctl(0, cmd, &t), 0);
		ASSERT_EQ(ioctl(0, TCGETS, &back), 0);
		EXPECT_EQ(memcmp(&t, &back, sizeof(t)), 0);
	}
	ASSERT_EQ(ioctl(0, TCGETS2, &t2), 0);
	EXPECT_EQ(t2.c_ospeed, 38400);
	EXPECT_EQ(t2.c_ispeed, 38400);
	restore();
	ASSERT_EQ(ioctl(0, TCGETS2, &t2), 0);
	EXPECT_EQ(t2.c_ospeed, 9600);
	ASSERT_ERRNO(ioctl(0, TCSETS, (void *)16), EFAULT);
}

TEST(winsize_round_trip)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 }, back, zero = { 0 };

	ASSERT_EQ(ioctl(1, TIOCSWINSZ, &ws), 0);
	ASSERT_EQ(ioctl(0, TIOCGWINSZ, &back), 0);
	EXPECT_EQ(back.ws_row, 24);
	EXPECT_EQ(back.ws_col, 80);
	ASSERT_EQ(ioctl(1, TIOCSWINSZ, &zero), 0);
}

TEST(queues_and_flow_ioctls)
{
	int n = -1;

	EXPECT_EQ(inq(), 0);
	ASSERT_EQ(ioctl(1, TCSBRK, 1), 0); /* tcdrain */
	ASSERT_EQ(ioctl(1, TIOCOUTQ, &n), 0);
	EXPECT_EQ(n, 0);
	EXPECT_EQ(ioctl(0, TCFLSH, TCIFLUSH), 0);
	EXPECT_EQ(ioctl(0, TCFLSH, TCIOFLUSH), 0);
	EXPECT_ERRNO(ioctl(0, TCFLSH, 3), EINVAL);
	EXPECT_EQ(ioctl(1, TCXONC, TCOON), 0);
	EXPECT_ERRNO(ioctl(1, TCXONC, 4), EINVAL);
}

/* Canonical mode hands out whole lines, edited: VERASE, VKILL, VWERASE, ICRNL. */
TEST(canonical_editing)
{
	char buf[64];
	struct pollfd p = { .fd = 0, .events = POLLIN };

	save();
	set_lflag(ECHO, 0);
	push("abc");
	EXPECT_EQ(inq(), 0); /* no line yet */
	EXPECT_EQ(poll(&p, 1, 0), 0);
	push("\177d\r");
	EXPECT_EQ(inq(), 4);
	EXPECT_EQ(poll(&p, 1, 0), 1);
	EXPECT_EQ(get(buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "abd\n");
	push("junk\025one two\027three\n");
	EXPECT_EQ(get(buf, sizeof(buf)), 10);
	EXPECT_STREQ(buf, "one three\n");
	push("first\nsecond\n"); /* one line per read */
	EXPECT_EQ(get(buf, sizeof(buf)), 6);
	EXPECT_EQ(get(buf, 4), 3);
	EXPECT_STREQ(buf, "sec");
	EXPECT_EQ(get(buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "ond\n");
	restore();
}

/* VEOF at a line's start is end of file; after a partial line it hands the line out. */
TEST(canonical_eof)
{
	char buf[64];

	save();
	set_lflag(ECHO, 0);
	push("\004");
	EXPECT_EQ(inq(), 0);
	EXPECT_EQ(get(buf, sizeof(buf)), 0);
	push("part\004");
	EXPECT_EQ(inq(), 4);
	EXPECT_EQ(get(buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "part");
	push("\026\004\n"); /* VLNEXT: a literal ^D */
	EXPECT_EQ(get(buf, sizeof(buf)), 2);
	EXPECT_STREQ(buf, "\004\n");
	restore();
}

/* Without ICANON: VMIN and VTIME decide; VMIN 0 with VTIME 0 never waits. */
TEST(raw_mode_vmin_vtime)
{
	struct termios t;
	char buf[64];

	save();
	t = saved;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	ASSERT_EQ(ioctl(0, TCSETS, &t), 0);
	EXPECT_EQ(read(0, buf, sizeof(buf)), 0);
	t.c_cc[VTIME] = 1; /* a tenth of a second, then nothing */
	ASSERT_EQ(ioctl(0, TCSETS, &t), 0);
	EXPECT_EQ(read(0, buf, sizeof(buf)), 0);
	push("xy\r");
	EXPECT_EQ(inq(), 3);
	EXPECT_EQ(get(buf, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "xy\n");
	t.c_cc[VMIN] = 2;
	t.c_cc[VTIME] = 0;
	ASSERT_EQ(ioctl(0, TCSETS, &t), 0);
	push("abc");
	EXPECT_EQ(get(buf, 2), 1); /* VMIN beyond the request: the request wins */
	EXPECT_EQ(get(buf, sizeof(buf)), 2);
	EXPECT_STREQ(buf, "bc");
	restore();
}

/* Back to canonical mode, what raw mode queued becomes a line. */
TEST(raw_bytes_become_a_line)
{
	struct termios t;
	char buf[64];

	save();
	t = saved;
	t.c_lflag &= ~(ICANON | ECHO);
	ASSERT_EQ(ioctl(0, TCSETS, &t), 0);
	push("raw");
	set_lflag(ECHO, 0);
	EXPECT_EQ(inq(), 3);
	EXPECT_EQ(get(buf, sizeof(buf)), 3);
	EXPECT_STREQ(buf, "raw");
	restore();
}

TEST(nonblocking_read_eagain)
{
	char c;
	int fl = fcntl(0, F_GETFL);

	ASSERT_NE(fl, -1);
	ASSERT_EQ(fcntl(0, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	long r = read(0, &c, 1);
	int err = errno;
	ASSERT_EQ(fcntl(0, F_SETFL, fl), 0);
	EXPECT_EQ(r, -1);
	EXPECT_EQ(err, EAGAIN);
}

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	got_sigint = sig;
}

/* The exit of a session leader hangs its controlling tty up, and Linux's hangup drops the
 * output not yet sent: the last KTAP lines, where the UART drains slowly (-smp 2 without
 * icount lost "ok 11"). Sent first. */
static void drain_console(void)
{
	ioctl(1, TCSBRK, 1);
}

/* VINTR reaches the foreground process group and flushes the line being typed. On Linux
 * the console is nobody's controlling tty (init opened it): take it, as pmuos's one
 * program already has it. */
TEST(vintr_sends_sigint)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	char buf[64];
	int pgrp = -1;

	if (!ktap_on_pmuos()) {
		ASSERT_EQ(setsid(), getpid());
		ASSERT_EQ(ioctl(0, TIOCSCTTY, 0), 0);
		atexit(drain_console);
	}
	ASSERT_EQ(ioctl(0, TIOCGPGRP, &pgrp), 0);
	EXPECT_EQ(pgrp, getpid());
	ASSERT_EQ(sigaction(SIGINT, &sa, NULL), 0);
	save();
	set_lflag(ECHO, 0);
	ASSERT_EQ(ioctl(1, TCSBRK, 1), 0); /* Linux's VINTR flushes output not yet sent */
	push("lost\003kept\n");
	EXPECT_EQ(got_sigint, SIGINT);
	EXPECT_EQ(get(buf, sizeof(buf)), 5);
	EXPECT_STREQ(buf, "kept\n");
	restore();
}

/* Bytes the harness types while the program runs wait in the queue; read takes the line,
 * then Ctrl-D is the end of the input. */
TEST(stdin_read_to_end)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char buf[64];

	if (ktap_argc < 2 || strcmp(ktap_argv[1], "--stdin") != 0)
		SKIP("no --stdin: the harness types no input");
	ktap_print(STDIN_PROMPT);
	ASSERT_EQ(poll(&p, 1, -1), 1);
	EXPECT_EQ(inq(), (int)strlen(STDIN_LINE));
	EXPECT_EQ(get(buf, sizeof(buf)), (long)strlen(STDIN_LINE));
	EXPECT_STREQ(buf, STDIN_LINE);
	EXPECT_EQ(get(buf, sizeof(buf)), 0);
}

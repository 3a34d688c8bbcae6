/* Pipes and FIFOs as Linux 6.1 makes them (fs/pipe.c, fs/fifo semantics):
 * a ring of page slots, 16 by default. A write of at most a page either
 * joins the last slot or takes a new one whole, so writes of up to
 * PIPE_BUF bytes are atomic; O_DIRECT makes each slot a packet that one
 * read takes whole. Anonymous pipes live on pipefs (an inode each, named
 * "pipe:[INO]"); a FIFO node holds the same buffer while it is open. */
#include "pipe.h"
#include "fd.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm/ioctls.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fcntl.h>
#include <linux/limits.h>
#include <linux/magic.h>
#include <linux/poll.h>
#include <linux/stat.h>

#define PIPE_DEF_SLOTS	16		/* 64 KiB */
#define PIPE_MAX_SIZE	(1ul << 31)	/* round_pipe_size's limit */

struct pipe_buf {
	char *page;		/* NULL while the slot is free */
	uint16_t off, len;
	bool packet;		/* O_DIRECT: read whole, never merged into */
};

struct pipe {
	struct pipe_buf *bufs;
	unsigned nslots;	/* a power of two */
	unsigned head, tail;	/* slots in use: head - tail */
	int readers, writers;
	unsigned r_counter, w_counter;	/* opens so far, for FIFO waits */
	unsigned long in_seq;	/* wake-ups of readers: data, writers gone */
	unsigned long out_seq;	/* of writers: room, readers gone (epoll's edges) */
	struct inode *inode;
	char *spare;		/* the page a read emptied last, for the next write
				 * (Linux's tmp_page): a byte going back and forth
				 * costs no allocation */
};

long pipes_alive;
static struct super_block *pipefs;

static unsigned used(const struct pipe *p)
{
	return p->head - p->tail;
}

static struct pipe_buf *slot(struct pipe *p, unsigned i)
{
	return &p->bufs[i & (p->nslots - 1)];
}

static size_t bytes_queued(struct pipe *p)
{
	size_t n = 0;

	for (unsigned i = p->tail; i != p->head; i++)
		n += slot(p, i)->len;
	return n;
}

static struct pipe *pipe_alloc(struct inode *n)
{
	struct pipe *p = kzalloc(sizeof(*p));

	if (!p || !(p->bufs = kzalloc(PIPE_DEF_SLOTS * sizeof(*p->bufs)))) {
		kfree(p);
		return NULL;
	}
	p->nslots = PIPE_DEF_SLOTS;
	p->inode = n;
	n->pipe = p;
	pipes_alive++;
	return p;
}

/* A page for a slot: the spare one if there is one. */
static char *page_get(struct pipe *p)
{
	char *page = p->spare;

	p->spare = NULL;
	return page ? page : kmalloc(PAGE_SIZE);
}

/* A slot's page, emptied: kept as the spare, or freed. */
static void page_put(struct pipe *p, char *page)
{
	if (!p->spare)
		p->spare = page;
	else
		kfree(page);
}

static void pipe_free(struct pipe *p)
{
	for (unsigned i = p->tail; i != p->head; i++)
		kfree(slot(p, i)->page);
	kfree(p->spare);
	p->inode->pipe = NULL;
	kfree(p->bufs);
	kfree(p);
	pipes_alive--;
}

#define WAKE_READERS	1
#define WAKE_WRITERS	2

/* Something changed for the other side: readers, writers, pollers. */
static void pipe_changed(struct pipe *p, int who)
{
	if (who & WAKE_READERS)
		p->in_seq++;
	if (who & WAKE_WRITERS)
		p->out_seq++;
	sched_wakeup();
}

static bool can_read(void *arg)
{
	struct pipe *p = arg;

	return used(p) || !p->writers;
}

static bool can_write(void *arg)
{
	struct pipe *p = arg;

	return used(p) < p->nslots || !p->readers;
}

static long pipe_read(struct file *f, char *ubuf, size_t n)
{
	struct pipe *p = f->priv;
	long ret = 0;

	if (!n)
		return 0;
	for (;;) {
		while (used(p) && n) {
			struct pipe_buf *b = slot(p, p->tail);
			size_t chars = MIN((size_t)b->len, n);
			if (copy_to_user(ubuf + ret, b->page + b->off, chars)) {
				if (!ret)
					ret = -EFAULT;
				goto out;
			}
			ret += chars;
			n -= chars;
			b->off += chars;
			b->len -= chars;
			if (b->packet) {	/* the rest of a packet is dropped */
				b->len = 0;
				n = 0;
			}
			if (!b->len) {
				page_put(p, b->page);
				b->page = NULL;
				p->tail++;
			}
		}
		if (!n || ret || !p->writers)
			break;
		if (f->flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (task_wait(can_read, p, 0) == -EINTR) {
			ret = -ERESTARTSYS;
			break;
		}
	}
out:
	if (ret > 0)
		pipe_changed(p, WAKE_WRITERS);
	return ret;
}

static long pipe_write(struct file *f, const char *ubuf, size_t n)
{
	struct pipe *p = f->priv;
	bool packet = f->flags & O_DIRECT;
	size_t chars = n & (PAGE_SIZE - 1);
	long ret = 0;

	if (!n)
		return 0;
	if (!p->readers)
		goto epipe;
	/* The part of the write past whole pages joins the last slot if it
	 * fits there entirely (Linux's merge). */
	if (chars && used(p)) {
		struct pipe_buf *b = slot(p, p->head - 1);
		if (!b->packet && !packet && b->off + b->len + chars <= PAGE_SIZE) {
			if (copy_from_user(b->page + b->off + b->len, ubuf, chars))
				return -EFAULT;
			b->len += chars;
			ret = chars;
		}
	}
	while ((size_t)ret < n) {
		if (!p->readers) {
			if (ret)
				break;
			goto epipe;
		}
		if (used(p) < p->nslots) {
			struct pipe_buf *b = slot(p, p->head);
			size_t len = MIN(n - ret, (size_t)PAGE_SIZE);
			if (!(b->page = page_get(p))) {
				ret = ret ? ret : -ENOMEM;
				break;
			}
			if (copy_from_user(b->page, ubuf + ret, len)) {
				page_put(p, b->page);
				b->page = NULL;
				ret = ret ? ret : -EFAULT;
				break;
			}
			*b = (struct pipe_buf){ b->page, 0, len, packet };
			p->head++;
			ret += len;
			continue;
		}
		if (f->flags & O_NONBLOCK) {
			ret = ret ? ret : -EAGAIN;
			break;
		}
		pipe_changed(p, WAKE_READERS);	/* a reader may empty it meanwhile */
		if (task_wait(can_write, p, 0) == -EINTR) {
			ret = ret ? ret : -ERESTARTSYS;
			break;
		}
	}
	if (ret > 0)
		pipe_changed(p, WAKE_READERS);
	return ret;
epipe: {
	siginfo_t info = { .si_signo = SIGPIPE, .si_code = SI_USER };
	info.si_pid = current->tgid;
	signal_send(current, SIGPIPE, &info);
	return -EPIPE;
}
}

/* Linux's pipe_poll. A FIFO reader opened before any writer came has
 * f->pos = the writers' count then (Linux's f_version): no POLLHUP until a
 * writer has come and gone. */
static unsigned pipe_poll(struct file *f)
{
	struct pipe *p = f->priv;
	unsigned mask = 0;

	if (file_readable(f)) {
		if (used(p))
			mask |= POLLIN | POLLRDNORM;
		if (!p->writers && (unsigned long)f->pos != p->w_counter)
			mask |= POLLHUP;
	}
	if (file_writable(f)) {
		if (used(p) < p->nslots)
			mask |= POLLOUT | POLLWRNORM;
		if (!p->readers)
			mask |= POLLERR;
	}
	return mask;
}

/* An end waits on its own side's queue, whatever events it asks for. */
static unsigned long pipe_poll_seq(struct file *f, unsigned events)
{
	struct pipe *p = f->priv;

	return (file_readable(f) ? p->in_seq : 0) + (file_writable(f) ? p->out_seq : 0);
}

static long pipe_ioctl(struct file *f, unsigned cmd, unsigned long arg)
{
	if (cmd != FIONREAD)
		return -ENOTTY;
	return put_user((int)bytes_queued(f->priv), (int *)arg) ? -EFAULT : 0;
}

static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;

	if (file_readable(f))
		p->readers--;
	if (file_writable(f))
		p->writers--;
	if (!p->readers && !p->writers)
		pipe_free(p);
	else
		pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
}

static const struct file_ops pipe_fops = {
	.read = pipe_read,
	.write = pipe_write,
	.ioctl = pipe_ioctl,
	.poll = pipe_poll,
	.poll_seq = pipe_poll_seq,
	.release = pipe_release,
};

/* ---- F_GETPIPE_SZ, F_SETPIPE_SZ ---- */

static long pipe_set_size(struct pipe *p, unsigned long size)
{
	unsigned long bytes = PAGE_SIZE;

	if (size > PIPE_MAX_SIZE)
		return -EINVAL;
	while (bytes < size)
		bytes <<= 1;
	unsigned nslots = bytes / PAGE_SIZE;
	if (nslots < used(p))
		return -EBUSY;
	struct pipe_buf *bufs = kzalloc(nslots * sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	unsigned n = 0;
	for (unsigned i = p->tail; i != p->head; i++)
		bufs[n++] = *slot(p, i);
	kfree(p->bufs);
	p->bufs = bufs;
	p->nslots = nslots;
	p->tail = 0;
	p->head = n;
	pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
	return bytes;
}

long pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg)
{
	if (f->ops != &pipe_fops)
		return -EBADF;
	struct pipe *p = f->priv;
	if (cmd == F_GETPIPE_SZ)
		return p->nslots * PAGE_SIZE;
	return pipe_set_size(p, arg);
}

/* ---- pipe, pipe2 ---- */

static long pipefs_dname(struct inode *n, char *buf, size_t size)
{
	int len = snprintf(buf, size, "pipe:[%lu]", (unsigned long)n->ino);

	return (size_t)len + 1 > size ? -ENAMETOOLONG : len + 1;
}

static const struct inode_ops pipefs_iops;

int pipefs_init(void)
{
	if (!(pipefs = sb_new("pipefs", "pipefs", PIPEFS_MAGIC)))
		return -ENOMEM;
	pipefs->dname = pipefs_dname;
	return 0;
}

/* One end: a file on the pipe's inode, counted as a reader or writer. */
static struct file *pipe_file(struct pipe *p, unsigned flags)
{
	struct file *f = file_new(&pipe_fops, p, flags);

	if (!f)
		return NULL;
	inode_get(p->inode);
	f->inode = p->inode;
	if (file_readable(f))
		p->readers++, p->r_counter++;
	else
		p->writers++, p->w_counter++;
	return f;
}

long sys_pipe2(long ufds, long flags)
{
	struct file *r = NULL, *w = NULL;
	struct inode *n;
	struct pipe *p;
	long err = -ENFILE;
	int fds[2];

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if (!(n = inode_new(pipefs, S_IFIFO | 0600, &pipefs_iops, &pipe_fops)))
		return -ENFILE;
	if (!(p = pipe_alloc(n))) {
		inode_put(n);
		return -ENFILE;
	}
	/* O_DIRECT makes the writer's packets: the read end does not show it */
	if (!(r = pipe_file(p, O_RDONLY | (flags & O_NONBLOCK))) ||
	    !(w = pipe_file(p, O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT)))))
		goto fail;
	if ((err = fds[0] = fd_install(current->fds, r, 0, flags & O_CLOEXEC)) < 0)
		goto fail;
	if ((err = fds[1] = fd_install(current->fds, w, 0, flags & O_CLOEXEC)) < 0) {
		fd_set_file(current->fds, fds[0], NULL);
		goto fail;
	}
	inode_put(n);
	if (copy_to_user((void *)ufds, fds, sizeof(fds))) {
		fd_close(current->fds, fds[0]);
		fd_close(current->fds, fds[1]);
		return -EFAULT;
	}
	return 0;
fail:
	if (!r)
		pipe_free(p);
	if (r)
		file_put(r);		/* the last end frees the pipe */
	if (w)
		file_put(w);
	inode_put(n);
	return err;
}

long sys_pipe(long ufds)
{
	return sys_pipe2(ufds, 0);
}

/* ---- FIFOs ---- */

struct partner {
	struct pipe *p;
	unsigned *counter, seen;
};

static bool partner_came(void *arg)
{
	struct partner *w = arg;

	return *w->counter != w->seen;
}

/* Sleep until the other side's open counter moves (Linux's wait_for_partner). */
static int wait_partner(struct pipe *p, unsigned *counter)
{
	struct partner w = { p, counter, *counter };

	return task_wait(partner_came, &w, 0) == -EINTR ? -ERESTARTSYS : 0;
}

static const struct file_ops fifo_unopened_fops;

int fifo_open(struct inode *n, struct file *f)
{
	bool is_pipe = n->sb == pipefs;
	struct pipe *p = n->pipe;
	int err = 0;

	if (!p && !(p = pipe_alloc(n)))
		return -ENOMEM;
	f->ops = &pipe_fops;
	f->priv = p;
	switch (f->flags & O_ACCMODE) {
	case O_RDONLY:
		p->r_counter++;
		p->readers++;
		pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
		if (!is_pipe && !p->writers) {
			if (f->flags & O_NONBLOCK)
				f->pos = p->w_counter;
			else if ((err = wait_partner(p, &p->w_counter)))
				p->readers--;
		}
		break;
	case O_WRONLY:
		if (!is_pipe && (f->flags & O_NONBLOCK) && !p->readers) {
			err = -ENXIO;
			break;
		}
		p->w_counter++;
		p->writers++;
		pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
		if (!is_pipe && !p->readers && (err = wait_partner(p, &p->r_counter)))
			p->writers--;
		break;
	case O_RDWR:
		p->readers++, p->writers++;
		p->r_counter++, p->w_counter++;
		pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		f->ops = &fifo_unopened_fops;	/* nothing counted to release */
		if (!p->readers && !p->writers)
			pipe_free(p);
		else
			pipe_changed(p, WAKE_READERS | WAKE_WRITERS);
	}
	return err;
}

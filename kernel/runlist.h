/* The run list: what the kernel runs after boot. */
#pragma once

/* Run /etc/runlist's programs in order; the first non-zero exit status,
 * or 0. */
int runlist_run(void);

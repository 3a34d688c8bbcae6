/* pmuos's extensions to the Linux perf_event ABI, from patches never merged
 * upstream (see the README). Shared by the kernel and userland. */
#ifndef _UAPI_PMUOS_PERF_EXT_H
#define _UAPI_PMUOS_PERF_EXT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Seed 000: drain a PMU's internal buffers into the rings before returning.
 * _IO('$', 8) = 0x2408; upstream's SET_BPF shares the number 8 but is
 * _IOW('$', 8, __u32) = 0x40042408: ioctls are matched on the full word.
 * Linux answers 0x2408 with ENOTTY. */
#define PERF_EVENT_IOC_FLUSH		_IO('$', 8)

/* Seed 001: persistent events. DETACH makes an event persistent and returns
 * its id; ATTACH makes it die with its last fd again. Numbered far from
 * upstream's sequence (0..11 in Linux 6.1). */
#define PERF_EVENT_IOC_DETACH		_IO('$', 0x80)
#define PERF_EVENT_IOC_ATTACH		_IO('$', 0x81)

/* attr.persistent: bit 41 of the flag word that starts at attr.disabled
 * (inside Linux 6.1's __reserved_1, so Linux refuses it with EINVAL). */
#define PMUOS_ATTR_FLAG_PERSISTENT_BIT	41
#define PMUOS_ATTR_FLAGS_OFFSET		40	/* offsetof(struct perf_event_attr, read_format) + 8 */

/* The persistent PMU's type is dynamic: read it from
 * /sys/bus/event_source/devices/persistent/type. */
#define PMUOS_PERSISTENT_PMU_NAME	"persistent"

#endif

/*
 * Kernel-internal macros that are not in the UAPI headers but that
 * bpftrace scripts use with "#include <linux/sched.h>" or <linux/fs.h>
 * (kernel headers). Values are those of Linux 6.x, written by hand from
 * the kernel's include/linux/sched.h and include/linux/fs.h. The generator
 * reads this file after the system headers.
 */

/* Task states (include/linux/sched.h). */
#define TASK_RUNNING		0x00000000
#define TASK_INTERRUPTIBLE	0x00000001
#define TASK_UNINTERRUPTIBLE	0x00000002
#define __TASK_STOPPED		0x00000004
#define __TASK_TRACED		0x00000008
#define EXIT_DEAD		0x00000010
#define EXIT_ZOMBIE		0x00000020
#define EXIT_TRACE		(EXIT_ZOMBIE | EXIT_DEAD)
#define TASK_PARKED		0x00000040
#define TASK_DEAD		0x00000080
#define TASK_WAKEKILL		0x00000100
#define TASK_WAKING		0x00000200
#define TASK_NOLOAD		0x00000400
#define TASK_NEW		0x00000800
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_STOPPED		(TASK_WAKEKILL | __TASK_STOPPED)
#define TASK_TRACED		__TASK_TRACED
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

/* Task flags (include/linux/sched.h). */
#define PF_IDLE			0x00000002
#define PF_EXITING		0x00000004
#define PF_VCPU			0x00000010
#define PF_WQ_WORKER		0x00000020
#define PF_FORKNOEXEC		0x00000040
#define PF_SUPERPRIV		0x00000100
#define PF_DUMPCORE		0x00000200
#define PF_SIGNALED		0x00000400
#define PF_MEMALLOC		0x00000800
#define PF_KSWAPD		0x00020000
#define PF_KTHREAD		0x00200000
#define PF_RANDOMIZE		0x00400000

/* Directory entry types (include/linux/fs.h). */
#define DT_UNKNOWN	0
#define DT_FIFO		1
#define DT_CHR		2
#define DT_DIR		4
#define DT_BLK		6
#define DT_REG		8
#define DT_LNK		10
#define DT_SOCK		12
#define DT_WHT		14

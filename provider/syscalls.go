package provider

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
)

// Syscall tracepoints without perf events.
//
// The kernel fires tracepoint:syscalls:sys_enter_NAME and sys_exit_NAME
// from the raw tracepoints sys_enter(struct pt_regs *regs, long id) and
// sys_exit(struct pt_regs *regs, long ret): it looks the syscall number up
// in a table of the syscalls that have a tracepoint, skips compat (32-bit)
// syscalls (TS_COMPAT in the thread's status on x86) and numbers out of
// range, and fills the record from the registers. With SyscallRawTp, the
// tracepoint provider serves the syscall tracepoints the same way: one
// dispatcher program per direction on the raw tracepoint tail-calls the
// program of each probe block through BPF_MAP_TYPE_PROG_ARRAY maps indexed
// by the syscall number, one map per layer (the first block on a syscall
// is in layer 0, the next in layer 1, ...), and each block reads its
// args.FIELD from pt_regs. Attaching is one raw tracepoint link per
// direction and detaching closes it, where perf events cost an RCU grace
// period each under the kernel's event_mutex when closed.

// attachSyscall attaches a program served through the syscall dispatchers:
// a block (p.Dispatch set) is placed in its prog array at the numbers of its
// syscalls and counts for its targets; a dispatcher (the last probes of the
// program, after every block is in place) is linked to its raw tracepoint
// and counts for none.
func attachSyscall(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	if p.Dispatcher {
		if len(p.Targets) != 1 {
			return 0, fmt.Errorf("attach %s: a syscall dispatcher has one raw tracepoint, got %q", p.Name, p.Targets)
		}
		t, err := TargetAs[FuncTarget](p, p.Targets[0])
		if err != nil {
			return 0, err
		}
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: t.Func, Program: prog})
		if err != nil {
			return 0, fmt.Errorf("attach %s: raw tracepoint %s: %w", p.Name, p.Targets[0], err)
		}
		a.Push(l)
		return 0, nil
	}
	m := a.Map(p.Dispatch)
	if m == nil {
		return 0, fmt.Errorf("attach %s: no prog array %s", p.Name, p.Dispatch)
	}
	for _, target := range p.Targets {
		t, err := TargetAs[TracepointTarget](p, target)
		if err != nil {
			return 0, err
		}
		_, nr, ok := SyscallTarget(t.Category, t.Event)
		if !ok {
			continue // no x86-64 syscall: no events
		}
		if err := m.Put(uint32(nr), prog); err != nil {
			return 0, fmt.Errorf("attach %s: place program for %s: %w", p.Name, t, err)
		}
	}
	return len(p.Targets), nil
}

// syscallABIRegs are the x86-64 registers of the six syscall arguments
// (pt_regs member names), in the order the tracepoint's format lists them
// after __syscall_nr.
var syscallABIRegs = []string{"di", "si", "dx", "r10", "r8", "r9"}

// SyscallArgReg returns the pt_regs member holding the syscall argument
// stored at offset off of a sys_enter_* record (16, 24, ... for the first,
// second, ... argument).
func SyscallArgReg(off int) (string, bool) {
	i := (off - 16) / 8
	if off < 16 || off%8 != 0 || i >= len(syscallABIRegs) {
		return "", false
	}
	return syscallABIRegs[i], true
}

// Layout of the syscall records (the format files of every syscall
// tracepoint): __syscall_nr at 8, then the arguments (sys_enter) or ret
// (sys_exit) from 16.
const (
	SyscallNrOffset  = 8
	SyscallRetOffset = 16
)

// Directions of syscall tracepoints: the raw tracepoint that serves them.
const (
	SysEnter = "sys_enter"
	SysExit  = "sys_exit"
)

// SyscallTarget returns the direction (SysEnter or SysExit) and syscall
// number of the tracepoint CATEGORY:EVENT syscalls:sys_enter_NAME, with ok false
// for any other tracepoint and for a syscall tracepoint that has no
// x86-64 syscall number (a compat-only syscall, which native tasks never
// make: it gets no events, as with ftrace).
func SyscallTarget(category, ev string) (dir string, nr int, ok bool) {
	if category != "syscalls" {
		return "", 0, false
	}
	var name string
	switch {
	case strings.HasPrefix(ev, SysEnter+"_"):
		dir, name = SysEnter, ev[len(SysEnter)+1:]
	case strings.HasPrefix(ev, SysExit+"_"):
		dir, name = SysExit, ev[len(SysExit)+1:]
	default:
		return "", 0, false
	}
	nr, ok = syscallNumbers()[name]
	return dir, nr, ok
}

// SyscallDirection returns the direction shared by all the points, or ""
// when one is not a syscall tracepoint or they differ. Points whose
// syscall has no number count with their direction (they get no events).
func SyscallDirection(pts []*Point) string {
	dir := ""
	for _, p := range pts {
		var d string
		switch {
		case p.Category != "syscalls":
			return ""
		case strings.HasPrefix(p.Event, SysEnter+"_"):
			d = SysEnter
		case strings.HasPrefix(p.Event, SysExit+"_"):
			d = SysExit
		default:
			return ""
		}
		if dir != "" && d != dir {
			return ""
		}
		dir = d
	}
	return dir
}

// SyscallsSupported reports whether this build knows the syscall numbers
// of the machine (x86-64).
func SyscallsSupported() bool { return runtime.GOARCH == "amd64" }

// MaxSyscallNr bounds the syscall numbers of the table: the size of the
// dispatch maps.
func MaxSyscallNr() int {
	m := 0
	for _, nr := range syscallNumbers() {
		m = max(m, nr)
	}
	return m
}

// SyscallNames returns the NAME of every syscall with a number, indexed by
// its number ("" for numbers without one).
func SyscallNames() []string {
	names := make([]string, MaxSyscallNr()+1)
	for name, nr := range syscallNumbers() {
		names[nr] = name
	}
	return names
}

// syscallNumbers maps the name of each x86-64 syscall's entry point,
// without its sys_ prefix (the NAME of its tracepoints sys_enter_NAME and
// sys_exit_NAME), to its number: the kernel's 64-bit syscall table
// (arch/x86/entry/syscalls/syscall_64.tbl), which is how ftrace maps
// numbers to tracepoints (by the entry point's symbol name).
var syscallNumbers = sync.OnceValue(func() map[string]int {
	tab := map[string]int{}
	for _, e := range strings.Split(syscallTable, ",") {
		nr, name, _ := strings.Cut(strings.TrimSpace(e), " ")
		n, err := strconv.Atoi(nr)
		if err != nil {
			panic("bad syscall table entry " + e)
		}
		tab[name] = n
	}
	return tab
})

// syscallTable is "NR NAME" for every x86-64 syscall with an entry point
// sys_NAME, up to Linux 6.18.
const syscallTable = `
	0 read, 1 write, 2 open, 3 close, 4 newstat, 5 newfstat, 6 newlstat, 7 poll, 8 lseek,
	9 mmap, 10 mprotect, 11 munmap, 12 brk, 13 rt_sigaction, 14 rt_sigprocmask,
	15 rt_sigreturn, 16 ioctl, 17 pread64, 18 pwrite64, 19 readv, 20 writev, 21 access,
	22 pipe, 23 select, 24 sched_yield, 25 mremap, 26 msync, 27 mincore, 28 madvise,
	29 shmget, 30 shmat, 31 shmctl, 32 dup, 33 dup2, 34 pause, 35 nanosleep, 36 getitimer,
	37 alarm, 38 setitimer, 39 getpid, 40 sendfile64, 41 socket, 42 connect, 43 accept,
	44 sendto, 45 recvfrom, 46 sendmsg, 47 recvmsg, 48 shutdown, 49 bind, 50 listen,
	51 getsockname, 52 getpeername, 53 socketpair, 54 setsockopt, 55 getsockopt, 56 clone,
	57 fork, 58 vfork, 59 execve, 60 exit, 61 wait4, 62 kill, 63 newuname, 64 semget,
	65 semop, 66 semctl, 67 shmdt, 68 msgget, 69 msgsnd, 70 msgrcv, 71 msgctl, 72 fcntl,
	73 flock, 74 fsync, 75 fdatasync, 76 truncate, 77 ftruncate, 78 getdents, 79 getcwd,
	80 chdir, 81 fchdir, 82 rename, 83 mkdir, 84 rmdir, 85 creat, 86 link, 87 unlink,
	88 symlink, 89 readlink, 90 chmod, 91 fchmod, 92 chown, 93 fchown, 94 lchown, 95 umask,
	96 gettimeofday, 97 getrlimit, 98 getrusage, 99 sysinfo, 100 times, 101 ptrace,
	102 getuid, 103 syslog, 104 getgid, 105 setuid, 106 setgid, 107 geteuid, 108 getegid,
	109 setpgid, 110 getppid, 111 getpgrp, 112 setsid, 113 setreuid, 114 setregid,
	115 getgroups, 116 setgroups, 117 setresuid, 118 getresuid, 119 setresgid, 120 getresgid,
	121 getpgid, 122 setfsuid, 123 setfsgid, 124 getsid, 125 capget, 126 capset,
	127 rt_sigpending, 128 rt_sigtimedwait, 129 rt_sigqueueinfo, 130 rt_sigsuspend,
	131 sigaltstack, 132 utime, 133 mknod, 135 personality, 136 ustat, 137 statfs,
	138 fstatfs, 139 sysfs, 140 getpriority, 141 setpriority, 142 sched_setparam,
	143 sched_getparam, 144 sched_setscheduler, 145 sched_getscheduler,
	146 sched_get_priority_max, 147 sched_get_priority_min, 148 sched_rr_get_interval,
	149 mlock, 150 munlock, 151 mlockall, 152 munlockall, 153 vhangup, 154 modify_ldt,
	155 pivot_root, 157 prctl, 158 arch_prctl, 159 adjtimex, 160 setrlimit, 161 chroot,
	162 sync, 163 acct, 164 settimeofday, 165 mount, 166 umount, 167 swapon, 168 swapoff,
	169 reboot, 170 sethostname, 171 setdomainname, 172 iopl, 173 ioperm, 175 init_module,
	176 delete_module, 179 quotactl, 186 gettid, 187 readahead, 188 setxattr, 189 lsetxattr,
	190 fsetxattr, 191 getxattr, 192 lgetxattr, 193 fgetxattr, 194 listxattr, 195 llistxattr,
	196 flistxattr, 197 removexattr, 198 lremovexattr, 199 fremovexattr, 200 tkill, 201 time,
	202 futex, 203 sched_setaffinity, 204 sched_getaffinity, 206 io_setup, 207 io_destroy,
	208 io_getevents, 209 io_submit, 210 io_cancel, 212 lookup_dcookie, 213 epoll_create,
	216 remap_file_pages, 217 getdents64, 218 set_tid_address, 219 restart_syscall,
	220 semtimedop, 221 fadvise64, 222 timer_create, 223 timer_settime, 224 timer_gettime,
	225 timer_getoverrun, 226 timer_delete, 227 clock_settime, 228 clock_gettime,
	229 clock_getres, 230 clock_nanosleep, 231 exit_group, 232 epoll_wait, 233 epoll_ctl,
	234 tgkill, 235 utimes, 237 mbind, 238 set_mempolicy, 239 get_mempolicy, 240 mq_open,
	241 mq_unlink, 242 mq_timedsend, 243 mq_timedreceive, 244 mq_notify, 245 mq_getsetattr,
	246 kexec_load, 247 waitid, 248 add_key, 249 request_key, 250 keyctl, 251 ioprio_set,
	252 ioprio_get, 253 inotify_init, 254 inotify_add_watch, 255 inotify_rm_watch,
	256 migrate_pages, 257 openat, 258 mkdirat, 259 mknodat, 260 fchownat, 261 futimesat,
	262 newfstatat, 263 unlinkat, 264 renameat, 265 linkat, 266 symlinkat, 267 readlinkat,
	268 fchmodat, 269 faccessat, 270 pselect6, 271 ppoll, 272 unshare, 273 set_robust_list,
	274 get_robust_list, 275 splice, 276 tee, 277 sync_file_range, 278 vmsplice,
	279 move_pages, 280 utimensat, 281 epoll_pwait, 282 signalfd, 283 timerfd_create,
	284 eventfd, 285 fallocate, 286 timerfd_settime, 287 timerfd_gettime, 288 accept4,
	289 signalfd4, 290 eventfd2, 291 epoll_create1, 292 dup3, 293 pipe2, 294 inotify_init1,
	295 preadv, 296 pwritev, 297 rt_tgsigqueueinfo, 298 perf_event_open, 299 recvmmsg,
	300 fanotify_init, 301 fanotify_mark, 302 prlimit64, 303 name_to_handle_at,
	304 open_by_handle_at, 305 clock_adjtime, 306 syncfs, 307 sendmmsg, 308 setns,
	309 getcpu, 310 process_vm_readv, 311 process_vm_writev, 312 kcmp, 313 finit_module,
	314 sched_setattr, 315 sched_getattr, 316 renameat2, 317 seccomp, 318 getrandom,
	319 memfd_create, 320 kexec_file_load, 321 bpf, 322 execveat, 323 userfaultfd,
	324 membarrier, 325 mlock2, 326 copy_file_range, 327 preadv2, 328 pwritev2,
	329 pkey_mprotect, 330 pkey_alloc, 331 pkey_free, 332 statx, 333 io_pgetevents, 334 rseq,
	335 uretprobe, 336 uprobe, 424 pidfd_send_signal, 425 io_uring_setup, 426 io_uring_enter,
	427 io_uring_register, 428 open_tree, 429 move_mount, 430 fsopen, 431 fsconfig,
	432 fsmount, 433 fspick, 434 pidfd_open, 435 clone3, 436 close_range, 437 openat2,
	438 pidfd_getfd, 439 faccessat2, 440 process_madvise, 441 epoll_pwait2,
	442 mount_setattr, 443 quotactl_fd, 444 landlock_create_ruleset, 445 landlock_add_rule,
	446 landlock_restrict_self, 447 memfd_secret, 448 process_mrelease, 449 futex_waitv,
	450 set_mempolicy_home_node, 451 cachestat, 452 fchmodat2, 453 map_shadow_stack,
	454 futex_wake, 455 futex_wait, 456 futex_requeue, 457 statmount, 458 listmount,
	459 lsm_get_self_attr, 460 lsm_set_self_attr, 461 lsm_list_modules, 462 mseal,
	463 setxattrat, 464 getxattrat, 465 listxattrat, 466 removexattrat, 467 open_tree_attr,
	468 file_getattr, 469 file_setattr`

package output

import (
	"github.com/gotrace/gotrace/internal/sysnum"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// strerror renders an errno the way strerror(3) does: "No such file or
// directory"; unknown numbers as "Unknown error N".
func strerror(n int64) string {
	if n < 0 {
		n = -n
	}
	msg := syscall.Errno(n).Error()
	if msg == "" || len(msg) > 6 && msg[:6] == "errno " {
		return "Unknown error " + strconv.FormatInt(n, 10)
	}
	r, size := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[size:]
}

// syscallName renders an x86-64 syscall number as its name, or the number.
func syscallName(n int64) string {
	if name, ok := sysnum.Name(n); ok {
		return name
	}
	return strconv.FormatInt(n, 10)
}

// Address families of ntop() values.
const (
	afInet  = 2
	afInet6 = 10
)

// inetString renders an ntop() value: an IPv4 or IPv6 address in its
// usual text form.
func inetString(family uint64, addr []byte) string {
	switch family {
	case afInet:
		return netip.AddrFrom4([4]byte(addr[:4])).String()
	case afInet6:
		return netip.AddrFrom16([16]byte(addr[:16])).String()
	}
	return ""
}

// username renders a uid as the user's name from /etc/passwd, or the
// number when there is none. (os/user would link cgo and make the binary
// dynamic, which costs every start.)
func username(uid uint64) string {
	id := strconv.FormatUint(uid, 10)
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return id
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 2 && f[2] == id {
			return f[0]
		}
	}
	return id
}

// signalNames are strsignal(3)'s descriptions of the Linux signals by
// number, as bpftrace's signal_name() prints them.
var signalNames = [...]string{
	0: "Unknown signal 0", 1: "Hangup", 2: "Interrupt", 3: "Quit", 4: "Illegal instruction",
	5: "Trace/breakpoint trap", 6: "Aborted", 7: "Bus error", 8: "Floating point exception",
	9: "Killed", 10: "User defined signal 1", 11: "Segmentation fault",
	12: "User defined signal 2", 13: "Broken pipe", 14: "Alarm clock", 15: "Terminated",
	16: "Stack fault", 17: "Child exited", 18: "Continued", 19: "Stopped (signal)",
	20: "Stopped", 21: "Stopped (tty input)", 22: "Stopped (tty output)",
	23: "Urgent I/O condition", 24: "CPU time limit exceeded", 25: "File size limit exceeded",
	26: "Virtual timer expired", 27: "Profiling timer expired", 28: "Window changed",
	29: "I/O possible", 30: "Power failure", 31: "Bad system call",
	32: "Unknown signal 32", 33: "Unknown signal 33",
}

// signalName renders a signal number as strsignal(3) describes it:
// real-time signals 34-64 as "Real-time signal n" (counted from SIGRTMIN),
// numbers that name no signal as "N/A".
func signalName(n int64) string {
	switch {
	case n >= 0 && n < int64(len(signalNames)):
		return signalNames[n]
	case n >= 34 && n <= 64:
		return "Real-time signal " + strconv.FormatInt(n-34, 10)
	}
	return "N/A"
}

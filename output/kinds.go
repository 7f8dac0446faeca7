package output

import (
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
	if n >= 0 && n < int64(len(syscallNamesAMD64)) && syscallNamesAMD64[n] != "" {
		return syscallNamesAMD64[n]
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

// signalNames are the Linux signal names by number.
var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD",
	18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU",
	23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF",
	28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
}

// signalName renders a signal number as its name, real-time signals as
// SIGRTMIN+n, and others as the number.
func signalName(n int64) string {
	switch {
	case n > 0 && n < int64(len(signalNames)):
		return signalNames[n]
	case n >= 34 && n <= 64:
		return "SIGRTMIN+" + strconv.FormatInt(n-34, 10)
	}
	return strconv.FormatInt(n, 10)
}

package output

import (
	"net/netip"
	"strconv"
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

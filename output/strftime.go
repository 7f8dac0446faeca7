package output

import (
	"strconv"
	"strings"
	"time"
)

// DefaultTimeFormat is the format of time() without arguments.
const DefaultTimeFormat = "%H:%M:%S\n"

// FormatTime formats t like C's strftime in the C locale, as time(fmt)
// does; t's Location is the time zone (use time.Local for bpftrace's
// behaviour). Supported conversions: %a %A %b %B %c %C %d %D %e %F %g %G %h
// %H %I %j %k %l %m %M %n %p %P %r %R %s %S %t %T %u %U %V %w %W %x %X %y %Y
// %z %Z %%, with glibc's flags (_ - 0 ^ #), a field width, and the E and O
// modifiers (no effect in the C locale). An unknown conversion is copied as
// is, as glibc does.
func FormatTime(format string, t time.Time) string {
	var sb strings.Builder
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			sb.WriteByte(c)
			i++
			continue
		}
		start := i
		i++
		for i < len(format) && strings.IndexByte("_-0^#", format[i]) >= 0 {
			i++
		}
		var upper, swap bool
		var padFlag byte
		for _, f := range []byte(format[start+1 : i]) {
			switch f {
			case '^':
				upper = true
			case '#':
				swap = true
			default:
				padFlag = f
			}
		}
		width := -1
		j := i
		for i < len(format) && isDigit(format[i]) {
			i++
		}
		if i > j {
			width, _ = strconv.Atoi(format[j:i])
		}
		for i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i >= len(format) {
			sb.WriteString(format[start:])
			break
		}
		conv := format[i]
		i++
		out, ok := strftimeConv(conv, t, padFlag, width, upper, swap)
		if !ok {
			sb.WriteString(format[start:i])
			continue
		}
		sb.WriteString(out)
	}
	return sb.String()
}

var (
	shortDays   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	shortMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// strftimeConv renders one conversion.
func strftimeConv(conv byte, t time.Time, padFlag byte, width int, upper, swap bool) (string, bool) {
	num := func(v int, digits int, padChar byte) string {
		if width >= 0 {
			digits = width
		}
		switch padFlag {
		case '-':
			digits = 0
		case '_':
			padChar = ' '
		case '0':
			padChar = '0'
		}
		neg := v < 0
		if neg {
			v = -v
		}
		s := strconv.Itoa(v)
		if neg {
			digits-- // the sign takes one column
		}
		if len(s) < digits {
			s = strings.Repeat(string(padChar), digits-len(s)) + s
		}
		if neg {
			s = "-" + s
		}
		return s
	}
	str := func(s string, caseSwap func(string) string) string {
		if upper {
			s = strings.ToUpper(s)
		} else if swap && caseSwap != nil {
			s = caseSwap(s)
		}
		if width > len(s) {
			p := byte(' ')
			if padFlag == '0' {
				p = '0'
			}
			s = strings.Repeat(string(p), width-len(s)) + s
		}
		return s
	}
	sub := func(f string) string {
		return str(FormatTime(f, t), nil)
	}
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	yday := t.YearDay() - 1
	wday := int(t.Weekday())
	isoYear, isoWeek := t.ISOWeek()
	switch conv {
	case 'a':
		return str(shortDays[wday], strings.ToUpper), true
	case 'A':
		return str(t.Weekday().String(), strings.ToUpper), true
	case 'b', 'h':
		return str(shortMonths[t.Month()-1], strings.ToUpper), true
	case 'B':
		return str(t.Month().String(), strings.ToUpper), true
	case 'c':
		return sub("%a %b %e %H:%M:%S %Y"), true
	case 'C':
		return num(floorDiv(t.Year(), 100), 2, '0'), true
	case 'd':
		return num(t.Day(), 2, '0'), true
	case 'D', 'x':
		return sub("%m/%d/%y"), true
	case 'e':
		return num(t.Day(), 2, ' '), true
	case 'F':
		return sub("%Y-%m-%d"), true
	case 'g':
		return num(((isoYear%100)+100)%100, 2, '0'), true
	case 'G':
		return num(isoYear, 1, '0'), true
	case 'H':
		return num(t.Hour(), 2, '0'), true
	case 'I':
		return num(hour12, 2, '0'), true
	case 'j':
		return num(yday+1, 3, '0'), true
	case 'k':
		return num(t.Hour(), 2, ' '), true
	case 'l':
		return num(hour12, 2, ' '), true
	case 'm':
		return num(int(t.Month()), 2, '0'), true
	case 'M':
		return num(t.Minute(), 2, '0'), true
	case 'n':
		return "\n", true
	case 'p', 'P':
		s := "AM"
		if t.Hour() >= 12 {
			s = "PM"
		}
		if conv == 'P' {
			return str(strings.ToLower(s), nil), true
		}
		return str(s, strings.ToLower), true
	case 'r':
		return sub("%I:%M:%S %p"), true
	case 'R':
		return sub("%H:%M"), true
	case 's':
		return num(int(t.Unix()), 1, '0'), true
	case 'S':
		return num(t.Second(), 2, '0'), true
	case 't':
		return "\t", true
	case 'T', 'X':
		return sub("%H:%M:%S"), true
	case 'u':
		return num((wday+6)%7+1, 1, '0'), true
	case 'U':
		return num((yday+7-wday)/7, 2, '0'), true
	case 'V':
		return num(isoWeek, 2, '0'), true
	case 'w':
		return num(wday, 1, '0'), true
	case 'W':
		return num((yday+7-(wday+6)%7)/7, 2, '0'), true
	case 'y':
		return num(((t.Year()%100)+100)%100, 2, '0'), true
	case 'Y':
		return num(t.Year(), 1, '0'), true
	case 'z':
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		return str(sign+pad2(off/3600)+pad2(off/60%60), nil), true
	case 'Z':
		name, _ := t.Zone()
		return str(name, strings.ToLower), true
	case '%':
		return "%", true
	}
	return "", false
}

func pad2(v int) string {
	if v < 10 {
		return "0" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FormatTimestamp formats t as bpftrace formats strftime() values: first
// "%f" becomes the microseconds (6 digits), "%k" the nanoseconds (9 digits)
// and "%l" the milliseconds (3 digits) within the second — anywhere in the
// format, as bpftrace's plain text substitution does — then FormatTime
// applies. A zero Unix time or an empty result gives "(?)".
func FormatTimestamp(format string, t time.Time) string {
	if t.Unix() == 0 {
		return "(?)"
	}
	ns := t.Nanosecond()
	format = strings.ReplaceAll(format, "%f", zeroPad(ns/1000, 6))
	format = strings.ReplaceAll(format, "%k", zeroPad(ns, 9))
	format = strings.ReplaceAll(format, "%l", zeroPad(ns/1000000, 3))
	s := FormatTime(format, t)
	if s == "" {
		return "(?)"
	}
	return s
}

func zeroPad(v, n int) string {
	s := strconv.Itoa(v)
	if len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	return s
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

package output

import (
	"strings"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// Message renders errorf() (isError) or warnf() output for stderr as
// bpftrace 0.26 does: the location of the call, the severity and the
// message, "stdin:1:9-62: ERROR: msg". The call's source line is not
// shown: it is only the errorf or warnf call. A call copied out of a macro
// is followed by one "expanded from" note per macro use in expanded
// (innermost first), each with its source line from src and '~' under the
// use. Without a position (a program built without one) the message is
// "ERROR: msg".
func Message(isError bool, msg string, call srcpos.Span, expanded []srcpos.Span, src string) string {
	sev := "WARNING"
	if isError {
		sev = "ERROR"
	}
	if !call.Start.IsValid() {
		return sev + ": " + msg + "\n"
	}
	var b strings.Builder
	b.WriteString(call.Location() + ": " + sev + ": " + msg + "\n")
	for _, site := range expanded {
		b.WriteString(site.Location() + ": " + sev + ": expanded from\n")
		for _, l := range site.Context(src) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

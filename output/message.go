package output

import "github.com/gotrace/gotrace/lang/ast"

// Message renders errorf() (isError) or warnf() output for stderr as
// bpftrace 0.26 does: the location of the call, the severity and the
// message, "stdin:1:9-62: ERROR: msg". Without a position (a program
// built without one) it is "ERROR: msg". The call's source line is not
// shown: it is only the errorf or warnf call.
func Message(isError bool, msg string, call ast.Span) string {
	sev := "WARNING"
	if isError {
		sev = "ERROR"
	}
	if !call.Start.IsValid() {
		return sev + ": " + msg + "\n"
	}
	return call.Location() + ": " + sev + ": " + msg + "\n"
}

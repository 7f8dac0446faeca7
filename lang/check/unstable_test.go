package check_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestUnstableTseries checks bpftrace 0.26's unstable_tseries option: by
// default (warn) one warning without position however many tseries() the
// script has, none when enabled.
func TestUnstableTseries(t *testing.T) {
	const warning = "WARNING: Script is using an unstable feature: tseries. To prevent this warning you must explicitly enable it in the config e.g. unstable_tseries=enable\n"
	for _, tt := range []struct{ config, want string }{
		{"", warning},
		{"config = { unstable_tseries = warn } ", warning},
		{"config = { unstable_tseries = enable } ", ""},
	} {
		src := tt.config + "interval:s:1 { @a = tseries(1, 1s, 5); } interval:s:2 { @b = tseries(2, 1s, 5); }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := check.Check(file, nil, check.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, syntax.Render(err, src))
		}
		if got := syntax.RenderWarnings(prog.Warnings, src); got != tt.want {
			t.Errorf("%s: warnings %q, want %q", src, got, tt.want)
		}
	}
}

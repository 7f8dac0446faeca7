package check_test

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestConfigEnvOverridesBlock: BPFTRACE_* environment variables override
// the script's config block, as bpftrace 0.26 documents, and the block
// accepts the option's BPFTRACE_ and upper-case spellings.
func TestConfigEnvOverridesBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		env   map[string]string
		want  int
	}{
		{"max_strlen = 32", nil, 32},
		{"MAX_STRLEN = 32", nil, 32},
		{"BPFTRACE_MAX_STRLEN = 32", nil, 32},
		{"max_strlen = 32", map[string]string{"max_strlen": "16"}, 16},
		{"BPFTRACE_MAX_STRLEN = 32", map[string]string{"max_strlen": "16"}, 16},
	} {
		src := "config = { " + tc.block + " }\nBEGIN { exit(); }\n"
		file, err := syntax.Parse("cfg.bt", src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{ConfigEnv: tc.env})
		if err != nil {
			t.Errorf("%s with %v: %v", tc.block, tc.env, err)
			continue
		}
		if prog.MaxStrlen != tc.want {
			t.Errorf("%s with %v: max_strlen %d, want %d", tc.block, tc.env, prog.MaxStrlen, tc.want)
		}
	}
}

// TestConfigLogSize: log_size, from the config block or BPFTRACE_LOG_SIZE,
// reaches the program's config (the runtime sizes the verifier log by it).
func TestConfigLogSize(t *testing.T) {
	for _, tc := range []struct {
		block string
		env   map[string]string
		want  uint64
	}{
		{"max_strlen = 32", nil, 0},
		{"log_size = 4096", nil, 4096},
		{"log_size = 4096", map[string]string{"log_size": "2"}, 2},
	} {
		file, err := syntax.Parse("cfg.bt", "config = { "+tc.block+" }\nBEGIN { exit(); }\n")
		if err != nil {
			t.Fatal(err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{ConfigEnv: tc.env})
		if err != nil {
			t.Errorf("%s with %v: %v", tc.block, tc.env, err)
			continue
		}
		if prog.Config.LogSize != tc.want {
			t.Errorf("%s with %v: log_size %d, want %d", tc.block, tc.env, prog.Config.LogSize, tc.want)
		}
	}
}

// TestGetoptValues: getopt() reads named parameters as bpftrace does.
func TestGetoptValues(t *testing.T) {
	src := `BEGIN { print((getopt("a", 1), getopt("b", true), getopt("c"), getopt("d", "x", "the d"))); exit(); }`
	file, err := syntax.Parse("opt.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), check.Options{NamedParams: map[string]string{
		"a": "0xffffffffffffffff", "b": "Off", "c": "YES"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "", "b": "", "c": "", "d": "the d"}; len(prog.Getopts) != len(want) || prog.Getopts["d"] != "the d" {
		t.Errorf("Getopts = %v, want %v", prog.Getopts, want)
	}
	for _, bad := range []struct{ name, val, msg string }{
		{"a", "False", "program command line option --a invalid integer (value: False)"},
		{"b", "maybe", "program command line option --b expects a boolean (e.g. 'true') (value: maybe)"},
	} {
		_, err := check.Check(file, testEnv(t), check.Options{NamedParams: map[string]string{bad.name: bad.val}})
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("--%s=%s: error %v, want %q", bad.name, bad.val, err, bad.msg)
		}
	}
}

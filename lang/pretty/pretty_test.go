package pretty_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/pretty"
)

// The cases in testdata: NAME.bt formats to NAME.want. The wants of the
// cases not named diff_* are bpftrace 0.27.1's --fmt output; the diff_*
// cases are where gotrace deliberately differs (docs/fmt.md).
func cases(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.bt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	return files
}

func TestGolden(t *testing.T) {
	for _, in := range cases(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(in, ".bt") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			got, err := pretty.Source(in, string(src))
			if err != nil {
				t.Fatal(lang.Render(err, string(src)))
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestStable formats every script of the repository twice: the first
// result parses, is a fixed point, and keeps every comment's words.
func TestStable(t *testing.T) {
	files := cases(t)
	ex, _ := filepath.Glob("../../examples/*.bt")
	files = append(files, ex...)
	words := regexp.MustCompile(`(//|/\*)\s*([^\n*]*)`)
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			once, err := pretty.Source(in, string(src))
			if err != nil {
				t.Fatal(lang.Render(err, string(src)))
			}
			twice, err := pretty.Source(in, once)
			if err != nil {
				t.Fatalf("the formatted script does not parse:\n%s\n%s", lang.Render(err, once), once)
			}
			if twice != once {
				t.Errorf("formatting again changes it:\n%s\nthen:\n%s", once, twice)
			}
			for _, m := range words.FindAllStringSubmatch(string(src), -1) {
				if w := strings.TrimSpace(m[2]); w != "" && !strings.Contains(once, w) {
					t.Errorf("comment %q lost:\n%s", w, once)
				}
			}
		})
	}
}

// TestMatchesBpftrace runs bpftrace 0.27 (the bpftrace27 wrapper of
// /work/shared/bpftrace-0.27/setup.sh), when installed, on the cases whose
// wants are its output, so that a want that no longer matches it shows.
func TestMatchesBpftrace(t *testing.T) {
	bt, err := exec.LookPath("bpftrace27")
	if err != nil {
		t.Skip("bpftrace27 is not installed")
	}
	for _, in := range cases(t) {
		if strings.HasPrefix(filepath.Base(in), "diff_") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			out, err := exec.Command(bt, "--fmt", in).Output()
			if err != nil {
				t.Fatalf("bpftrace27 --fmt: %v", err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(in, ".bt") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(want) {
				t.Errorf("bpftrace27 prints:\n%s\nthe want is:\n%s", out, want)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	src := "BEGIN { $x = ; }"
	out, err := pretty.Source("x.bt", src)
	if err == nil || out != src {
		t.Fatalf("got %q, %v; want the source back and an error", out, err)
	}
}

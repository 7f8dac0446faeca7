package pretty_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/fuzzwatch"
	"github.com/gotrace/gotrace/lang/pretty"
	"github.com/gotrace/gotrace/lang/syntax"
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
				t.Fatal(syntax.Render(err, string(src)))
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
	for _, g := range []string{"../../examples/*.bt", "../../examples/*/*.bt", "../../e2e/testdata/*/*.bt", "../../lang/check/testdata/check/*.bt", "../../lang/check/testdata/check/*/*.bt"} {
		more, _ := filepath.Glob(g)
		files = append(files, more...)
	}
	words := regexp.MustCompile(`(//|/\*)\s*([^\n*]*)`)
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			once, err := pretty.Source(in, string(src))
			if err != nil {
				if strings.Contains(in, "testdata/check") {
					t.Skip("a script with errors") // the checker's tests
				}
				t.Fatal(syntax.Render(err, string(src)))
			}
			twice, err := pretty.Source(in, once)
			if err != nil {
				t.Fatalf("the formatted script does not parse:\n%s\n%s", syntax.Render(err, once), once)
			}
			if code(t, twice) != code(t, once) {
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
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			// The source goes as -e, not as a path: bpftrace27 runs in a
			// chroot that sees only some of the host's directories, and a
			// clone may live elsewhere (CI's did).
			var stderr strings.Builder
			cmd := exec.Command(bt, "--fmt", "-e", string(src))
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bpftrace27 --fmt: %v\n%s", err, stderr.String())
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

// FuzzFormat: formatting any script that parses gives a script that parses
// and that formatting leaves alone.
func FuzzFormat(f *testing.F) {
	for _, s := range fuzzwatch.Scripts(f) {
		f.Add(s)
	}
	files, _ := filepath.Glob("testdata/*.bt")
	for _, in := range files {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		fuzzwatch.Run(t, fuzzwatch.Default, len(src), func() {
			once, err := pretty.Source("f.bt", src)
			if err != nil {
				return
			}
			twice, err := pretty.Source("f.bt", once)
			if err != nil {
				t.Fatalf("the formatted script does not parse: %v\n%s\nfrom:\n%s", err, once, src)
			}
			if code(t, twice) != code(t, once) {
				t.Errorf("formatting again changes it:\n%s\nthen:\n%s", once, twice)
			}
		})
	})
}

// code is a script without its comments and blank lines. Formatting a
// formatted script changes nothing else: a comment in an odd place (in a
// predicate, before a '{') moves again, in bpftrace as in gotrace, since
// the first formatting put it where a different node claims it.
func code(t *testing.T, src string) string {
	gaps, err := syntax.Trivia("f.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(src)
	for _, g := range gaps {
		for i := g.Start.Offset; i < g.End.Offset; i++ {
			switch {
			case strings.HasPrefix(src[i:], "//"):
				for i < g.End.Offset && src[i] != '\n' {
					b[i] = ' '
					i++
				}
			case strings.HasPrefix(src[i:], "/*"):
				end := strings.Index(src[i+2:], "*/") + i + 4
				for ; i < end; i++ {
					if b[i] != '\n' {
						b[i] = ' '
					}
				}
				i--
			}
		}
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

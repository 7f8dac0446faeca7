package docs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/testbin"
)

// gotrace returns the path of the built binary.
func gotrace(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Gotrace()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestManPageUpToDate: gotrace.1 is what go-md2man makes of gotrace.1.md.
func TestManPageUpToDate(t *testing.T) {
	md2man, err := exec.LookPath("go-md2man")
	if err != nil {
		t.Skip("go-md2man is not installed (apt-get install go-md2man)")
	}
	out := filepath.Join(t.TempDir(), "gotrace.1")
	if b, err := exec.Command(md2man, "-in", "gotrace.1.md", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("go-md2man: %v\n%s", err, b)
	}
	want, _ := os.ReadFile(out)
	got, err := os.ReadFile("gotrace.1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs/gotrace.1 is stale: run go generate ./docs")
	}
}

// TestManPageRenders: `man ./docs/gotrace.1` renders the page.
func TestManPageRenders(t *testing.T) {
	man, err := exec.LookPath("man")
	if err != nil {
		t.Skip("man is not installed (apt-get install man-db)")
	}
	cmd := exec.Command(man, "./gotrace.1")
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("man: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"NAME", "gotrace - a bpftrace-compatible tracer", "OPTIONS", "--fmt", "gotrace lsp"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the rendered page lacks %q:\n%s", want, out)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("man warns: %s", stderr.String())
	}
}

// TestManPageOptions: the manual describes every option `gotrace --help`
// lists.
func TestManPageOptions(t *testing.T) {
	help, err := exec.Command(gotrace(t), "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("gotrace.1.md")
	if err != nil {
		t.Fatal(err)
	}
	opt := regexp.MustCompile(`(?m)^\s{4}(-[a-zA-Z]|--[a-z-]+)`)
	for _, m := range opt.FindAllStringSubmatch(string(help), -1) {
		if !strings.Contains(string(page), "**"+m[1]) {
			t.Errorf("gotrace.1.md does not describe %s", m[1])
		}
	}
}

// example is a ```bpftrace block of a document and the ```output block
// after it, if any.
type example struct {
	file, program, output string
	hasOutput             bool
}

var fence = regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```")

func examples(t *testing.T) []example {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks := fence.FindAllStringSubmatch(string(b), -1)
		for i, bl := range blocks {
			if bl[1] != "bpftrace" {
				continue
			}
			ex := example{file: f, program: bl[2]}
			if i+1 < len(blocks) && blocks[i+1][1] == "output" {
				ex.output, ex.hasOutput = blocks[i+1][2], true
			}
			out = append(out, ex)
		}
	}
	return out
}

// TestExamples runs the documents' examples: one with an output block
// prints exactly it (as root, which loading BPF needs); the others
// compile (--emit asm, against this kernel's BTF).
func TestExamples(t *testing.T) {
	exs := examples(t)
	if len(exs) == 0 {
		t.Fatal("no examples found")
	}
	for i, ex := range exs {
		ex := ex
		t.Run(ex.file+"#"+string(rune('0'+i)), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := []string{"--emit", "asm", "-e", ex.program}
			if ex.hasOutput {
				if os.Geteuid() != 0 {
					t.Skip("running an example needs root")
				}
				args = []string{"-q", "-e", ex.program}
			}
			cmd := exec.CommandContext(ctx, gotrace(t), args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("gotrace %q: %v\n%s", args, err, stderr.String())
			}
			if ex.hasOutput && strings.TrimSpace(string(out)) != strings.TrimSpace(ex.output) {
				t.Errorf("got:\n%s\nwant:\n%s", out, ex.output)
			}
		})
	}
}

// TestREADMECommands: the README's run command runs its program (through
// the built binary, as root; compiled otherwise) and prints what it
// says, and its test command is the script CI runs.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^go run ./cmd/gotrace -e '([^']*)'$").FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatal("the README has no `go run ./cmd/gotrace -e '...'` line")
	}
	args := []string{"--emit", "asm", "-e", m[1]}
	if os.Geteuid() == 0 {
		args = []string{"-q", "-e", m[1]}
	}
	out, err := exec.Command(gotrace(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gotrace %q: %v\n%s", args, err, out)
	}
	if os.Geteuid() == 0 && !strings.HasPrefix(string(out), "hello world 42\n") {
		t.Errorf("the README's run command prints %q", out)
	}
	if !strings.Contains(string(readme), "\n```\nscripts/test.sh\n```\n") {
		t.Error("the README does not give scripts/test.sh as the test command")
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil || !strings.Contains(string(ci), "scripts/test.sh") {
		t.Errorf(".ci/run does not call scripts/test.sh (%v)", err)
	}
	if fi, err := os.Stat("../scripts/test.sh"); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("scripts/test.sh is not an executable file: %v", err)
	}
}

// TestLinks: every relative link of the README and of these documents
// names a file of the repository.
func TestLinks(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range append(files, "../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
}

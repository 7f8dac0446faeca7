package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.bt")
	if err := os.WriteFile(in, []byte("BEGIN { @[comm] = count(); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "BEGIN\n{\n  @[comm] = count();\n}\n"
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--fmt", in}, nil, &stdout, &stderr); code != 0 || stdout.String() != want {
		t.Fatalf("--fmt: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	// -e, and -o rewriting a file in place.
	stdout.Reset()
	if code := run(context.Background(), []string{"--fmt", "-e", "BEGIN{exit()}"}, nil, &stdout, &stderr); code != 0 || stdout.String() != "BEGIN\n{\n  exit();\n}\n" {
		t.Fatalf("--fmt -e: exit %d, stdout %q", code, stdout.String())
	}
	if code := run(context.Background(), []string{"--fmt", "-o", in, in}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--fmt -o: exit %d: %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(in); string(b) != want {
		t.Fatalf("-o wrote %q", b)
	}
	// A script that does not parse: bpftrace's error, exit 1, the file
	// left alone.
	bad := "BEGIN { $x = ; }\n"
	os.WriteFile(in, []byte(bad), 0o644)
	stderr.Reset()
	if code := run(context.Background(), []string{"--fmt", "-o", in, in}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "x.bt:1:14") {
		t.Fatalf("bad script: exit %d, stderr %q", code, stderr.String())
	}
	if b, _ := os.ReadFile(in); string(b) != bad {
		t.Fatalf("the file changed: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "x.bt.*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

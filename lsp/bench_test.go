package lsp

import (
	"testing"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/lspbench"
)

// BenchmarkAnalyze300 is the work behind the diagnostics after an edit of
// a 300-line script: parse and check against this machine's kernel (the
// testdata kernel where it is unreadable). bench/lsp times it over the
// protocol.
func BenchmarkAnalyze300(b *testing.B) {
	s := NewServer(gotrace.NewKernelEnv())
	src := lspbench.Script(300)
	d := s.analyze("file:///tmp/b.bt", src)
	for _, dg := range d.diags {
		b.Logf("%v: %s", dg.Range.Start, dg.Message)
	}
	b.ResetTimer()
	for range b.N {
		s.analyze("file:///tmp/b.bt", src)
	}
}

package codegen_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/internal/fuzzwatch"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// FuzzCompile runs arbitrary scripts through the whole kernel-free
// pipeline: parse, check against the pinned BTF, code generation with and
// without gotol, and instruction encoding (which resolves every jump). Each
// stage either succeeds or returns a positioned error; none panics, and the
// whole stays within the watchdog's time and memory.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzwatch.Scripts(f) {
		f.Add(s)
	}
	spec := testbtf.Spec(f)
	env := tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(spec))
	f.Fuzz(func(t *testing.T, src string) {
		fuzzwatch.Run(t, fuzzwatch.Default, len(src), func() {
			file, err := syntax.Parse("fuzz.bt", src)
			if err != nil {
				return
			}
			checked, err := check.Check(file, env, check.Options{Params: []string{"42", "hello"}})
			if err != nil {
				var list syntax.ErrorList
				if !errors.As(err, &list) {
					t.Errorf("check error without a position: %T %v", err, err)
				}
				return
			}
			for _, long := range []bool{false, true} {
				p, err := codegen.Compile(checked, codegen.Options{BTF: spec, Features: provider.Features{LongJumps: long}})
				if err != nil {
					var cerr *codegen.Error
					if !errors.As(err, &cerr) {
						t.Errorf("codegen error without a position: %T %v", err, err)
					}
					continue
				}
				for name, ps := range p.Collection.Programs {
					var b bytes.Buffer
					if err := ps.Instructions.Marshal(&b, binary.LittleEndian); err != nil {
						t.Errorf("program %s does not encode: %v", name, err)
					}
				}
			}
		})
	})
}

package gotrace

import (
	"path/filepath"
	"testing"

	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/tracefs"
)

// TestRunOptionsFromEnv checks that a custom Env shares its tracefs
// directory and BTF cache with program loads, and that Unsafe, given once
// to Compile, reaches the runtime.
func TestRunOptionsFromEnv(t *testing.T) {
	env := tracefs.NewEnv(filepath.Join("testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t)))
	s, err := Compile("api.bt", `BEGIN { system("true"); exit(); }`, Options{Env: env, Unsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	ro := s.runtimeOptions(RunOptions{Quiet: true})
	if !ro.Unsafe || !ro.Quiet {
		t.Errorf("Unsafe %v Quiet %v, want both", ro.Unsafe, ro.Quiet)
	}
	if ro.BTFCache == nil || ro.TracefsDir != env.TracefsDir() || ro.BTFCache != env.BTFCache() {
		t.Errorf("runtime options do not share the environment's tracefs and BTF cache")
	}
	if _, err := Compile("api.bt", `BEGIN { system("true"); exit(); }`, Options{Env: env}); err == nil {
		t.Error("system() without Unsafe compiled")
	}
}

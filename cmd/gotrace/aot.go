package main

// Ahead-of-time mode (bpftrace's --aot FILE): `gotrace [options] -e PROG
// --aot FILE` checks and compiles the script as a run would, then writes
// FILE, an executable that runs the script later with a few options of its
// own (aotrun.go).
//
// bpftrace needs a separate runtime shim, since its compiler is LLVM; a
// gotrace binary is its own shim: FILE is a copy of the running executable
// with the script and its generation-time options appended (aotpayload.go).
// The binary compiles the script again each time it starts, against the
// kernel it then runs on. gotrace compiles a script in milliseconds, and
// compiling there is what keeps the program right for that kernel: struct
// member offsets, tracepoint formats, the available kernel functions and
// BPF features all come from the running kernel's BTF and tracefs, so a
// binary generated on one kernel runs correctly on another, and a probe it
// cannot attach there is reported as a normal run reports it. What must
// not change between generation and run — the script, its parameters, its
// config, the headers it includes — is in the payload.
//
// Generation compiles without loading: the verifier's verdict belongs to
// the kernel the binary runs on (as bpftrace, which does not load the
// program either at --aot), so an invalid script fails here with the usual
// positioned errors and a valid one is checked by the verifier when it
// runs.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/debuginfo"
)

// generateAOT compiles the program of cfg and writes cfg.aot. It prints
// what a run prints up to loading (errors, warnings, -d and --emit's
// output) and nothing on success, as bpftrace.
func generateAOT(cfg *config, name, src string, stdout, stderr io.Writer) int {
	env := newRecordingEnv()
	cfg.env = env
	script, ok := compileScript(cfg, name, src, 0, stderr)
	if !ok {
		return 1
	}
	if code, done := showCompiled(cfg, script, stdout, stderr); done {
		return code
	}
	params, _ := gotrace.SplitParams(cfg.params)
	copts := compileOptions(cfg)
	p := &aotPayload{Name: name, Source: src, Params: params, Unsafe: cfg.out.unsafe,
		IncludeDirs: cfg.includeDirs, Includes: cfg.includes,
		ConfigEnv: copts.ConfigEnv, DummyTSMap: copts.DummyTSMap,
		ProbeFilter: cfg.probeFilter, DebuginfoDirs: debuginfo.Dirs, Files: env.files}
	if err := writeAOT(cfg.aot, p.encode()); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	return 0
}

// selfExe is the running executable, the base of AOT binaries and where
// an AOT binary finds its payload. /proc/self/exe is the file that runs,
// even if its path was since replaced or removed.
const selfExe = "/proc/self/exe"

// writeAOT writes path: a copy of the running executable with payload and
// its trailer appended, an executable file of mode 0777 less the umask. It
// writes a temporary file next to path and renames it, so that path is
// never a partial binary; it refuses to replace anything at path but a
// regular file (a device, a FIFO, a directory).
func writeAOT(path string, payload []byte) (err error) {
	fail := func(err error) error {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = strerror{pe.Err}
		case errors.As(err, &le):
			err = strerror{le.Err}
		}
		return fmt.Errorf("failed to write '%s': %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fail(errNotRegular)
	}
	self, err := os.Open(selfExe)
	if err != nil {
		return fmt.Errorf("failed to read the gotrace executable: %w", err)
	}
	defer self.Close()
	tmp, err := createExecutableTemp(path)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, self); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(append(payload, trailer(payload)...)); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

// errNotRegular refuses to write an AOT binary over anything but a
// regular file.
var errNotRegular = errors.New("not a regular file")

// createExecutableTemp creates a new file next to path, with a random
// name, for writing and with mode 0777 less the umask (the kernel applies
// it, as for any program a compiler writes).
func createExecutableTemp(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, "."+base+".tmp"+hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o777)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fs.ErrExist
}

// checkAOT refuses the options that --aot cannot take: -k, as bpftrace
// ("Cannot use -k with --aot"), and gotrace's -c, -p and --repl, which
// belong to one run: an AOT binary has neither.
func (cfg *config) checkAOT() error {
	switch {
	case cfg.aot == "":
	case cfg.out.warnings && !cfg.out.kk: // -kk has its own message
		return errors.New("Cannot use -k with --aot")
	case cfg.out.cmd != "":
		return errors.New("Cannot use -c with --aot")
	case cfg.out.pid != "":
		return errors.New("Cannot use -p with --aot")
	case cfg.repl:
		return errors.New("Cannot use --repl with --aot")
	}
	return nil
}

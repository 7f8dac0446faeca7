package heldprogs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
)

// Prog is one program a process holds.
type Prog struct {
	ID ebpf.ProgramID
	// Name is the kernel's name of the program (at most 15 characters).
	Name string
	// Func is the name of its main BTF function, "" without function
	// info: bpftool prog shows it in full in Name's place.
	Func string
}

// Of returns the programs that process pid holds file descriptors of
// (one entry per descriptor), found through /proc/PID/fdinfo.
func Of(pid int) ([]Prog, error) {
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var progs []Prog
	for _, fd := range fds {
		b, err := os.ReadFile(dir + "/" + fd.Name())
		if err != nil {
			continue // closed since
		}
		for _, line := range strings.Split(string(b), "\n") {
			v, ok := strings.CutPrefix(line, "prog_id:")
			if !ok {
				continue
			}
			id, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %q: %w", dir, fd.Name(), line, err)
			}
			p, err := describe(ebpf.ProgramID(id))
			if errors.Is(err, os.ErrNotExist) {
				continue // unloaded since (a feature probe's program)
			}
			if err != nil {
				return nil, err
			}
			progs = append(progs, p)
		}
	}
	return progs, nil
}

// describe reads a program's names.
func describe(id ebpf.ProgramID) (Prog, error) {
	p, err := ebpf.NewProgramFromID(id)
	if err != nil {
		return Prog{}, fmt.Errorf("program %d: %w", id, err)
	}
	defer p.Close()
	info, err := p.Info()
	if err != nil {
		return Prog{}, fmt.Errorf("program %d: %w", id, err)
	}
	prog := Prog{ID: id, Name: info.Name}
	if fi, err := info.FuncInfos(); err == nil && len(fi) > 0 {
		prog.Func = fi[0].Func.Name
	}
	return prog, nil
}

package codegen_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/internal/difftest"
	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/internal/txtar"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/tracefs"
)

var update = flag.Bool("update", false, "rewrite the want.asm sections of testdata/*.txtar")

// dump renders every program of p with its probe, maps and events.
func dump(p *object.Program) string {
	var b bytes.Buffer
	for _, m := range p.Maps {
		fmt.Fprintf(&b, "map %s %s key=%s value=%s percpu=%v\n", m.Name, m.BPFName, m.Key, m.Value, m.PerCPU)
	}
	for i, pf := range p.Printfs {
		fmt.Fprintf(&b, "printf %d %q size=%d", i, pf.Format, pf.Size)
		for _, a := range pf.Args {
			fmt.Fprintf(&b, " %s@%d", a.Type, a.Offset)
		}
		b.WriteString("\n")
	}
	var scratch []string
	for name := range p.Collection.Maps {
		if strings.HasPrefix(name, "scratch_") {
			scratch = append(scratch, name)
		}
	}
	sort.Strings(scratch)
	for _, name := range scratch {
		m := p.Collection.Maps[name]
		fmt.Fprintf(&b, "scratch %s %s value=%d entries=%d\n", name, m.Type, m.ValueSize, m.MaxEntries)
	}
	for _, pr := range p.Probes {
		spec := p.Collection.Programs[pr.Program]
		fmt.Fprintf(&b, "probe %s provider=%s targets=%v period=%d freq=%d config=%d (%s %s attach=%s to=%q)\n", pr.Name, pr.Provider, pr.Targets, pr.Period, pr.Freq, pr.Config, pr.Program, spec.Type, spec.AttachType, spec.AttachTo)
		fmt.Fprintf(&b, "func %s\n%v", funcName(spec), spec.Instructions)
	}
	return b.String()
}

// funcName is the name of a program's BTF function info, "-" without.
func funcName(spec *ebpf.ProgramSpec) string {
	if len(spec.Instructions) > 0 {
		if fn := btf.FuncMetadata(&spec.Instructions[0]); fn != nil {
			return fn.Name
		}
	}
	return "-"
}

func compileScript(t *testing.T, name, src string, opts codegen.Options) (*object.Program, error) {
	t.Helper()
	return compileChecked(t, name, src, opts, check.Options{})
}

// compileChecked is compileScript with more checker options (the
// parameters and the CPUs are the tests' own).
func compileChecked(t *testing.T, name, src string, opts codegen.Options, copts check.Options) (*object.Program, error) {
	t.Helper()
	file, err := syntax.Parse(name, src)
	if err != nil {
		return nil, err
	}
	// Host files resolve uprobe targets (uprobe:/bin/sh:0x1000).
	env := struct {
		*tracefs.Env
		hostfs.Files
	}{tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))), hostfs.Files{}}
	copts.Params, copts.NCPUs = []string{"42"}, 4
	checked, err := check.Check(file, env, copts)
	if err != nil {
		return nil, err
	}
	opts.BTF = testbtf.Spec(t)
	return codegen.Compile(checked, opts)
}

// TestGolden compiles each testdata/*.txtar "script" section and compares
// the instruction dump with its "want.asm" section (go test -update
// rewrites them).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			a := txtar.Parse(string(data))
			src, ok := a.Get("script")
			if !ok {
				t.Fatal("no script section")
			}
			// A comment line "options: KprobeMulti DirectBTFLoads" sets
			// the kernel-dependent code generation choices (and DwarfPid
			// gives dw_ustack a target process).
			var opts codegen.Options
			var copts check.Options
			for _, line := range strings.Split(a.Comment, "\n") {
				if rest, ok := strings.CutPrefix(line, "options:"); ok {
					for _, o := range strings.Fields(rest) {
						switch o {
						case "KprobeMulti":
							opts.KprobeMulti = true
						case "KprobeSession":
							opts.KprobeSession = true
						case "DirectBTFLoads":
							opts.DirectBTFLoads = true
						case "TracingMulti":
							opts.TracingMulti = true
						case "Fsession":
							opts.Fsession = true
						case "HistSum":
							opts.HistSum = true
						case "DwarfPid":
							copts.DwarfPids = []int{4242} // --dwarf-pid, for dw_ustack
						default:
							t.Fatalf("unknown option %q", o)
						}
					}
				}
			}
			prog, err := compileChecked(t, filepath.Base(f), src, opts, copts)
			if err != nil {
				t.Fatalf("compile: %v", syntax.Render(err, src))
			}
			got := dump(prog)
			want, _ := a.Get("want.asm")
			if *update {
				a.Set("want.asm", got)
				if err := os.WriteFile(f, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("instructions differ from %s (go test ./codegen -update rewrites it):\n%s", f, difftest.Diff(want, got))
			}
		})
	}
}

// TestWildcardGroups checks that every probe carries its group explicitly:
// the programs of a trampoline wildcard share one Group, so the runtime
// never parses program names to find them.
func TestWildcardGroups(t *testing.T) {
	src := `fentry:vfs_rea* { @[comm] = count(); }
kprobe:vfs_rea* { @k[func] = count(); }
fentry:vfs_write { @w = count(); }
`
	prog, err := compileScript(t, "groups.bt", src, codegen.Options{})
	if err != nil {
		t.Fatalf("compile: %v", syntax.Render(err, src))
	}
	var got []string
	for _, p := range prog.Probes {
		got = append(got, fmt.Sprintf("%s %s %q size=%d wildcard=%v", p.Program, p.Targets, p.Group.Written, p.Group.Size, p.Group.Wildcard()))
	}
	want := []string{
		`p0_0 [vfs_read] "fentry:vfs_rea*" size=3 wildcard=true`,
		`p0_1 [vfs_readlink] "fentry:vfs_rea*" size=3 wildcard=true`,
		`p0_2 [vfs_readv] "fentry:vfs_rea*" size=3 wildcard=true`,
		`p1 [vfs_read vfs_readlink vfs_readv] "kprobe:vfs_rea*" size=3 wildcard=true`,
		`p2 [vfs_write] "fentry:vfs_write" size=1 wildcard=false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if prog.Probes[0].Group != prog.Probes[2].Group {
		t.Error("the programs of one wildcard do not share their Group")
	}
}

// programSlots returns the instruction slots of each program in a golden
// dump (a 64-bit immediate load takes 2), from the slot offsets it prints.
func programSlots(dump string) []int {
	var slots []int
	for _, line := range strings.Split(dump, "\n") {
		if strings.HasPrefix(line, "probe ") {
			slots = append(slots, 0)
			continue
		}
		f := strings.Fields(line)
		if len(slots) == 0 || len(f) < 2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		var off int
		if _, err := fmt.Sscanf(f[0], "%d:", &off); err != nil {
			continue
		}
		size := 1
		switch f[1] {
		case "LoadMapPtr", "LoadMapValue", "LdImmDW":
			size = 2
		}
		slots[len(slots)-1] = off + size
	}
	return slots
}

// TestSlotBudget checks the goldens that carry a "max-slots: N" comment:
// hot paths must stay as short as a hand-written program.
func TestSlotBudget(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	budgets := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a := txtar.Parse(string(data))
		var max int
		for _, line := range strings.Split(a.Comment, "\n") {
			if rest, ok := strings.CutPrefix(line, "max-slots:"); ok {
				fmt.Sscanf(strings.TrimSpace(rest), "%d", &max)
			}
		}
		if max == 0 {
			continue
		}
		budgets++
		want, _ := a.Get("want.asm")
		slots := programSlots(want)
		if len(slots) == 0 {
			t.Errorf("%s: no program in want.asm", f)
		}
		for _, n := range slots {
			if n > max {
				t.Errorf("%s: %d instruction slots, want at most %d", f, n, max)
			}
		}
	}
	if budgets < 4 {
		t.Errorf("%d goldens with a slot budget, want at least 4", budgets)
	}
}

// TestNoIdleInstructions checks that no golden executes an instruction
// that does nothing: a register moved onto itself or a jump to the next
// instruction.
func TestNoIdleInstructions(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := txtar.Parse(string(data)).Get("want.asm")
		lines := strings.Split(want, "\n")
		for i, line := range lines {
			fields := strings.Fields(line)
			if len(fields) < 2 {
				continue
			}
			switch fields[1] {
			case "MovReg":
				// "MovReg dst: rX src: rX"
				if len(fields) >= 6 && fields[3] == fields[5] {
					t.Errorf("%s: %s", f, strings.TrimSpace(line))
				}
			case "Ja":
				ref := fields[len(fields)-1]
				for _, next := range lines[i+1:] {
					next = strings.TrimSpace(next)
					if strings.HasPrefix(next, ";") {
						continue
					}
					if next == strings.Trim(ref, "<>")+":" {
						t.Errorf("%s: jump to the next instruction: %s", f, strings.TrimSpace(line))
					}
					break
				}
			}
		}
	}
}

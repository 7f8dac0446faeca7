package runtime

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/provider"
)

// usymResolver symbolizes user addresses: /proc/PID/maps gives the file
// and file offset behind an address, and the file's ELF symbol table the
// function at that offset. Symbol tables are read once per file.
type usymResolver struct {
	mu    sync.Mutex
	files map[string][]usym // by path; nil slice for unreadable files
	// lineTabs are the files' DWARF line tables, by path.
	lineTabs map[string]*fileLines
	// execs are the position-dependent executables (ELF type ET_EXEC) the
	// program has uprobes in: their functions sit at their link-time
	// addresses in every process, so an address of a process that has
	// exited (and taken its /proc/PID/maps along) is looked up in them.
	execs []execSegs
	// demangle: C++ names are demangled (config cpp_demangle); noCache:
	// symbol tables are read for every lookup (cache_user_symbols =
	// NONE).
	demangle, noCache bool
}

// execSegs is an executable and its loadable segments.
type execSegs struct {
	path string
	segs []elf.ProgHeader
}

// uprobeExecs lists the position-dependent executables of the program's
// uprobes.
func uprobeExecs(prog *object.Program) []execSegs {
	var out []execSegs
	seen := map[string]bool{}
	for _, p := range prog.Probes {
		for _, path := range provider.Lookup(p.Provider).BinariesOf(p) {
			if seen[path] {
				continue
			}
			seen[path] = true
			f, err := elf.Open(path)
			if err != nil {
				continue
			}
			if f.Type == elf.ET_EXEC {
				e := execSegs{path: path}
				for _, ph := range f.Progs {
					if ph.Type == elf.PT_LOAD {
						e.segs = append(e.segs, ph.ProgHeader)
					}
				}
				out = append(out, e)
			}
			f.Close()
		}
	}
	return out
}

// execFile finds the uprobe executable whose segments hold addr.
func (r *usymResolver) execFile(addr uint64) (string, uint64, bool) {
	for _, e := range r.execs {
		for _, p := range e.segs {
			if addr >= p.Vaddr && addr < p.Vaddr+p.Memsz {
				return e.path, addr - p.Vaddr + p.Off, true
			}
		}
	}
	return "", 0, false
}

// usym is a function symbol by file offset.
type usym struct {
	off, size uint64
	name      string
}

// lookup returns the function containing addr in process pid and the
// offset of addr in it.
func (r *usymResolver) lookup(addr, pid uint64) (string, uint64, bool) {
	name, off, _, ok := r.lookupFile(addr, pid)
	return name, off, ok
}

// lookupFile is lookup that also returns the file the function is in.
func (r *usymResolver) lookupFile(addr, pid uint64) (string, uint64, string, bool) {
	path, foff, ok := mappedFile(addr, pid)
	if !ok {
		if path, foff, ok = r.execFile(addr); !ok {
			return "", 0, "", false
		}
	}
	syms := r.symbols(path)
	i := sort.Search(len(syms), func(i int) bool { return syms[i].off > foff }) - 1
	if i < 0 || (syms[i].size > 0 && foff >= syms[i].off+syms[i].size) {
		return "", 0, "", false
	}
	return syms[i].name, foff - syms[i].off, path, true
}

// perfFrame renders a ustack frame in perf's format (after the address):
// name+offset (file), or the address and [unknown].
func (r *usymResolver) perfFrame(addr, pid uint64) string {
	if name, off, path, ok := r.lookupFile(addr, pid); ok {
		return fmt.Sprintf("%s+%d (%s)", name, off, path)
	}
	return fmt.Sprintf("0x%x ([unknown])", addr)
}

// name renders usym(): the function name, or the address in hex.
func (r *usymResolver) name(addr, pid uint64) string {
	if name, _, ok := r.lookup(addr, pid); ok {
		return name
	}
	return fmt.Sprintf("0x%x", addr)
}

// frame renders a ustack frame: name+offset, or the address in hex.
func (r *usymResolver) frame(addr, pid uint64) string {
	if name, off, ok := r.lookup(addr, pid); ok {
		return fmt.Sprintf("%s+%d", name, off)
	}
	return fmt.Sprintf("0x%x", addr)
}

// mappedFile finds the file mapping that contains addr in process pid.
func mappedFile(addr, pid uint64) (string, uint64, bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return "", 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || addr < start || addr >= end {
			continue
		}
		return fields[5], addr - start + off, true
	}
	return "", 0, false
}

// symbols reads the function symbols of an ELF file, by file offset.
func (r *usymResolver) symbols(path string) []usym {
	r.mu.Lock()
	defer r.mu.Unlock()
	if syms, ok := r.files[path]; ok {
		return syms
	}
	if r.files == nil {
		r.files = map[string][]usym{}
	}
	var syms []usym
	if f, err := elf.Open(path); err == nil {
		// Where names share an address, the later table's wins: the
		// dynamic symbols, the names other files link against. A
		// stripped file's names come from its separate debug file.
		for _, s := range debuginfo.Symbols(f, path, debuginfo.Dirs) {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 {
				continue
			}
			if off, ok := fileOffset(f, s.Value); ok {
				name, _, _ := strings.Cut(s.Name, "@")
				if r.demangle {
					name = provider.Demangle(name)
				}
				syms = append(syms, usym{off: off, size: s.Size, name: name})
			}
		}
		f.Close()
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].off < syms[j].off })
	if !r.noCache {
		r.files[path] = syms
	}
	return syms
}

// fileOffset converts a virtual address of an ELF file to a file offset
// through its loadable segments.
func fileOffset(f *elf.File, vaddr uint64) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Memsz {
			return vaddr - p.Vaddr + p.Off, true
		}
	}
	return 0, false
}

// withUsyms sets the formatter's hook for usym() values.
func (s *entry) withUsyms(f *output.Formatter) *output.Formatter {
	if f.Usym != nil {
		return f
	}
	c := *f
	c.Usym = s.usyms.name
	return &c
}

package tracefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
)

// Env implements lang.Env over a tracefs directory (or a copy of one) and the
// kernel's BTF. It is safe for concurrent use.
type Env struct {
	root string

	btfOnce  sync.Once
	btfSpec  *btf.Spec
	btfErr   error
	btfCache *btf.Cache

	files KernelFiles // WithKernelFiles
	funcs funcList    // TraceableFunctions, KernelSymbols
}

// Option configures an Env.
type Option func(*Env)

// WithBTF makes Env.BTF return spec instead of loading the kernel's BTF.
// Tests use it with a pinned BTF blob.
func WithBTF(spec *btf.Spec) Option {
	return func(e *Env) {
		e.btfOnce.Do(func() {})
		e.btfSpec = spec
		if spec == nil {
			e.btfErr = errors.New("no BTF available")
		}
	}
}

// WithBTFCache makes Env load the kernel's BTF through c, so that it can be
// shared with the loader (ebpf.CollectionOptions.Cache).
func WithBTFCache(c *btf.Cache) Option {
	return func(e *Env) { e.btfCache = c }
}

// NewEnv returns an Env reading tracepoints below root, a tracefs directory
// such as the one returned by Mount, or a snapshot with the same layout
// (root/events/CATEGORY/EVENT/format).
func NewEnv(root string, opts ...Option) *Env {
	e := &Env{root: root}
	for _, o := range opts {
		o(e)
	}
	if e.btfCache == nil {
		e.btfCache = btf.NewCache()
	}
	return e
}

// Root returns the tracefs directory the Env reads.
func (e *Env) Root() string { return e.root }

// BTFCache returns the cache through which the Env loads kernel BTF. Pass it
// to ebpf.CollectionOptions.Cache to parse kernel BTF only once.
func (e *Env) BTFCache() *btf.Cache { return e.btfCache }

// Tracepoints returns the "category:event" names matching pattern, sorted.
// The ftrace category is left out: its events are the tracer's own
// records, which have no enable file, are not in available_events and
// cannot be attached (perf_event_open answers EINVAL), as bpftrace leaves
// them out. Both halves of the pattern may use the glob wildcards '*' and '?' (and
// [...] classes). No match is not an error: the result is empty.
func (e *Env) Tracepoints(pattern string) ([]string, error) {
	cat, ev, ok := strings.Cut(pattern, ":")
	if !ok || cat == "" || ev == "" {
		return nil, fmt.Errorf("invalid tracepoint pattern %q: want CATEGORY:EVENT", pattern)
	}
	if _, err := filepath.Match(cat, ""); err != nil {
		return nil, fmt.Errorf("invalid tracepoint pattern %q: %w", pattern, err)
	}
	if _, err := filepath.Match(ev, ""); err != nil {
		return nil, fmt.Errorf("invalid tracepoint pattern %q: %w", pattern, err)
	}
	events := filepath.Join(e.root, "events")
	cats, err := matchDirs(events, cat)
	if err != nil {
		return nil, fmt.Errorf("list tracepoints: %w", err)
	}
	var out []string
	for _, c := range cats {
		if c == "ftrace" {
			continue
		}
		evs, err := matchDirs(filepath.Join(events, c), ev)
		if err != nil {
			return nil, fmt.Errorf("list tracepoints: %w", err)
		}
		for _, name := range evs {
			// Only event directories have a format file.
			if _, err := os.Stat(filepath.Join(events, c, name, "format")); err == nil {
				out = append(out, c+":"+name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// matchDirs returns the names of the subdirectories of dir matching pattern.
func matchDirs(dir, pattern string) ([]string, error) {
	if !hasMeta(pattern) {
		st, err := os.Stat(filepath.Join(dir, pattern))
		if err != nil || !st.IsDir() {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		if ok, _ := filepath.Match(pattern, ent.Name()); ok {
			out = append(out, ent.Name())
		}
	}
	return out, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// TracepointFormat reads and parses events/CATEGORY/EVENT/format. The error
// wraps fs.ErrNotExist when the tracepoint does not exist.
func (e *Env) TracepointFormat(category, event string) (*Format, error) {
	if !validName(category) || !validName(event) {
		return nil, fmt.Errorf("tracepoint %s:%s: %w", category, event, fs.ErrNotExist)
	}
	text, err := os.ReadFile(filepath.Join(e.root, "events", category, event, "format"))
	if err != nil {
		return nil, fmt.Errorf("tracepoint %s:%s: %w", category, event, err)
	}
	return ParseFormat(category, event, text)
}

// TracepointID returns the perf event id of a tracepoint, read from
// events/CATEGORY/EVENT/id (cheaper than parsing the whole format).
func (e *Env) TracepointID(category, event string) (uint32, error) {
	if !validName(category) || !validName(event) {
		return 0, fmt.Errorf("tracepoint %s:%s: %w", category, event, fs.ErrNotExist)
	}
	text, err := os.ReadFile(filepath.Join(e.root, "events", category, event, "id"))
	if errors.Is(err, fs.ErrNotExist) {
		// Snapshots only hold the format file.
		f, ferr := e.TracepointFormat(category, event)
		if ferr != nil {
			return 0, ferr
		}
		return f.ID, nil
	}
	if err != nil {
		return 0, fmt.Errorf("tracepoint %s:%s: %w", category, event, err)
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(text)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("tracepoint %s:%s: bad id: %w", category, event, err)
	}
	return uint32(id), nil
}

// validName rejects names that would escape the events directory.
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\x00")
}

// BTF returns the kernel's BTF, loading it on first use (see WithBTF and
// WithBTFCache). It needs /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF) or
// a vmlinux image in one of the usual places.
func (e *Env) BTF() (*btf.Spec, error) {
	e.btfOnce.Do(func() {
		e.btfSpec, e.btfErr = e.btfCache.Kernel()
		if e.btfErr != nil {
			e.btfErr = fmt.Errorf("load kernel BTF: %w", e.btfErr)
			return
		}
		btfnames.RegisterKernel(e.btfSpec)
	})
	return e.btfSpec, e.btfErr
}

// TracefsDir returns the tracefs directory, Root; with BTFCache it lets
// program loads share what the checker read.
func (e *Env) TracefsDir() string { return e.root }

package provider

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// selfSignals are the signals self:signal: probes can run on.
var selfSignals = map[string]syscall.Signal{"SIGUSR1": syscall.SIGUSR1}

// selfProvider is self:signal:SIGNAL: the program runs (BPF_PROG_TEST_RUN,
// without a context, as BEGIN) each time gotrace itself receives SIGNAL.
// The probes of one signal run in script order.
var selfProvider = &Provider{
	Name:      "self",
	Expand:    expandSelf,
	Ctx:       CtxNone,
	UserArgs:  never,
	ProbeType: "self",
	Compile: func(_ []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "self"
		return Program{Type: ebpf.RawTracepoint, Ctx: CtxNone}
	},
	Attach: attachSelf,
	List: func(w io.Writer, _ ListEnv, pattern string, _ bool) error {
		for name := range selfSignals {
			if matchGlob(pattern, "signal:"+name) {
				fmt.Fprintf(w, "self:signal:%s\n", name)
			}
		}
		return nil
	},
}

// expandSelf reads self:signal:SIGNAL.
func expandSelf(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) != 2 || parts[0] != "signal" {
		return nil, fmt.Errorf("self probes must be self:signal:SIGNAL, got %q", raw)
	}
	if _, ok := selfSignals[parts[1]]; !ok {
		return nil, fmt.Errorf("%s is not a supported signal (supported: SIGUSR1)", parts[1])
	}
	return []*Point{{Name: "self:signal:" + parts[1], Event: parts[1]}}, nil
}

// signalRunner runs the programs of one Attacher's self probes when their
// signal arrives, in attach order.
type signalRunner struct {
	mu    sync.Mutex
	progs map[os.Signal][]*ebpf.Program
	sigs  chan os.Signal
	done  chan struct{}
}

var (
	runnersMu sync.Mutex
	runners   = map[Attacher]*signalRunner{}
)

// attachSelf adds the program to its Attacher's signal runner, starting it
// with the first probe; detaching the last stops it.
func attachSelf(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	sig, ok := selfSignals[strings.TrimPrefix(p.Name, "self:signal:")]
	if !ok {
		return 0, fmt.Errorf("attach %s: not a self:signal: probe", p.Name)
	}
	runnersMu.Lock()
	r := runners[a]
	if r == nil {
		r = &signalRunner{progs: map[os.Signal][]*ebpf.Program{}, sigs: make(chan os.Signal, 16), done: make(chan struct{})}
		runners[a] = r
		go r.run()
		a.Push(closerFunc(func() error {
			runnersMu.Lock()
			delete(runners, a)
			runnersMu.Unlock()
			signal.Stop(r.sigs)
			close(r.done)
			return nil
		}))
	}
	runnersMu.Unlock()
	r.mu.Lock()
	r.progs[sig] = append(r.progs[sig], prog)
	r.mu.Unlock()
	signal.Notify(r.sigs, sig)
	return 1, nil
}

// run runs the programs of each signal received until done.
func (r *signalRunner) run() {
	for {
		select {
		case <-r.done:
			return
		case sig := <-r.sigs:
			r.mu.Lock()
			progs := r.progs[sig]
			r.mu.Unlock()
			for _, prog := range progs {
				_, _ = prog.Run(&ebpf.RunOptions{})
			}
		}
	}
}

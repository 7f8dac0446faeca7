package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang/types"
)

// command runs a backslash command; it reports whether to quit.
func (r *replSession) command(input string) bool {
	fields := strings.Fields(input)
	name, args := fields[0], fields[1:]
	rest := strings.TrimSpace(strings.TrimPrefix(input, name))
	switch name {
	case `\q`, `\quit`:
		return true
	case `\help`, `\h`, `\?`:
		fmt.Fprint(r.errOut, replHelp)
	case `\probes`:
		r.wait()
		r.probes()
	case `\detach`:
		r.wait()
		r.detachCmd(args)
	case `\maps`:
		r.wait()
		r.maps()
	case `\print`:
		r.wait()
		r.printCmd(args)
	case `\watch`:
		r.wait()
		r.watch(args)
	case `\asm`:
		r.wait()
		r.asm(rest)
	case `\load`:
		if len(args) != 1 {
			fmt.Fprintln(r.errOut, `usage: \load FILE`)
			break
		}
		src, err := os.ReadFile(args[0])
		if err != nil {
			fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
			break
		}
		r.enqueue(func() { r.add(args[0], string(src)) })
	case `\save`:
		if len(args) != 1 {
			fmt.Fprintln(r.errOut, `usage: \save FILE`)
			break
		}
		r.wait()
		if err := os.WriteFile(args[0], []byte(r.script()), 0o644); err != nil {
			fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
			break
		}
		fmt.Fprintf(r.errOut, "saved to %s\n", args[0])
	default:
		fmt.Fprintf(r.errOut, "unknown command %s (\\help lists them)\n", name)
	}
	return false
}

// probes lists the live entries.
func (r *replSession) probes() {
	r.mu.Lock()
	es := append([]*replEntry(nil), r.entries...)
	r.mu.Unlock()
	if len(es) == 0 {
		fmt.Fprintln(r.out, "no probes attached")
		return
	}
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "[%d] %s  ", e.n, strings.Join(e.h.Probes(), ", "))
		if hits, ok := e.h.Hits(); ok {
			fmt.Fprintf(&b, "hits: %d  ", hits)
		}
		fmt.Fprintf(&b, "events: %d\n", e.h.Events())
	}
	_, _ = r.out.Write(b.Bytes())
}

// detachCmd is \detach N|all.
func (r *replSession) detachCmd(args []string) {
	if len(args) != 1 {
		fmt.Fprintln(r.errOut, `usage: \detach N|all`)
		return
	}
	r.mu.Lock()
	es := append([]*replEntry(nil), r.entries...)
	r.mu.Unlock()
	if args[0] == "all" {
		for _, e := range es {
			r.detach(e)
		}
		return
	}
	n, err := strconv.Atoi(strings.TrimPrefix(args[0], "#"))
	for _, e := range es {
		if err == nil && e.n == n {
			r.detach(e)
			return
		}
	}
	fmt.Fprintf(r.errOut, "no attached entry %s (\\probes lists them)\n", args[0])
}

// maps lists the session's maps.
func (r *replSession) maps() {
	infos := r.sess.Maps()
	if len(infos) == 0 {
		fmt.Fprintln(r.out, "no maps")
		return
	}
	var b bytes.Buffer
	for _, m := range infos {
		keys := "-"
		if m.Keys != nil {
			ks := make([]string, len(m.Keys))
			for i, k := range m.Keys {
				ks[i] = k.String()
			}
			keys = "[" + strings.Join(ks, ", ") + "]"
		}
		fmt.Fprintf(&b, "%-16s key %-24s value %-16s entries %d\n", m.Name, keys, valueString(m.Value), m.Entries)
	}
	_, _ = r.out.Write(b.Bytes())
}

// valueString names a map's value type or aggregation.
func valueString(t *types.Type) string {
	if t == nil {
		return "-"
	}
	return t.String()
}

// mapArgs parses "@m [a [b]]" into the map name and up to two integers.
func mapArgs(args []string, usage string) (name string, nums []int, err error) {
	if len(args) == 0 || len(args) > 3 || !strings.HasPrefix(args[0], "@") {
		return "", nil, fmt.Errorf("usage: %s", usage)
	}
	for _, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return "", nil, fmt.Errorf("usage: %s", usage)
		}
		nums = append(nums, n)
	}
	return args[0], nums, nil
}

// printCmd is \print @m [top [div]].
func (r *replSession) printCmd(args []string) {
	name, nums, err := mapArgs(args, `\print @m [top [div]]`)
	if err != nil {
		fmt.Fprintln(r.errOut, err)
		return
	}
	m, err := r.sess.Map(name)
	if err != nil {
		fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
		return
	}
	nums = append(nums, 0, 0)
	var b bytes.Buffer
	if err := m.Print(&b, nums[0], nums[1]); err != nil {
		fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
		return
	}
	if b.Len() == 0 {
		b.WriteString(name + " is empty\n")
	}
	_, _ = r.out.Write(b.Bytes())
}

// watch is \watch @m [interval]: the map redrawn in place every interval
// (seconds, or a Go duration such as 500ms) until a key is pressed.
func (r *replSession) watch(args []string) {
	usage := `\watch @m [interval]`
	if len(args) == 0 || len(args) > 2 || !strings.HasPrefix(args[0], "@") {
		fmt.Fprintln(r.errOut, "usage: "+usage)
		return
	}
	interval := time.Second
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		if err != nil {
			secs, ferr := strconv.ParseFloat(args[1], 64)
			if ferr != nil || secs <= 0 {
				fmt.Fprintln(r.errOut, "usage: "+usage+" (interval in seconds or as 500ms)")
				return
			}
			d = time.Duration(secs * float64(time.Second))
		}
		interval = d
	}
	m, err := r.sess.Map(args[0])
	if err != nil {
		fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
		return
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			var b bytes.Buffer
			// Home and clear the screen: the map is redrawn in place.
			fmt.Fprintf(&b, "\x1b[H\x1b[2JEvery %v: %s    (press any key to stop)\n\n", interval, args[0])
			if err := m.Print(&b, 0, 0); err != nil {
				fmt.Fprintf(&b, "gotrace: %v\n", err)
			}
			_, _ = r.out.Write(b.Bytes())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	r.watching.Store(true)
	r.rl.SetPrompt("")
	_, _ = r.rl.Readline()
	r.watching.Store(false)
	close(stop)
	<-done
	fmt.Fprintf(r.errOut, "\\watch %s ended\n", args[0])
}

// asm is \asm N|PROGRAM.
func (r *replSession) asm(arg string) {
	if arg == "" {
		fmt.Fprintln(r.errOut, `usage: \asm N|PROGRAM`)
		return
	}
	if n, err := strconv.Atoi(arg); err == nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, e := range r.entries {
			if e.n == n {
				var b bytes.Buffer
				printAsm(&b, e.h.Program())
				_, _ = r.out.Write(b.Bytes())
				return
			}
		}
		fmt.Fprintf(r.errOut, "no attached entry %d\n", n)
		return
	}
	src := arg
	if !isProgram(src) {
		src = replProgram(arg)
	}
	script, err := r.sess.Compile("stdin", src)
	if err != nil {
		fmt.Fprint(r.errOut, gotrace.FormatError(err, src))
		return
	}
	var b bytes.Buffer
	printAsm(&b, script.Program)
	_, _ = r.out.Write(b.Bytes())
}

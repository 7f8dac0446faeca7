package btdiff

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Tool is a tracer the programs run through.
type Tool struct {
	Name string   // in reports
	Argv []string // the command; the script's path is appended
	JSON bool     // Argv asks for -f json output
}

// Result is one tool's answer for one program: what it printed, or why it
// refused the program.
type Result struct {
	Out     string
	Refused string // the error, when the tool refused the program
}

// Disagreement is a program the tools answer differently.
type Disagreement struct {
	ID     int
	Source string
	Got    Result // gotrace
	Want   Result // the reference
}

// script is a batch of programs: one begin probe each, then one that
// exits. lines maps a script line to the program on it.
type script struct {
	text  string
	lines []int // program id of each line (1-based index), -1 outside
}

func buildScript(progs map[int]string, ids []int) script {
	var b strings.Builder
	lines := []int{-1}
	add := func(s string, id int) {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
			b.WriteString(strings.TrimSuffix(l, "\n") + "\n")
			lines = append(lines, id)
		}
	}
	for _, id := range ids {
		add("begin {\n"+progs[id]+"}", id)
	}
	add("begin { printf(\"=== END\\n\"); exit(); }", -1)
	return script{b.String(), lines}
}

// errLineRe finds the script line of a positioned error.
var errLineRe = regexp.MustCompile(`(?m)^[^\s:]+\.bt:(\d+):\d+(?:-\d+)?: ERROR: (.*)$`)

// runScript runs sc through tool in dir. It returns the output split by
// program (the exit print under -1), or the programs named by the errors
// that refused the script (nil when no error names one: the whole batch
// failed) with the tool's stderr.
func runScript(ctx context.Context, tool Tool, dir string, sc script) (parts map[int]string, refused map[int]string, stderr string, err error) {
	path := filepath.Join(dir, "batch.bt")
	if err := os.WriteFile(path, []byte(sc.text), 0o644); err != nil {
		return nil, nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool.Argv[0], append(tool.Argv[1:], path)...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, nil, se.String(), fmt.Errorf("%s timed out", tool.Name)
	}
	if runErr != nil {
		refused = map[int]string{}
		for _, m := range errLineRe.FindAllStringSubmatch(se.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			if n < len(sc.lines) && sc.lines[n] >= 0 {
				if _, ok := refused[sc.lines[n]]; !ok {
					refused[sc.lines[n]] = m[2]
				}
			}
		}
		return nil, refused, se.String(), nil
	}
	out := so.String()
	if tool.JSON {
		out = jsonToText(out)
	}
	return splitOutput(out), nil, se.String(), nil
}

var markerRe = regexp.MustCompile(`^=== (\d+)$`)

// exitMapRe finds the program a map of the exit print belongs to.
var exitMapRe = regexp.MustCompile(`^@p(\d+)_`)

// splitOutput splits a batch's stdout by the programs' marker lines; the
// exit print (after the blank lines that end the run) goes to the
// programs named by its maps, under -(id+1).
func splitOutput(s string) map[int]string {
	out := map[int]string{}
	body, exitPart, _ := strings.Cut(s, "\n\n\n")
	cur := -1
	for _, l := range strings.SplitAfter(body+"\n", "\n") {
		if m := markerRe.FindStringSubmatch(strings.TrimSuffix(l, "\n")); m != nil {
			cur, _ = strconv.Atoi(m[1])
			continue
		}
		if l == endMarker {
			continue
		}
		out[cur] += l
	}
	cur = -1
	for _, l := range strings.SplitAfter(exitPart, "\n") {
		if m := exitMapRe.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			cur = -(n + 1)
		}
		out[cur] += l
	}
	return out
}

// Runner runs batches of programs through gotrace and the reference.
type Runner struct {
	Gotrace, Reference Tool
	Dir                string // scratch directory
	Log                func(format string, args ...any)
}

// Stats counts what a run compared.
type Stats struct {
	Programs, Agreed, RefusedByBoth int
	Disagreements                   []Disagreement
	// Reruns counts, by tool name, the runs of a batch whose output
	// lacked the marker line of a program it ran (events lost on a loaded
	// machine); the batch ran again, at most maxRuns times in all.
	Reruns map[string]int
}

// maxRuns is how often a batch runs through one tool while its output
// misses a program's marker.
const maxRuns = 3

// runWhole runs sc like runScript, again while the output lacks the
// marker of a program in ids (every program prints "=== ID" first).
func (r *Runner) runWhole(ctx context.Context, tool Tool, sc script, ids []int, st *Stats) (map[int]string, map[int]string, string, error) {
	for run := 1; ; run++ {
		out, refused, stderr, err := runScript(ctx, tool, r.Dir, sc)
		if err != nil || out == nil || run == maxRuns || !missesMarker(out, ids) {
			return out, refused, stderr, err
		}
		if st.Reruns == nil {
			st.Reruns = map[string]int{}
		}
		st.Reruns[tool.Name]++
		if r.Log != nil {
			r.Log("%s lost output of a batch of %d programs (run %d); running it again", tool.Name, len(ids), run)
		}
	}
}

// missesMarker reports whether out has no part for a program of ids.
func missesMarker(out map[int]string, ids []int) bool {
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return true
		}
	}
	return false
}

// Batch compares the programs ids of series seed.
func (r *Runner) Batch(ctx context.Context, seed uint64, ids []int, st *Stats) error {
	progs := map[int]string{}
	for _, id := range ids {
		progs[id] = Program(seed, id)
	}
	st.Programs += len(ids)
	gotRefused, wantRefused := map[int]string{}, map[int]string{}
	live := append([]int(nil), ids...)
	for len(live) > 0 {
		sc := buildScript(progs, live)
		gotOut, gr, gerr, err := r.runWhole(ctx, r.Gotrace, sc, live, st)
		if err != nil {
			return err
		}
		wantOut, wr, werr, err := r.runWhole(ctx, r.Reference, sc, live, st)
		if err != nil {
			return err
		}
		if gotOut != nil && wantOut != nil {
			r.compare(progs, live, gotOut, wantOut, st)
			break
		}
		for id, msg := range gr {
			gotRefused[id] = msg
		}
		for id, msg := range wr {
			wantRefused[id] = msg
		}
		if (gotOut == nil && len(gr) == 0) || (wantOut == nil && len(wr) == 0) {
			// an error that names no program: halve the batch
			if len(live) == 1 {
				id := live[0]
				if gotOut == nil {
					gotRefused[id] = firstLine(gerr)
				}
				if wantOut == nil {
					wantRefused[id] = firstLine(werr)
				}
				break
			}
			half := len(live) / 2
			for _, part := range [][]int{live[:half], live[half:]} {
				sub := &Stats{}
				if err := r.Batch(ctx, seed, part, sub); err != nil {
					return err
				}
				sub.Programs = 0 // counted above
				st.Add(sub)
			}
			live = nil
			break
		}
		live = slicesWithout(live, gr, wr)
	}
	// A program only one tool refused in a batch may be refused by the
	// other alone (its errors stop at the first failing pass): run it
	// alone through the other.
	for _, id := range ids {
		g, gok := gotRefused[id]
		w, wok := wantRefused[id]
		switch {
		case gok && wok:
			st.RefusedByBoth++
		case gok || wok:
			one := buildScript(progs, []int{id})
			other := r.Reference
			if wok {
				other = r.Gotrace
			}
			out, ref, se, err := runScript(ctx, other, r.Dir, one)
			if err != nil {
				return err
			}
			if out == nil {
				msg := firstLine(se)
				for _, m := range ref {
					msg = m
				}
				if gok {
					w = msg
				} else {
					g = msg
				}
				st.RefusedByBoth++
				continue
			}
			d := Disagreement{ID: id, Source: progs[id]}
			d.Got, d.Want = Result{Refused: g}, Result{Refused: w}
			if gok {
				d.Want.Out = out[id]
			} else {
				d.Got.Out = out[id]
			}
			st.Disagreements = append(st.Disagreements, d)
		}
	}
	return nil
}

// Add adds the counts of o to st.
func (st *Stats) Add(o *Stats) {
	st.Programs += o.Programs
	st.Agreed += o.Agreed
	st.RefusedByBoth += o.RefusedByBoth
	st.Disagreements = append(st.Disagreements, o.Disagreements...)
	for name, n := range o.Reruns {
		if st.Reruns == nil {
			st.Reruns = map[string]int{}
		}
		st.Reruns[name] += n
	}
}

func (r *Runner) compare(progs map[int]string, ids []int, got, want map[int]string, st *Stats) {
	for _, id := range ids {
		g := got[id] + got[-(id+1)]
		w := want[id] + want[-(id+1)]
		if g == w {
			st.Agreed++
			continue
		}
		st.Disagreements = append(st.Disagreements, Disagreement{ID: id, Source: progs[id], Got: Result{Out: g}, Want: Result{Out: w}})
	}
}

func slicesWithout(ids []int, drop ...map[int]string) []int {
	var out []int
	for _, id := range ids {
		keep := true
		for _, d := range drop {
			if _, ok := d[id]; ok {
				keep = false
			}
		}
		if keep {
			out = append(out, id)
		}
	}
	sort.Ints(out)
	return out
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "ERROR") {
			return l
		}
	}
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

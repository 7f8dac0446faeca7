// Command btdiff is the differential check against the real bpftrace
// (package internal/btdiff): it runs -n generated programs through
// gotrace and a reference bpftrace, compares their output, and reports
// every disagreement that Known does not explain.
//
//	go build -o /tmp/gt ./cmd/gotrace
//	go run ./cmd/btdiff -gotrace /tmp/gt -ref bpftrace27 -n 20000 -report /tmp/btdiff.txt
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/gotrace/gotrace/internal/btdiff"
)

func main() {
	gt := flag.String("gotrace", "gotrace", "the gotrace binary")
	ref := flag.String("ref", "bpftrace27", "the reference bpftrace")
	n := flag.Int("n", 1000, "programs to compare")
	first := flag.Int("first", 0, "number of the first program")
	seed := flag.Uint64("seed", 1, "series of programs")
	batch := flag.Int("batch", 200, "programs per script")
	report := flag.String("report", "", "write every disagreement to this file")
	verbose := flag.Bool("v", false, "print progress")
	asJSON := flag.Bool("json", false, "compare the tools' -f json output")
	flag.Parse()

	dir, err := os.MkdirTemp("", "btdiff")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	r := &btdiff.Runner{
		Gotrace:   btdiff.Tool{Name: "gotrace", Argv: []string{*gt, "-q"}},
		Reference: btdiff.Tool{Name: "bpftrace", Argv: []string{*ref, "-q"}},
		Dir:       dir,
	}
	if *asJSON {
		for _, t := range []*btdiff.Tool{&r.Gotrace, &r.Reference} {
			t.Argv = append(t.Argv, "-f", "json")
			t.JSON = true
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var st btdiff.Stats
	for lo := *first; lo < *first+*n && ctx.Err() == nil; lo += *batch {
		var ids []int
		for id := lo; id < min(lo+*batch, *first+*n); id++ {
			ids = append(ids, id)
		}
		var bs btdiff.Stats
		if err := r.Batch(ctx, *seed, ids, &bs); err != nil {
			if ctx.Err() != nil {
				break // interrupted: report the batches done
			}
			fatal(err)
		}
		st.Add(&bs)
		if *verbose {
			fmt.Fprintf(os.Stderr, "btdiff: %d programs, %d agreed, %d refused by both, %d disagreements\n", st.Programs, st.Agreed, st.RefusedByBoth, len(st.Disagreements))
		}
	}
	var b strings.Builder
	unexplained := 0
	byReason := map[string]int{}
	for _, d := range st.Disagreements {
		k := btdiff.Explain(d)
		if k == nil {
			unexplained++
		} else {
			byReason[k.Name]++
		}
		fmt.Fprintf(&b, "### program %d (seed %d)", d.ID, *seed)
		if k != nil {
			fmt.Fprintf(&b, ": %s", k.Name)
		}
		fmt.Fprintf(&b, "\n%s--- gotrace\n%s%s--- bpftrace\n%s%s\n", d.Source, d.Got.Refused+nl(d.Got.Refused), d.Got.Out, d.Want.Refused+nl(d.Want.Refused), d.Want.Out)
	}
	if *report != "" {
		if err := os.WriteFile(*report, []byte(b.String()), 0o644); err != nil {
			fatal(err)
		}
	} else if unexplained > 0 {
		fmt.Print(b.String())
	}
	fmt.Printf("btdiff: seed %d: %d programs: %d agreed, %d refused by both, %d disagreements (%d unexplained)\n",
		*seed, st.Programs, st.Agreed, st.RefusedByBoth, len(st.Disagreements), unexplained)
	for _, k := range btdiff.Known {
		if byReason[k.Name] > 0 {
			fmt.Printf("  %d: %s: %s\n", byReason[k.Name], k.Name, k.Why)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st.Reruns)) {
		fmt.Printf("  %s lost output and ran a batch again %d times\n", name, st.Reruns[name])
	}
	if ctx.Err() != nil {
		fmt.Println("btdiff: interrupted")
	}
	if unexplained > 0 {
		os.Exit(1)
	}
}

func nl(s string) string {
	if s == "" {
		return ""
	}
	return "\n"
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "btdiff:", err)
	os.Exit(2)
}

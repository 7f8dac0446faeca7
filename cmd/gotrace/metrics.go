package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gotrace/gotrace/metrics"
	"github.com/gotrace/gotrace/object"
)

// metricsFlags are --metrics ADDR, --metrics-prefix and
// --metrics-max-series.
type metricsFlags struct {
	addr      string
	prefix    string
	prefixSet bool
	maxSeries int
}

const metricsUsage = `    --metrics ADDR serve the maps as Prometheus metrics at http://ADDR/metrics
                   while the program runs (e.g. 127.0.0.1:9435, :9435); without
                   a program, the REPL's attached entries' maps
    --metrics-prefix PREFIX
                   start metric names with PREFIX (default gotrace)
    --metrics-max-series N
                   export at most N series (default 10000)
`

// metricsOptions are the options that set m.
func metricsOptions(m *metricsFlags) []option {
	return []option{
		{long: "metrics", hasArg: true, set: func(v string) error { m.addr = v; return nil }},
		{long: "metrics-prefix", hasArg: true, set: func(v string) error { m.prefix, m.prefixSet = v, true; return nil }},
		{long: "metrics-max-series", hasArg: true, set: func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("USAGE: --metrics-max-series must be a positive integer: %s", v)
			}
			m.maxSeries = n
			return nil
		}},
	}
}

// startMetrics starts serving prog's maps when --metrics is given: nil
// without it. Its error is the one line to print: a clash of metric
// names, a bad address or one in use. Warnings go to stderr unless quiet.
func startMetrics(m *metricsFlags, prog *object.Program, stderr io.Writer, noWarnings bool) (*metrics.Server, *metrics.SessionSource, error) {
	if m.addr == "" {
		return nil, nil, nil
	}
	src := metrics.NewSessionSource(prog)
	srv, err := serveMetrics(m, src, stderr, noWarnings)
	if err != nil {
		return nil, nil, err
	}
	return srv, src, nil
}

// serveMetrics serves src's maps at --metrics's address, as --metrics-prefix
// and --metrics-max-series say.
func serveMetrics(m *metricsFlags, src metrics.Source, stderr io.Writer, noWarnings bool) (*metrics.Server, error) {
	warn := func(msg string) {
		if !noWarnings {
			fmt.Fprintf(stderr, "WARNING: %s\n", msg)
		}
	}
	c, err := metrics.New(src, metrics.Options{
		Prefix: m.prefix, NoPrefix: m.prefixSet && m.prefix == "",
		MaxSeries: m.maxSeries, Warn: warn,
	})
	if err != nil {
		return nil, err
	}
	return metrics.Listen(m.addr, c, warn)
}

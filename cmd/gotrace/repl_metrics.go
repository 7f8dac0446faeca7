package main

import (
	"slices"

	"github.com/gotrace/gotrace/metrics"
	"github.com/gotrace/gotrace/object"
)

// startMetrics serves, with --metrics, the maps of the REPL's live
// entries: a map is exported while an attached entry uses it, and no
// longer once every such entry is detached (the session keeps it for
// \print). It says where on the REPL's stderr. Its error is the one line
// to print at startup (a bad address, one in use).
func (r *replSession) startMetrics() (*metrics.Server, *metrics.SessionSource, error) {
	m := &r.cfg.metrics
	if m.addr == "" {
		return nil, nil, nil
	}
	src := metrics.NewSessionSource(nil)
	src.Only(r.liveMap)
	srv, err := serveMetrics(m, src, r.errOut, r.cfg.out.noWarnings)
	if err != nil {
		return nil, nil, err
	}
	return srv, src, nil
}

// liveMap reports whether a live entry uses map name.
func (r *replSession) liveMap(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if slices.ContainsFunc(e.script.Program.Maps, func(m *object.Map) bool { return m.Name == name }) {
			return true
		}
	}
	return false
}

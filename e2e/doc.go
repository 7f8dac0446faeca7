// Package e2e runs the real gotrace binary on real scripts against the
// running kernel and compares what it prints. The tests need root; they
// exercise the probe types this kernel supports (BEGIN/END, tracepoints,
// interval, profile, software).
package e2e

// Package handprog holds the hand-written BPF programs the benchmarks set
// against gotrace's generated ones (bench/events, cmd/kbench). They stay
// written instruction by instruction, so that they measure what a careful
// person would write with cilium/ebpf, not what gotrace emits.
package handprog

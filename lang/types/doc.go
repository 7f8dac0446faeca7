// Package types describes the values of a gotrace script: integers with their
// width and signedness, fixed-size strings, tuples, kernel pointers typed through
// BTF, and the aggregation values (count, sum, hist, ...) that maps hold.
//
// A Type also fixes the byte layout of a value in BPF memory (map keys and
// values, ringbuf events), which the code generator writes and the runtime
// decodes. The layouts of aggregation values are documented on each Kind.
package types

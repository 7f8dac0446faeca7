package runtime

import (
	"bufio"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
)

// Ring buffer sizing when perf_rb_pages is not set: as bpftrace 0.26, the
// available memory bounded to [defaultRingMinKB, defaultRingMaxKB], in
// pages, rounded to the nearest power of two; but bpftrace's upper bound
// is 16544 KiB (a 16 MiB ring), and gotrace's is 1 MiB. The kernel maps a
// ring buffer's data area into the reader twice, so 16 MiB would add 32 MB
// to gotrace's resident size (measured: 40 MB peak RSS for BEGIN { exit(); }
// against 8.4 MB), while gotrace's reader drains about 3M events per
// CPU-second (bpftrace 0.17: about 200k) and lost no event of a 427k
// events/s storm with 1 MiB (bench/throughput). perf_rb_pages, set in the
// config block or as BPFTRACE_PERF_RB_PAGES, gives bpftrace's sizes.
const (
	defaultRingMinKB = 256
	defaultRingMaxKB = 1024
)

// maxRingbufSize is the largest BPF ring buffer: max_entries is a uint32
// and must be a power of two.
const maxRingbufSize = 1 << 31

// RingbufSize returns the size in bytes of the event ring buffer (the
// events map, BPF_MAP_TYPE_RINGBUF) for bpftrace's perf_rb_pages config
// option (BPFTRACE_PERF_RB_PAGES). bpftrace sizes its single ring buffer,
// shared by all CPUs, as perf_rb_pages pages in total, at least one page
// per possible CPU, rounded up to a power of two by libbpf, as the kernel
// requires; RingbufSize does the same. perf_rb_pages 0 means bpftrace's
// default, which depends on the memory available (see defaultRingMaxKB).
func RingbufSize(perfRBPages uint64) (uint32, error) {
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return 0, fmt.Errorf("count CPUs: %w", err)
	}
	var availKB uint64
	if perfRBPages == 0 {
		if availKB, err = availableMemKB(); err != nil {
			return 0, fmt.Errorf("unable to size the ring buffer from the available memory; "+
				"set perf_rb_pages, e.g. config = { perf_rb_pages=64 }: %w", err)
		}
	}
	return ringbufSize(perfRBPages, ncpu, os.Getpagesize(), availKB)
}

// ringbufSize is RingbufSize for ncpu CPUs, pages of pageSize bytes and
// availKB KiB of available memory.
func ringbufSize(pages uint64, ncpu, pageSize int, availKB uint64) (uint32, error) {
	ps := uint64(pageSize)
	if pages == 0 {
		kb := max(min(availKB, defaultRingMaxKB), defaultRingMinKB)
		pages = max(closestPowerOfTwo(kb*1024/ps), 1)
	}
	pages = max(pages, uint64(ncpu))
	if pages > maxRingbufSize/ps {
		return 0, fmt.Errorf("perf_rb_pages=%d: the ring buffer may be at most %d pages", pages, maxRingbufSize/ps)
	}
	// A power-of-two number of pages (pageSize is one).
	size := ps << bits.Len64(pages-1)
	return uint32(size), nil
}

// closestPowerOfTwo returns the power of two nearest n (the lower one on a
// tie), as bpftrace rounds its default page count.
func closestPowerOfTwo(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	lo := uint64(1) << (bits.Len64(n) - 1)
	if lo == n {
		return n
	}
	hi := lo << 1
	if n-lo <= hi-n {
		return lo
	}
	return hi
}

// availableMemKB reads MemAvailable from /proc/meminfo.
func availableMemKB() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse MemAvailable: %w", err)
		}
		return kb, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no MemAvailable in /proc/meminfo")
}

package runtime

import "testing"

func TestRingbufSize(t *testing.T) {
	tests := []struct {
		name    string
		pages   uint64
		ncpu    int
		page    int
		availKB uint64
		want    uint32
	}{
		// perf_rb_pages is the total number of pages of the one ring
		// buffer, at least one per CPU, rounded up to a power of two.
		{"one page, 2 CPUs", 1, 2, 4096, 0, 2 * 4096},
		{"one page, 1 CPU", 1, 1, 4096, 0, 4096},
		{"64 pages", 64, 8, 4096, 0, 64 * 4096},
		{"100 pages", 100, 8, 4096, 0, 128 * 4096},
		{"3 pages, 3 CPUs", 3, 3, 4096, 0, 4 * 4096},
		{"fewer pages than CPUs", 4, 12, 4096, 0, 16 * 4096},
		{"64 KiB pages", 5, 2, 65536, 0, 8 * 65536},
		{"largest", 1 << 19, 2, 4096, 0, 1 << 31},
		// The default: available memory within [256 KiB, 1 MiB] (bpftrace:
		// 16544 KiB), in pages, to the nearest power of two.
		{"default, plenty of memory", 0, 2, 4096, 8 << 20, 1 << 20},
		{"default, little memory", 0, 2, 4096, 100, 256 << 10},
		{"default, 700 KiB", 0, 2, 4096, 700, 128 * 4096}, // 175 pages: 128 is nearer than 256
		{"default, 800 KiB", 0, 2, 4096, 800, 256 * 4096}, // 200 pages: 256 is nearer
		{"default, tie", 0, 2, 4096, 768, 128 * 4096},     // 192 pages: the lower one
		{"default, 64 KiB pages", 0, 2, 65536, 8 << 20, 16 * 65536},
	}
	for _, tt := range tests {
		got, err := ringbufSize(tt.pages, tt.ncpu, tt.page, tt.availKB)
		if err != nil || got != tt.want {
			t.Errorf("%s: ringbufSize(%d, %d, %d, %d) = %d, %v; want %d", tt.name, tt.pages, tt.ncpu, tt.page, tt.availKB, got, err, tt.want)
		}
	}
	if got, err := ringbufSize(1<<19+1, 2, 4096, 0); err == nil {
		t.Errorf("ringbufSize of 2^19+1 pages = %d, want an error", got)
	}
}

func TestRingbufSizeHost(t *testing.T) {
	size, err := RingbufSize(1)
	if err != nil {
		t.Fatal(err)
	}
	if size == 0 || size&(size-1) != 0 {
		t.Errorf("RingbufSize(1) = %d, not a power of two", size)
	}
	if _, err := RingbufSize(0); err != nil {
		t.Fatal(err)
	}
}

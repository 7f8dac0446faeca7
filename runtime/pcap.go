package runtime

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/perf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// linktypeRaw is the pcap link type of raw IPv4 and IPv6 packets
// (LINKTYPE_RAW), which skboutput's files hold, as bpftrace's libpcap
// writes them (DLT_RAW).
const linktypeRaw = 101

// pcapSnaplen is the maximum packet length the files declare.
const pcapSnaplen = 65535

// pcapWriter writes the packets skboutput() sends through the program's
// PacketMap to its pcap files: one file per path, created (truncated)
// before the probes are attached, as bpftrace creates them.
type pcapWriter struct {
	rd    *perf.Reader
	files []*pcapFile // by object.Packet.ID
	all   []*pcapFile
	skip  []int // by ID: bytes left out at the start of each packet
	// bootToReal is CLOCK_REALTIME minus CLOCK_BOOTTIME: it turns a
	// packet's boot time into the time of day the file records.
	bootToReal int64
	stopping   atomic.Bool
	lost       atomic.Uint64
	// finished is closed when the reading goroutine returns, err
	// before.
	finished chan struct{}
	err      error
}

type pcapFile struct {
	f *os.File
	w *bufio.Writer
}

// startPcaps creates the pcap files and starts reading packets.
func startPcaps(prog *object.Program, m *ebpf.Map, perCPU int) (*pcapWriter, error) {
	pw := &pcapWriter{finished: make(chan struct{})}
	byPath := map[string]*pcapFile{}
	for _, p := range prog.Pcaps {
		pf := byPath[p.File]
		if pf == nil {
			f, err := os.Create(p.File)
			if err != nil {
				pw.closeFiles()
				return nil, fmt.Errorf("Failed to create pcap file(s): %w", err)
			}
			pf = &pcapFile{f: f, w: bufio.NewWriter(f)}
			byPath[p.File] = pf
			pw.all = append(pw.all, pf)
			writePcapHeader(pf.w)
		}
		pw.files = append(pw.files, pf)
		pw.skip = append(pw.skip, p.Offset)
	}
	var real, boot unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME, &real); err != nil {
		pw.closeFiles()
		return nil, err
	}
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot); err != nil {
		pw.closeFiles()
		return nil, err
	}
	pw.bootToReal = real.Nano() - boot.Nano()
	rd, err := perf.NewReader(m, perCPU)
	if err != nil {
		pw.closeFiles()
		return nil, fmt.Errorf("open the skboutput perf buffer: %w", err)
	}
	pw.rd = rd
	go func() {
		defer close(pw.finished)
		pw.err = pw.read()
	}()
	return pw, nil
}

// startPcaps opens the program's pcap files and reads its PacketMap into
// them, with per-CPU buffers that share the events ring buffer's size.
func (s *entry) startPcaps() error {
	m := s.coll.Maps[s.prog.PacketMap]
	if m == nil {
		return fmt.Errorf("packet map %q not in the collection", s.prog.PacketMap)
	}
	perCPU := os.Getpagesize()
	if ev := s.prog.Collection.Maps[s.prog.EventsMap]; ev != nil && s.ncpu > 0 {
		perCPU = max(perCPU, int(ev.MaxEntries)/s.ncpu)
	}
	pw, err := startPcaps(s.prog, m, perCPU)
	if err != nil {
		return err
	}
	s.pcaps = pw
	s.others.push(pw)
	return nil
}

// stopPcaps writes the packets still buffered once the probes are
// detached, closes the files, and reports packets the kernel dropped
// ("Lost N events", as for other events).
func (s *entry) stopPcaps() error {
	if s.pcaps == nil {
		return nil
	}
	lost, err := s.pcaps.stop()
	if lost > 0 {
		_ = s.sink.Lost(lost)
	}
	return err
}

// writePcapHeader writes a pcap file header (version 2.4, microsecond
// timestamps, raw IP packets) in the host's byte order.
func writePcapHeader(w io.Writer) {
	var h [24]byte
	binary.NativeEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.NativeEndian.PutUint16(h[4:], 2)
	binary.NativeEndian.PutUint16(h[6:], 4)
	binary.NativeEndian.PutUint32(h[16:], pcapSnaplen)
	binary.NativeEndian.PutUint32(h[20:], linktypeRaw)
	w.Write(h[:])
}

// read writes packets until stop has been called and the buffers are
// empty.
func (pw *pcapWriter) read() error {
	var rec perf.Record
	for {
		err := pw.rd.ReadInto(&rec)
		switch {
		case errors.Is(err, perf.ErrFlushed) || errors.Is(err, os.ErrDeadlineExceeded):
			if pw.stopping.Load() {
				return nil
			}
			continue
		case errors.Is(err, perf.ErrClosed):
			return nil
		case err != nil:
			return fmt.Errorf("read the skboutput perf buffer: %w", err)
		}
		pw.lost.Add(rec.LostSamples)
		if err := pw.write(rec.RawSample); err != nil {
			return err
		}
	}
}

// write writes one sample's packet (an object.Packet header, then the
// bytes) to its file, without the bytes skboutput's offset leaves out.
func (pw *pcapWriter) write(sample []byte) error {
	if len(sample) < object.PacketHeaderSize {
		return nil
	}
	id := binary.NativeEndian.Uint64(sample[0:])
	ns := int64(binary.NativeEndian.Uint64(sample[8:])) + pw.bootToReal
	n := binary.NativeEndian.Uint64(sample[16:])
	pkt := sample[object.PacketHeaderSize:]
	if n < uint64(len(pkt)) {
		pkt = pkt[:n] // the kernel pads samples to 8 bytes
	}
	if id >= uint64(len(pw.files)) {
		return nil
	}
	if skip := pw.skip[id]; skip < len(pkt) {
		pkt = pkt[skip:]
	} else {
		return nil // nothing left to write, as bpftrace
	}
	var h [16]byte
	binary.NativeEndian.PutUint32(h[0:], uint32(ns/1e9))
	binary.NativeEndian.PutUint32(h[4:], uint32(ns%1e9/1e3))
	binary.NativeEndian.PutUint32(h[8:], uint32(len(pkt)))
	binary.NativeEndian.PutUint32(h[12:], uint32(len(pkt)))
	w := pw.files[id].w
	w.Write(h[:])
	if _, err := w.Write(pkt); err != nil {
		return fmt.Errorf("write pcap file: %w", err)
	}
	return nil
}

// stop writes what the buffers still hold (the probes are detached),
// then closes the files, and returns how many packets the kernel dropped
// because a buffer was full.
func (pw *pcapWriter) stop() (uint64, error) {
	pw.stopping.Store(true)
	if err := pw.rd.Flush(); err != nil {
		return pw.lost.Load(), errors.Join(err, pw.Close())
	}
	<-pw.finished
	return pw.lost.Load(), errors.Join(pw.err, pw.Close())
}

// Close stops reading and closes the files; packets not yet read are
// lost. It can be called more than once.
func (pw *pcapWriter) Close() error {
	if pw.rd != nil {
		pw.rd.Close()
		<-pw.finished
		pw.rd = nil
	}
	return pw.closeFiles()
}

func (pw *pcapWriter) closeFiles() error {
	var errs []error
	for _, pf := range pw.all {
		errs = append(errs, pf.w.Flush(), pf.f.Close())
	}
	pw.all = nil
	return errors.Join(errs...)
}

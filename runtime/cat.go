package runtime

import (
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// catChunk is how much of a file cat() reads and prints at a time: its
// memory does not grow with MaxCatBytes.
const catChunk = 64 << 10

// cat prints the first MaxCatBytes bytes of a file. The file is opened
// and read without waiting: a FIFO without a writer, or one whose writer
// has nothing more yet, ends the output where a read would block, and a
// stop request (a signal) ends a long read (/dev/zero) between chunks.
func (s *entry) cat(name string) error {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		s.errorf("failed to open file '%s' (%s)", name, strerror(err))
		return nil
	}
	defer unix.Close(fd)
	// The output is written in pieces (one JSON event whose string is
	// written in pieces, for -f json) that end on whole UTF-8 sequences.
	if err := s.sink.CatBegin(); err != nil {
		return err
	}
	buf := make([]byte, catChunk)
	held := 0 // bytes of an incomplete UTF-8 sequence kept for the next chunk
	for left := s.opts.MaxCatBytes; left > 0 && !s.stopped(); {
		n, err := unix.Read(fd, buf[held:held+min(left, catChunk-held)])
		if err == unix.EINTR {
			continue
		}
		if err != nil && err != unix.EAGAIN {
			s.errorf("read '%s': %v", name, err)
		}
		if n <= 0 {
			break
		}
		left -= n
		n += held
		held = incompleteRune(buf[:n])
		if err := s.catWrite(buf[:n-held]); err != nil {
			return err
		}
		copy(buf, buf[n-held:n])
	}
	if err := s.catWrite(buf[:held]); err != nil {
		return err
	}
	return s.sink.CatEnd()
}

// catWrite prints a piece of cat()'s output.
func (s *entry) catWrite(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return s.sink.Cat(b)
}

// incompleteRune returns how many bytes at the end of b start a UTF-8
// sequence that b does not complete (0 to 3).
func incompleteRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

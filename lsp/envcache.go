package lsp

import (
	"sync"
	"time"

	"github.com/gotrace/gotrace"

	"github.com/gotrace/gotrace/tracefs"
)

// cacheFor is how long the server reuses what tracefs said: every
// keystroke checks the script again, and reading the formats of its
// tracepoints each time would cost more than the check; a tracepoint a
// module adds shows within this time.
const cacheFor = 30 * time.Second

// kernelCache is a gotrace.KernelEnv (all its methods) whose tracepoint
// lists and formats are kept for cacheFor.
type kernelCache struct {
	*gotrace.KernelEnv
	mu      sync.Mutex
	lists   map[string]cached[[]string]
	formats map[string]cached[*tracefs.Format]
}

type cached[T any] struct {
	v   T
	err error
	at  time.Time
}

func newKernelCache(k *gotrace.KernelEnv) *kernelCache {
	return &kernelCache{KernelEnv: k, lists: map[string]cached[[]string]{}, formats: map[string]cached[*tracefs.Format]{}}
}

// Tracepoints implements check.Env.
func (k *kernelCache) Tracepoints(pattern string) ([]string, error) {
	return lookup(k, k.lists, pattern, func() ([]string, error) { return k.KernelEnv.Tracepoints(pattern) })
}

// TracepointFormat implements check.Env.
func (k *kernelCache) TracepointFormat(category, event string) (*tracefs.Format, error) {
	return lookup(k, k.formats, category+":"+event, func() (*tracefs.Format, error) {
		return k.KernelEnv.TracepointFormat(category, event)
	})
}

func lookup[T any](k *kernelCache, m map[string]cached[T], key string, get func() (T, error)) (T, error) {
	k.mu.Lock()
	c, ok := m[key]
	k.mu.Unlock()
	if ok && time.Since(c.at) < cacheFor {
		return c.v, c.err
	}
	v, err := get()
	k.mu.Lock()
	m[key] = cached[T]{v, err, time.Now()}
	k.mu.Unlock()
	return v, err
}

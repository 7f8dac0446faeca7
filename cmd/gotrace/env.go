package main

import (
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/tracefs"
)

// lazyEnv mounts tracefs only when the script names a tracepoint.
type lazyEnv struct {
	dir string
	env *tracefs.Env
	err error
}

func newLazyEnv() *lazyEnv { return &lazyEnv{} }

func (l *lazyEnv) get() (*tracefs.Env, error) {
	if l.env == nil && l.err == nil {
		dir, err := tracefs.Mount()
		if err != nil {
			l.err = fmt.Errorf("tracefs: %w", err)
		} else {
			l.dir = dir
			l.env = tracefs.NewEnv(dir)
		}
	}
	return l.env, l.err
}

func (l *lazyEnv) Tracepoints(pattern string) ([]string, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.Tracepoints(pattern)
}

func (l *lazyEnv) TracepointFormat(category, event string) (*lang.TracepointFormat, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.TracepointFormat(category, event)
}

func (l *lazyEnv) BTF() (*btf.Spec, error) {
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.BTF()
}
